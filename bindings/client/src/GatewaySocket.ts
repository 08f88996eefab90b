import { GatewayOpcode, type GatewayPayload, type HelloData } from '@social-layer/protocol';
import type { Logger } from './Logger.ts';
import { dropSocket, messageText, type WebSocketConstructor, type WebSocketLike } from './webSocket.ts';

export interface GatewaySocketEvents {
  /** Hello arrived; heartbeating has started. Time to Identify or Resume. */
  hello(): void;
  dispatch(payload: GatewayPayload): void;
  invalidSession(resumable: boolean): void;
  /** The server asked for a reconnect (op 7). */
  reconnectRequested(): void;
  /** No ACK came between two heartbeats: the connection is a zombie (protocols.md 1.5). */
  zombie(): void;
  /** The socket closed or failed without us asking; `opened` says whether it ever opened. */
  closed(code: number, reason: string, opened: boolean): void;
}

/**
 * One WebSocket to the Gateway: framing, Hello, heartbeats and ACK tracking. It knows nothing of
 * sessions; GatewaySession decides what to do with what it reports. After `close()` or `drop()`
 * it reports nothing more, so a stale socket can never disturb the next one.
 */
export class GatewaySocket {
  private readonly socket: WebSocketLike;
  private heartbeatTimer: ReturnType<typeof setTimeout> | undefined;
  private awaitingAck = false;
  private opened = false;
  private done = false;

  constructor(
    Ctor: WebSocketConstructor,
    readonly url: string,
    private readonly events: GatewaySocketEvents,
    private readonly lastSeq: () => number | null,
    private readonly logger: Logger,
  ) {
    this.socket = new Ctor(url);
    this.socket.onopen = () => {
      this.opened = true;
      this.logger.verbose('gateway socket open');
    };
    this.socket.onmessage = (event: { data: unknown }) => this.onMessage(messageText(event.data));
    this.socket.onerror = () => {
      // The close event that follows carries the code; the error event itself has no detail.
    };
    this.socket.onclose = (event: { code?: number; reason?: string }) => {
      if (this.done) return;
      this.finish();
      this.events.closed(event.code ?? 1006, event.reason ?? '', this.opened);
    };
  }

  send(op: number, d: unknown): void {
    if (this.done || this.socket.readyState !== 1) return;
    this.socket.send(JSON.stringify({ op, d }));
  }

  /** Closes politely with `code` (1000 ends the session on the server; others keep it resumable). */
  close(code: number, reason = ''): void {
    if (this.done) return;
    this.finish();
    const socket = this.socket;
    socket.onmessage = null;
    socket.onclose = null;
    socket.onerror = () => {};
    try {
      socket.close(code, reason);
    } catch {
      dropSocket(socket, code, reason);
    }
  }

  /**
   * Closes with `code` and resolves once the closing handshake is done (or after `timeoutMs`),
   * so that the server has seen the session end before the caller reports Disconnected.
   */
  closeAndWait(code: number, reason: string, timeoutMs: number): Promise<void> {
    if (this.done) return Promise.resolve();
    this.finish();
    const socket = this.socket;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        dropSocket(socket, code, reason);
        resolve();
      }, timeoutMs);
      socket.onmessage = null;
      socket.onerror = () => {};
      socket.onclose = () => {
        clearTimeout(timer);
        resolve();
      };
      try {
        if (socket.readyState === 0) {
          // Still connecting: browsers and `ws` both refuse a close handshake now; just drop it.
          clearTimeout(timer);
          dropSocket(socket, code, reason);
          resolve();
        } else socket.close(code, reason);
      } catch {
        clearTimeout(timer);
        dropSocket(socket, code, reason);
        resolve();
      }
    });
  }

  /** Drops the connection without a closing handshake (zombies: the peer would not answer it). */
  drop(code: number, reason = ''): void {
    if (this.done) return;
    this.finish();
    dropSocket(this.socket, code, reason);
  }

  private finish(): void {
    this.done = true;
    if (this.heartbeatTimer !== undefined) clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }

  private onMessage(text: string): void {
    if (this.done) return;
    let payload: GatewayPayload;
    try {
      payload = JSON.parse(text) as GatewayPayload;
    } catch {
      this.logger.warn('gateway sent a frame that is not JSON; reconnecting');
      this.drop(4002, 'decode error');
      this.events.closed(4002, 'decode error', true);
      return;
    }
    switch (payload.op) {
      case GatewayOpcode.Hello:
        this.startHeartbeat((payload.d as HelloData).heartbeat_interval);
        this.events.hello();
        break;
      case GatewayOpcode.HeartbeatAck:
        this.awaitingAck = false;
        break;
      case GatewayOpcode.Heartbeat:
        // The server asks for a beat now; it does not shift our own schedule.
        this.send(GatewayOpcode.Heartbeat, this.lastSeq());
        break;
      case GatewayOpcode.Dispatch:
        this.events.dispatch(payload);
        break;
      case GatewayOpcode.InvalidSession:
        this.events.invalidSession(payload.d === true);
        break;
      case GatewayOpcode.Reconnect:
        this.events.reconnectRequested();
        break;
      default:
        this.logger.verbose(`gateway op ${payload.op} ignored`);
    }
  }

  private startHeartbeat(intervalMs: number): void {
    if (!(intervalMs > 0)) {
      this.logger.warn('gateway Hello has no usable heartbeat_interval');
      return;
    }
    if (this.heartbeatTimer !== undefined) clearTimeout(this.heartbeatTimer);
    this.awaitingAck = false;
    // First beat after interval * jitter so that clients reconnecting together spread out.
    const beat = (): void => {
      if (this.done) return;
      if (this.awaitingAck) {
        this.logger.warn('no heartbeat ACK since the last heartbeat: zombie connection, reconnecting');
        this.events.zombie();
        return;
      }
      this.awaitingAck = true;
      this.send(GatewayOpcode.Heartbeat, this.lastSeq());
      this.heartbeatTimer = setTimeout(beat, intervalMs);
    };
    this.heartbeatTimer = setTimeout(beat, Math.floor(intervalMs * Math.random()));
  }
}
