import type { DaveSession } from '@social-layer/dave';
import {
  DAVE_PROTOCOL_VERSION,
  SpeakingFlags,
  VOICE_GATEWAY_VERSION,
  VoiceCloseCode,
  VoiceOpcode,
  voiceCloseIsResumable,
} from '@social-layer/protocol';
import { SUPPORTED_TRANSPORT_MODES, isTransportMode, type TransportMode } from '@social-layer/core-wasm';
import { backoffDelay } from '../backoff.ts';
import type { Logger } from '../Logger.ts';
import { dropSocket, messageText } from '../webSocket.ts';
import { DaveBridge } from './DaveBridge.ts';
import type { MediaPipeline } from './MediaPipeline.ts';
import type { MediaTransport, MediaTransportEvents, SessionDescription, VoiceReady } from './transports/MediaTransport.ts';
import { withTimeout } from './transports/MediaTransport.ts';
import { messageBytes, type VoiceSocketConstructor, type VoiceSocketLike } from './transports/voiceSocket.ts';

/** The voice session's own states (the Call maps them onto Call::Status). */
export const VoiceConnectionStatus = {
  Idle: 0,
  /** Socket opening, Identify sent, waiting for Ready. */
  Connecting: 1,
  /** Ready: choosing and opening the media transport. */
  Signaling: 2,
  /** Transport open: media can flow. */
  Connected: 3,
  /** Lost the socket or the transport: resuming. */
  Reconnecting: 4,
  Closed: 5,
} as const;
export type VoiceConnectionStatus = (typeof VoiceConnectionStatus)[keyof typeof VoiceConnectionStatus];

/** Why a voice connection ended. */
export interface VoiceConnectionEnd {
  /** The close code (voice gateway) or 0. */
  code: number;
  reason: string;
  /** The session is gone but the call is not: a new token (main Gateway op 4) may join again. */
  rejoinable: boolean;
  /** It never got to Ready. */
  beforeReady: boolean;
  /** The transport could not be opened. */
  transportFailed: boolean;
}

/** Who to connect as (VOICE_STATE_UPDATE + VOICE_SERVER_UPDATE). */
export interface VoiceServerInfo {
  lobbyId: string;
  userId: string;
  sessionId: string;
  token: string;
  /** `host:port/voice`, without a scheme. */
  endpoint: string;
  secure: boolean;
}

export interface VoiceConnectionHost {
  statusChanged(previous: VoiceConnectionStatus, next: VoiceConnectionStatus): void;
  ended(end: VoiceConnectionEnd): void;
  /** op 11 / op 13 / op 5 from others. */
  clientsConnected(userIds: string[]): void;
  clientDisconnected(userId: string): void;
  /** Transports to try for this connection, in order (created fresh per attempt). */
  transports(ready: VoiceReady, events: MediaTransportEvents, endpointUrl: string): MediaTransport[];
}

export interface VoiceConnectionOptions {
  webSocket: VoiceSocketConstructor;
  /** Give up reconnecting after this long without getting back to Connected (default 30 s). */
  reconnectTimeoutMs?: number;
  /** First reconnect delay (default 250 ms; doubles, at most 5 s, with jitter). */
  reconnectBaseDelayMs?: number;
  /** From opening the socket to Connected on the first attempt (default 15 s). */
  connectTimeoutMs?: number;
}

/**
 * One session with the voice gateway (v8, protocols.md 3 and contracts-voice.md 2): Identify,
 * heartbeats with `seq_ack`, Select Protocol and the media transport, Speaking, the DAVE
 * opcodes (through DaveBridge), and a buffered Resume after a cut: the socket comes back with
 * op 7, the server replays what we missed, and a cut transport is reopened. Every status change
 * goes through `transition`.
 */
