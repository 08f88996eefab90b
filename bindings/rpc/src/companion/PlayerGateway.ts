import { FATAL_CLOSE_CODES, GATEWAY_VERSION, GatewayOpcode, NEW_SESSION_CLOSE_CODES } from '@social-layer/protocol';
import WebSocket from 'ws';

/** Intents GUILDS (1 << 0) and GUILD_MESSAGES (1 << 9); neither is privileged. */
const COMPANION_INTENTS = (1 << 0) | (1 << 9);

export interface PlayerGatewayOptions {
  /** `ws://host/gateway` from `GET /api/v10/gateway`. */
  url: string;
  /** The player's current token (it changes when the companion refreshes it). */
  token: () => string;
  /** Every dispatch (READY and RESUMED included). */
  onDispatch(event: string, data: any): void;
  /** The token was refused (4004) or the session can never come back. */
  onFatal(code: number): void;
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
}

/**
 * The player's Gateway session for one application: Identify, heartbeats, and after a dropped
 * socket a Resume (with backoff) so that no dispatch is lost; a fresh Identify when the server
 * says the session is gone. While it is open the player counts as connected in that
 * application, which is what makes their rich presence visible to friends.
 */
export class PlayerGateway {
  private ws: WebSocket | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private awaitingAck = false;
  private seq: number | null = null;
  private sessionId: string | null = null;
  private resumeUrl: string | null = null;
  private attempts = 0;
  private stopped = false;
  private readyWaiters: { resolve(): void; reject(e: Error): void }[] = [];
  ready = false;

  constructor(private readonly options: PlayerGatewayOptions) {}

  /** Opens the session; resolves at READY (or RESUMED). */
  start(): Promise<void> {
    const p = new Promise<void>((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
    if (!this.ws && !this.retry) this.open();
    return p;
  }

  /** Ends the session with 1000 (the server ends the session: the player leaves the application). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.heartbeat);
    for (const w of this.readyWaiters.splice(0)) w.reject(new Error('stopped'));
    const ws = this.ws;
    this.ws = undefined;
    this.ready = false;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.close(1000, 'companion stopped');
      setTimeout(() => {
        ws.terminate();
        resolve();
      }, 2000).unref();
    });
  }

  /** Drops the socket without ending the session (tests of resume). */
  dropForResume(): void {
    this.ws?.terminate();
  }

  private open(): void {
    const base = this.sessionId && this.resumeUrl ? this.resumeUrl : this.options.url;
    const ws = new WebSocket(`${base.replace(/\/?(\?.*)?$/, '')}?v=${GATEWAY_VERSION}&encoding=json`);
    this.ws = ws;
    ws.on('message', (raw) => this.onMessage(ws, raw.toString()));
    ws.on('close', (code) => this.onClose(ws, code));
    ws.on('error', () => {});
  }

  private send(op: number, d: unknown): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ op, d }));
  }

  private onMessage(ws: WebSocket, raw: string): void {
    if (ws !== this.ws) return;
    let p: { op: number; d: any; s?: number | null; t?: string | null };
    try {
      p = JSON.parse(raw);
    } catch {
      return;
    }
    if (typeof p.s === 'number') this.seq = p.s;
    switch (p.op) {
      case GatewayOpcode.Hello: {
        clearInterval(this.heartbeat);
        this.awaitingAck = false;
        this.heartbeat = setInterval(() => {
          // No ACK since the last beat: the connection is dead; drop it and resume.
          if (this.awaitingAck) return ws.terminate();
          this.awaitingAck = true;
          this.send(GatewayOpcode.Heartbeat, this.seq);
        }, p.d.heartbeat_interval);
        if (this.sessionId) this.send(GatewayOpcode.Resume, { token: this.options.token(), session_id: this.sessionId, seq: this.seq });
        // GUILDS and GUILD_MESSAGES: GUILD_UPDATE feeds GUILD_STATUS, MESSAGE_* the message events.
        else this.send(GatewayOpcode.Identify, { token: this.options.token(), intents: COMPANION_INTENTS, properties: { os: process.platform, browser: 'social-layer-companion', device: 'social-layer-companion' } });
        return;
      }
      case GatewayOpcode.HeartbeatAck:
        this.awaitingAck = false;
        return;
      case GatewayOpcode.Heartbeat:
        return this.send(GatewayOpcode.Heartbeat, this.seq);
      case GatewayOpcode.Reconnect:
        return void ws.close(4200, 'reconnect');
      case GatewayOpcode.InvalidSession:
        if (!p.d) this.forgetSession();
        return void ws.close(4200, 'invalid session');
      case GatewayOpcode.Dispatch:
        if (p.t === 'READY') {
          this.sessionId = p.d.session_id ?? null;
          this.resumeUrl = p.d.resume_gateway_url ?? null;
        }
        if (p.t === 'READY' || p.t === 'RESUMED') {
          this.attempts = 0;
          this.ready = true;
          for (const w of this.readyWaiters.splice(0)) w.resolve();
        }
        if (p.t) this.options.onDispatch(p.t, p.d);
        return;
    }
  }

  private forgetSession(): void {
    this.sessionId = null;
    this.resumeUrl = null;
    this.seq = null;
  }

  private onClose(ws: WebSocket, code: number): void {
    if (ws !== this.ws) return;
    clearInterval(this.heartbeat);
    this.ws = undefined;
    this.ready = false;
    if (this.stopped) return;
    if (FATAL_CLOSE_CODES.has(code)) {
      for (const w of this.readyWaiters.splice(0)) w.reject(new Error(`Gateway closed the session (${code})`));
      this.stopped = true;
      return this.options.onFatal(code);
    }
    if (NEW_SESSION_CLOSE_CODES.has(code)) this.forgetSession();
    // After a few failures at the resume URL, go back to the main one.
    if (this.attempts >= 3) this.resumeUrl = null;
    const base = this.options.reconnectBaseMs ?? 500;
    const delay = Math.min(this.options.reconnectMaxMs ?? 30_000, base * 2 ** this.attempts) * (0.5 + Math.random() / 2);
    this.attempts++;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.stopped) this.open();
    }, delay);
  }
}