export class VoiceConnection {
  private current: VoiceConnectionStatus = VoiceConnectionStatus.Idle;
  private socket: VoiceSocketLike | undefined;
  private transport: MediaTransport | undefined;
  private bridge: DaveBridge | undefined;
  private readonly davePending: Promise<DaveSession>;
  private ready: VoiceReady | undefined;
  private description: SessionDescription | undefined;
  /** Last server seq seen (JSON `seq` or binary header), -1 before any. */
  private seq = -1;
  private heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  private awaitingAck = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private deadline: ReturnType<typeof setTimeout> | undefined;
  private attempt = 0;
  private speakingSent = -1;
  /** The socket generation: events of replaced sockets are ignored. */
  private generation = 0;
  private reachedReady = false;
  private reconnectingSince = 0;
  /** The socket is authenticated (Ready or Resumed seen on it). */
  private sessionLive = false;
  /** Gives up on one resume attempt whose socket hangs without an answer. */
  private attemptTimer: ReturnType<typeof setTimeout> | undefined;
  /** Ends the connection when Reconnecting lasts longer than reconnectTimeoutMs. */
  private reconnectDeadline: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly server: VoiceServerInfo,
    private readonly pipeline: MediaPipeline,
    private readonly host: VoiceConnectionHost,
    private readonly logger: Logger,
    private readonly options: VoiceConnectionOptions,
  ) {
    // MLS setup takes a moment: it runs while the socket opens. @social-layer/dave (MLS, ts-mls and
    // its curves, about a third of the client's bytes) is a dynamic import, so a browser bundle built
    // with code splitting loads it as a chunk when the first call starts, not with the game.
    this.davePending = import('@social-layer/dave').then(({ DaveSession }) =>
      DaveSession.create({
        userId: server.userId,
        callId: server.lobbyId,
        protocolVersion: DAVE_PROTOCOL_VERSION,
        core: pipeline.core,
      }),
    );
    this.davePending.catch(() => undefined);
  }

  get status(): VoiceConnectionStatus {
    return this.current;
  }

  get transportKind(): string | undefined {
    return this.transport?.kind;
  }

  get daveReady(): boolean {
    return this.bridge?.ready ?? false;
  }

  /** Test hook: the media transport in use. */
  get mediaTransport(): MediaTransport | undefined {
    return this.transport;
  }

  /** Test hook: the DAVE bridge (settled() waits for queued MLS work). */
  get dave(): DaveBridge | undefined {
    return this.bridge;
  }

  start(): void {
    if (this.current !== VoiceConnectionStatus.Idle) return;
    this.transition(VoiceConnectionStatus.Connecting);
    this.deadline = setTimeout(() => {
      if (this.current !== VoiceConnectionStatus.Connected) this.end(0, 'connect timed out', !this.reachedReady, false, false);
    }, this.options.connectTimeoutMs ?? 15_000);
    this.openSocket(false);
  }

  /** Leaves: closes with 1000, so the server drops our seat at once. */
  close(): void {
    if (this.current === VoiceConnectionStatus.Closed) return;
    const socket = this.socket;
    this.socket = undefined;
    if (socket) {
      socket.onclose = null;
      socket.onmessage = null;
      try {
        socket.close(1000, 'left');
      } catch {
        dropSocket(socket as never, 1000, 'left');
      }
    }
    this.shutdown();
    this.transition(VoiceConnectionStatus.Closed);
  }

  /** op 5 for our SSRC: before the first packet of each talk spurt, and 0 after it. */
  setSpeaking(speaking: boolean): void {
    const flags = speaking ? SpeakingFlags.Microphone : 0;
    if (flags === this.speakingSent || !this.ready) return;
    this.speakingSent = flags;
    this.sendJson(VoiceOpcode.Speaking, { speaking: flags, delay: 0, ssrc: this.ready.ssrc });
  }

  /** Test hook: drops the voice gateway socket as a network failure would. */
  cutSocket(): void {
    const socket = this.socket;
    if (!socket) return;
    const terminate = (socket as { terminate?: () => void }).terminate;
    if (typeof terminate === 'function') terminate.call(socket);
    else socket.close(4000, 'cut');
  }

  // ---- the socket --------------------------------------------------------------------------

  private openSocket(resume: boolean): void {
    const generation = ++this.generation;
    const scheme = this.server.secure ? 'wss:' : 'ws:';
    let socket: VoiceSocketLike;
    try {
      socket = new this.options.webSocket(`${scheme}//${this.server.endpoint}?v=${VOICE_GATEWAY_VERSION}`);
    } catch (error) {
      this.lost(`could not open the voice socket: ${error instanceof Error ? error.message : String(error)}`, 1006);
      return;
    }
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    socket.onopen = () => {
      if (generation !== this.generation) return;
      // Identify (or Resume) at once; the server accepts it before its Hello (protocols.md 3.1).
      if (resume) {
        this.sendJson(VoiceOpcode.Resume, {
          server_id: this.server.lobbyId,
          session_id: this.server.sessionId,
          token: this.server.token,
          seq_ack: this.seq,
        });
      } else {
        this.sendJson(VoiceOpcode.Identify, {
          server_id: this.server.lobbyId,
          user_id: this.server.userId,
          session_id: this.server.sessionId,
          token: this.server.token,
          max_dave_protocol_version: DAVE_PROTOCOL_VERSION,
        });
      }
    };
    socket.onerror = () => {};
    socket.onclose = (event: { code?: number; reason?: string }) => {
      if (generation !== this.generation || this.socket !== socket) return;
      this.socket = undefined;
      this.onSocketClosed(event.code ?? 1006, event.reason ?? '');
    };
    socket.onmessage = (event: { data: unknown }) => {
      if (generation !== this.generation) return;
      try {
        if (typeof event.data === 'string') this.onText(event.data);
        else {
          const bytes = messageBytes(event.data);
          if (bytes) this.onBinary(bytes);
          else this.onText(messageText(event.data));
        }
      } catch (error) {
        this.logger.warn(`voice message handling failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
  }

  private sendJson(op: number, d: unknown): void {
    const socket = this.socket;
    if (socket && socket.readyState === 1) socket.send(JSON.stringify({ op, d }));
  }

  private sendBinary(op: number, body: Uint8Array): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== 1) return;
    const frame = new Uint8Array(1 + body.length);
    frame[0] = op;
    frame.set(body, 1);
    socket.send(frame);
  }

  /** Dedupes replays: true when `seq` was seen already (u16, wrapping). */
  private seen(seq: number): boolean {
    if (this.seq >= 0) {
      const delta = ((seq - this.seq) << 16) >> 16;
      if (delta <= 0) return true;
    }
    this.seq = seq & 0xffff;
    return false;
  }

  private onText(text: string): void {
    const message = JSON.parse(text) as { op: number; d: unknown; seq?: number };
    if (typeof message.seq === 'number' && this.seen(message.seq)) return;
    if (message.op !== VoiceOpcode.HeartbeatAck) this.logger.verbose(`voice op ${message.op}${message.seq !== undefined ? ` (seq ${message.seq})` : ''}`);
    const d = message.d as Record<string, unknown> | null;
    switch (message.op) {
      case VoiceOpcode.Hello:
        this.startHeartbeat(Number((d as { heartbeat_interval?: number } | null)?.heartbeat_interval) || 13_750);
        return;
      case VoiceOpcode.HeartbeatAck:
        this.awaitingAck = false;
        return;
      case VoiceOpcode.Ready:
        void this.onReady(d as unknown as VoiceReady);
        return;
      case VoiceOpcode.SessionDescription:
        void this.onSessionDescription(d as unknown as SessionDescription);
        return;
      case VoiceOpcode.Resumed:
        void this.onResumed();
        return;
      case VoiceOpcode.Speaking: {
        const { ssrc, user_id: userId } = (d ?? {}) as { ssrc?: number; user_id?: string };
        if (typeof ssrc === 'number' && typeof userId === 'string') this.pipeline.mapSsrc(ssrc, userId);
        return;
      }
      case VoiceOpcode.ClientsConnect: {
        const ids = ((d as { user_ids?: string[] } | null)?.user_ids ?? []).filter((id) => typeof id === 'string');
        void this.withDave((bridge) => bridge.onClientsConnect(ids));
        this.host.clientsConnected(ids);
        return;
      }
      case VoiceOpcode.ClientDisconnect: {
        const userId = (d as { user_id?: string } | null)?.user_id;
        if (typeof userId !== 'string') return;
        void this.withDave((bridge) => bridge.onClientDisconnect(userId));
        this.pipeline.removeUser(userId);
        this.host.clientDisconnected(userId);
        return;
      }
      case VoiceOpcode.DavePrepareTransition:
      case VoiceOpcode.DaveExecuteTransition:
      case VoiceOpcode.DavePrepareEpoch:
        void this.withDave((bridge) => bridge.onJson(message.op, d));
        return;
      default:
        this.logger.verbose(`voice op ${message.op} ignored`);
    }
  }

  private onBinary(frame: Uint8Array): void {
    if (frame.length < 3) return;
    const seq = (frame[0]! << 8) | frame[1]!;
    if (this.seen(seq)) return;
    const op = frame[2]!;
    const body = frame.slice(3);
    this.logger.verbose(`voice binary op ${op} (seq ${seq}, ${body.length} bytes)`);
    void this.withDave((bridge) => bridge.onBinary(op, body));
  }

  /** Runs `task` once the DAVE session exists (MLS setup may still be running at Ready). */
  private async withDave(task: (bridge: DaveBridge) => void): Promise<void> {
    if (!this.bridge) {
      const session = await this.davePending;
      this.bridge ??= new DaveBridge(session, this.pipeline.keys, {
        sendJson: (op, d) => this.sendJson(op, d),
        sendBinary: (op, body) => this.sendBinary(op, body),
        log: (message) => this.logger.info(message),
        verbose: (message) => this.logger.verbose(message),
      });
    }
    if (this.current !== VoiceConnectionStatus.Closed) task(this.bridge);
  }

  private startHeartbeat(intervalMs: number): void {
    if (this.heartbeatTimer !== undefined) clearInterval(this.heartbeatTimer);
    this.awaitingAck = false;
    this.heartbeatTimer = setInterval(() => {
      if (this.awaitingAck) {
        this.logger.warn('voice heartbeat not acknowledged: reconnecting');
        const socket = this.socket;
        this.socket = undefined;
        if (socket) dropSocket(socket as never, 4000, 'zombie');
        this.onSocketClosed(1006, 'zombie connection');
        return;
      }
      this.awaitingAck = true;
      this.sendJson(VoiceOpcode.Heartbeat, { t: Date.now(), seq_ack: this.seq });
    }, intervalMs);
  }

  // ---- session setup ---------------------------------------------------------------------

  private async onReady(ready: VoiceReady): Promise<void> {
    if (!Number.isInteger(ready?.ssrc) || ready.ssrc < 0 || ready.ssrc > 0xffffffff || typeof ready.ip !== 'string' || !Number.isInteger(ready.port)) {
      this.end(VoiceCloseCode.BadRequest, 'malformed Ready', false, false, false);
      return;
    }
    this.ready = ready;
    this.reachedReady = true;
    this.sessionLive = true;
    this.pipeline.setSsrc(ready.ssrc);
    this.transition(VoiceConnectionStatus.Signaling);
    void this.withDave(() => {});
    const mode = chooseMode(ready.modes);
    if (!mode) {
      this.end(VoiceCloseCode.UnknownEncryptionMode, 'no supported encryption mode', false, false, true);
      return;
    }
    const scheme = this.server.secure ? 'wss:' : 'ws:';
    const mediaUrl = `${scheme}//${this.server.endpoint.replace(/\/+$/, '')}/media`;
    const events: MediaTransportEvents = {
      packet: (packet) => this.pipeline.receivePacket(packet),
      closed: (reason) => this.onTransportClosed(reason),
    };
    for (const transport of this.host.transports(ready, events, mediaUrl)) {
      if (this.current === VoiceConnectionStatus.Closed) {
        transport.close();
        return;
      }
      try {
        const data = await withTimeout(transport.prepare(ready), 3000, `${transport.kind} transport`);
        this.transport = transport;
        this.sendJson(VoiceOpcode.SelectProtocol, { protocol: transport.kind, data: { ...data, mode } });
        this.logger.info(`voice transport ${transport.kind} selected`);
        return;
      } catch (error) {
        transport.close();
        this.logger.info(`voice transport ${transport.kind} unavailable: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    this.end(0, 'no media transport could be prepared', false, false, true);
  }

  private async onSessionDescription(description: SessionDescription): Promise<void> {
    const transport = this.transport;
    if (!transport) return;
    if (!isTransportMode(description.mode) || !Array.isArray(description.secret_key) || description.secret_key.length !== 32) {
      this.end(VoiceCloseCode.UnknownEncryptionMode, 'bad Session Description', false, false, true);
      return;
    }
    this.description = description;
    this.pipeline.setTransportKey(description.mode as TransportMode, Uint8Array.from(description.secret_key));
    void this.withDave((bridge) => bridge.onSessionDescription());
    try {
      await transport.start(description);
    } catch (error) {
      this.logger.warn(`voice transport failed to open: ${error instanceof Error ? error.message : String(error)}`);
      this.end(0, 'media transport failed to open', false, false, true);
      return;
    }
    this.connected();
  }

  private connected(): void {
    if (this.current === VoiceConnectionStatus.Closed) return;
    this.attempt = 0;
    this.reconnectingSince = 0;
    this.clearReconnectTimers();
    if (this.deadline !== undefined) clearTimeout(this.deadline);
    this.deadline = undefined;
    // Announce our SSRC now (op 5, speaking or not): the relay accepts media only after it, and
    // receivers learn who the SSRC is before the first packet (UDP may overtake the socket).
    this.speakingSent = -1;
    this.pipeline.connected = true;
    this.setSpeaking(this.pipeline.isTalking);
    this.transition(VoiceConnectionStatus.Connected);
  }

  // ---- losing and regaining the connection ---------------------------------------------------

  private onSocketClosed(code: number, reason: string): void {
    if (this.current === VoiceConnectionStatus.Closed) return;
    this.stopHeartbeat();
    this.sessionLive = false;
    this.logger.info(`voice socket closed with ${code}${reason ? ` (${reason})` : ''}`);
    if (!this.reachedReady) {
      // Never authenticated: nothing to resume. A bad token, a refusal or no server at all.
      this.end(code, reason || 'voice gateway closed before Ready', code === VoiceCloseCode.AuthenticationFailed, true, false);
      return;
    }
    if (code === VoiceCloseCode.SessionNoLongerValid || code === VoiceCloseCode.SessionTimeout) {
      this.end(code, reason || 'voice session gone', true, false, false);
      return;
    }
    if (!voiceCloseIsResumable(code)) {
      this.end(code, reason || `voice gateway closed with ${code}`, false, false, false);
      return;
    }
    this.lost(reason || `closed with ${code}`, code);
  }

  private onTransportClosed(reason: string): void {
    if (this.current === VoiceConnectionStatus.Closed) return;
    this.logger.info(`voice transport lost: ${reason}`);
    this.lost(reason, 0);
  }

  /** Something broke: go to Reconnecting and retry (resume the socket, reopen the transport). */
  private lost(reason: string, code: number): void {
    this.pipeline.connected = false;
    if (this.current !== VoiceConnectionStatus.Reconnecting) {
      this.reconnectingSince = Date.now();
      const timeout = this.options.reconnectTimeoutMs ?? 30_000;
      // A watchdog as well as the check below: an attempt may hang without ever failing.
      this.reconnectDeadline = setTimeout(() => this.end(code, `could not reconnect within ${timeout} ms: ${reason}`, false, false, false), timeout);
      this.transition(VoiceConnectionStatus.Reconnecting);
    }
    if (Date.now() - this.reconnectingSince > (this.options.reconnectTimeoutMs ?? 30_000)) {
      this.end(code, `could not reconnect: ${reason}`, false, false, false);
      return;
    }
    if (this.retryTimer !== undefined) return;
    const delay = backoffDelay(this.attempt++, { baseDelayMs: this.options.reconnectBaseDelayMs ?? 250, maxDelayMs: 5000 });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.retry();
    }, delay);
  }

  private async retry(): Promise<void> {
    if (this.current !== VoiceConnectionStatus.Reconnecting) return;
    if (this.sessionLive && this.socket?.readyState === 1) {
      // The socket is fine: only the transport needs reopening.
      await this.reopenTransport();
      return;
    }
    const stale = this.socket;
    this.socket = undefined;
    if (stale) dropSocket(stale as never, 4000, 'retry');
    this.openSocket(true);
    // An attempt that neither fails nor resumes within 5 s is dropped and retried.
    if (this.attemptTimer !== undefined) clearTimeout(this.attemptTimer);
    this.attemptTimer = setTimeout(() => {
      this.attemptTimer = undefined;
      if (this.sessionLive || this.current !== VoiceConnectionStatus.Reconnecting) return;
      const hung = this.socket;
      this.socket = undefined;
      this.generation++;
      if (hung) dropSocket(hung as never, 4000, 'resume timed out');
      this.lost('resume attempt timed out', 1006);
    }, 5000);
  }

  private async onResumed(): Promise<void> {
    // Hello on the new socket restarted heartbeats; the transport may need reopening.
    this.logger.info('voice session resumed');
    this.sessionLive = true;
    if (this.attemptTimer !== undefined) clearTimeout(this.attemptTimer);
    this.attemptTimer = undefined;
    await this.reopenTransport();
  }

  private async reopenTransport(): Promise<void> {
    const transport = this.transport;
    if (!transport || !this.description) {
      this.lost('no transport after resume', 0);
      return;
    }
    if (!transport.open) {
      try {
        await transport.reopen();
      } catch (error) {
        this.lost(`transport did not reopen: ${error instanceof Error ? error.message : String(error)}`, 0);
        return;
      }
    }
    // The socket may have dropped again while the transport reopened.
    if (this.sessionLive && this.current === VoiceConnectionStatus.Reconnecting) this.connected();
  }

  private end(code: number, reason: string, rejoinable: boolean, beforeReady: boolean, transportFailed: boolean): void {
    if (this.current === VoiceConnectionStatus.Closed) return;
    this.logger.info(`voice connection ended: ${reason}`);
    const socket = this.socket;
    this.socket = undefined;
    if (socket) dropSocket(socket as never, 1000, reason);
    this.shutdown();
    this.transition(VoiceConnectionStatus.Closed);
    this.host.ended({ code, reason, rejoinable, beforeReady, transportFailed });
  }

  private shutdown(): void {
    this.generation++;
    this.stopHeartbeat();
    this.clearReconnectTimers();
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    if (this.deadline !== undefined) clearTimeout(this.deadline);
    this.retryTimer = undefined;
    this.deadline = undefined;
    this.pipeline.connected = false;
    this.transport?.close();
    this.transport = undefined;
  }

  private clearReconnectTimers(): void {
    if (this.attemptTimer !== undefined) clearTimeout(this.attemptTimer);
    if (this.reconnectDeadline !== undefined) clearTimeout(this.reconnectDeadline);
    this.attemptTimer = undefined;
    this.reconnectDeadline = undefined;
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer !== undefined) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    this.awaitingAck = false;
  }

  private transition(next: VoiceConnectionStatus): void {
    if (next === this.current) return;
    const previous = this.current;
    this.current = next;
    this.logger.verbose(`voice connection ${previous} -> ${next}`);
    this.host.statusChanged(previous, next);
  }
}

/** AES-256-GCM when offered (fast everywhere), else XChaCha20-Poly1305 (always offered). */
function chooseMode(modes: readonly string[] | undefined): TransportMode | undefined {
  for (const mode of SUPPORTED_TRANSPORT_MODES) if (modes?.includes(mode)) return mode;
  return undefined;
}
