import {
  ClientError,
  ClientStatus,
  DispatchEvent,
  ErrorType,
  FATAL_CLOSE_CODES,
  GATEWAY_VERSION,
  GatewayCloseCode,
  GatewayOpcode,
  NEW_SESSION_CLOSE_CODES,
  type GatewayPayload,
  type IdentifyData,
  type ReadyData,
  type ResumeData,
} from '@social-layer/protocol';
import { backoffDelay, type BackoffOptions } from './backoff.ts';
import { ClientResultError } from './ClientResultError.ts';
import { GatewaySocket } from './GatewaySocket.ts';
import type { Logger } from './Logger.ts';
import type { WebSocketConstructor } from './webSocket.ts';

/** What the session needs from its owner (the Client). */
export interface GatewaySessionHost {
  token(): string | undefined;
  /** The Gateway URL from `GET /gateway`, without a query string. */
  gatewayUrl(): Promise<string>;
  webSocket(): Promise<WebSocketConstructor>;
  /** Every dispatch, in sequence order and at most once per session (READY and RESUMED too). */
  dispatch(event: string, data: unknown): void;
  /** The one place status changes are announced. */
  statusChanged(status: ClientStatus, error: ClientError, errorDetail: number): void;
  readonly logger: Logger;
}

export interface GatewaySessionOptions {
  backoff: BackoffOptions;
  /** From opening a socket to READY/RESUMED; past it the attempt is abandoned (watchdog). */
  handshakeTimeoutMs: number;
}

/** Close code we use when we drop a socket intending to resume (as @discordjs/ws does). */
const RESUME_CLOSE_CODE = 4200;
/** Attempts at resume_gateway_url before resuming through the main Gateway URL instead. */
const RESUME_URL_ATTEMPTS = 3;

interface Waiter {
  resolve(): void;
  reject(error: ClientResultError): void;
}

/**
 * The Gateway session and Client::Status state machine: connect, Identify or Resume, heartbeats
 * (through GatewaySocket), automatic reconnect with backoff, and disconnect. All status changes
 * go through `transition`, the single point that tells the host.
 */
export class GatewaySession {
  private current: ClientStatus = ClientStatus.Disconnected;
  private socket: GatewaySocket | undefined;
  private sessionId: string | null = null;
  private resumeUrl: string | null = null;
  private seq: number | null = null;
  /** Failed attempts since the last Ready; drives the backoff. */
  private attempt = 0;
  private resumeUrlFailures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private handshakeTimer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped whenever in-flight async work (a pending open) must be abandoned. */
  private generation = 0;
  private readyWaiters: Waiter[] = [];
  private disconnectWaiters: (() => void)[] = [];
  private connectAfterDisconnect = false;

  constructor(
    private readonly host: GatewaySessionHost,
    private readonly options: GatewaySessionOptions,
  ) {}

  get status(): ClientStatus {
    return this.current;
  }

  /** Sends a command (op 4 voice state updates) on the live socket; false when there is none. */
  send(op: number, d: unknown): boolean {
    if (!this.socket || (this.current !== ClientStatus.Ready && this.current !== ClientStatus.Connected)) return false;
    this.socket.send(op, d);
    return true;
  }

  /** Resolves at Ready; rejects when the attempt ends in Disconnected. */
  connect(): Promise<void> {
    if (this.current === ClientStatus.Ready) return Promise.resolve();
    const ready = new Promise<void>((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
    if (this.current === ClientStatus.Disconnected) this.start();
    else if (this.current === ClientStatus.Disconnecting) this.connectAfterDisconnect = true;
    return ready;
  }

  /** Closes with 1000 (which ends the session on the server) and resolves at Disconnected. */
  disconnect(): Promise<void> {
    if (this.current === ClientStatus.Disconnected) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.disconnectWaiters.push(resolve));
    if (this.current === ClientStatus.Disconnecting) return done;

    this.connectAfterDisconnect = false;
    this.generation++;
    this.clearTimers();
    this.transition(ClientStatus.Disconnecting);
    this.rejectWaiters(new ClientResultError({ type: ErrorType.Aborted, error: 'disconnect() was called' }));
    const socket = this.socket;
    this.socket = undefined;
    this.forgetSession();
    const closed = socket ? socket.closeAndWait(1000, 'client disconnect', 2000) : Promise.resolve();
    void closed.then(() => {
      this.transition(ClientStatus.Disconnected);
      for (const resolve of this.disconnectWaiters.splice(0)) resolve();
      if (this.connectAfterDisconnect) {
        this.connectAfterDisconnect = false;
        this.start();
      }
    });
    return done;
  }

  private start(): void {
    if (!this.host.token()) {
      this.rejectWaiters(ClientResultError.validation('no token: call updateToken() before connect()'));
      return;
    }
    this.attempt = 0;
    this.transition(ClientStatus.Connecting);
    void this.open();
  }

  private transition(status: ClientStatus, error: ClientError = ClientError.None, errorDetail = 0): void {
    if (status === this.current) return;
    const previous = this.current;
    this.current = status;
    this.host.logger.info(`status ${previous} -> ${status} (error ${error}, detail ${errorDetail})`);
    this.host.statusChanged(status, error, errorDetail);
  }

  private async open(): Promise<void> {
    const generation = ++this.generation;
    const resuming = this.sessionId !== null;
    let url: string;
    let Ctor: WebSocketConstructor;
    try {
      Ctor = await this.host.webSocket();
      url =
        resuming && this.resumeUrl && this.resumeUrlFailures < RESUME_URL_ATTEMPTS
          ? this.resumeUrl
          : await this.host.gatewayUrl();
      url = withGatewayQuery(url);
    } catch (error) {
      if (generation !== this.generation) return;
      this.attemptFailed(0, asResultError(error, 'could not find the Gateway'));
      return;
    }
    if (generation !== this.generation) return;

    this.host.logger.verbose(`opening gateway socket (${resuming ? 'resume' : 'identify'})`);
    try {
      this.socket = new GatewaySocket(
        Ctor,
        url,
        {
          hello: () => this.onHello(),
          dispatch: (payload) => this.onDispatch(payload),
          invalidSession: (resumable) => this.onInvalidSession(resumable),
          reconnectRequested: () => this.dropAndRetry('server requested a reconnect', 0),
          zombie: () => this.dropAndRetry('zombie connection', 0),
          closed: (code, reason) => this.onClosed(code, reason),
        },
        () => this.seq,
        this.host.logger,
      );
    } catch (error) {
      this.attemptFailed(0, asResultError(error, 'could not open the Gateway socket'));
      return;
    }
    this.handshakeTimer = setTimeout(() => {
      this.handshakeTimer = undefined;
      this.host.logger.warn(`no READY/RESUMED within ${this.options.handshakeTimeoutMs} ms`);
      this.socket?.drop(RESUME_CLOSE_CODE);
      this.onClosed(GatewayCloseCode.UnknownError, 'handshake timed out');
    }, this.options.handshakeTimeoutMs);
  }

  private onHello(): void {
    const token = this.host.token();
    if (!token) {
      this.fail(ClientError.UnexpectedClose, 0, ClientResultError.validation('the token was removed'));
      return;
    }
    if (this.sessionId !== null) {
      const resume: ResumeData = { token, session_id: this.sessionId, seq: this.seq ?? 0 };
      this.socket?.send(GatewayOpcode.Resume, resume);
    } else {
      // A fresh session numbers its dispatches from scratch.
      this.seq = null;
      const identify: IdentifyData = {
        token,
        properties: { os: platformName(), browser: '@social-layer/client', device: '@social-layer/client' },
        intents: 0,
      };
      this.socket?.send(GatewayOpcode.Identify, identify);
    }
    if (this.current === ClientStatus.Connecting) this.transition(ClientStatus.Connected);
  }

  private onDispatch(payload: GatewayPayload): void {
    const event = payload.t ?? '';
    if (typeof payload.s === 'number') {
      // Exactly once: a replay that overlaps what we already saw is dropped here.
      if (event !== DispatchEvent.Ready && this.seq !== null && payload.s <= this.seq) {
        this.host.logger.verbose(`dropping duplicate dispatch ${event} s=${payload.s}`);
        return;
      }
      this.seq = payload.s;
    }
    this.host.logger.verbose(`dispatch ${event} s=${payload.s ?? '-'}`);
    if (event === DispatchEvent.Ready) {
      const ready = payload.d as ReadyData;
      this.sessionId = ready.session_id;
      this.resumeUrl = ready.resume_gateway_url || null;
    }
    try {
      this.host.dispatch(event, payload.d);
    } catch (error) {
      this.host.logger.error(`handling ${event} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (event === DispatchEvent.Ready || event === DispatchEvent.Resumed) this.becomeReady();
  }

  private becomeReady(): void {
    if (this.handshakeTimer !== undefined) clearTimeout(this.handshakeTimer);
    this.handshakeTimer = undefined;
    this.attempt = 0;
    this.resumeUrlFailures = 0;
    this.transition(ClientStatus.Ready);
    for (const waiter of this.readyWaiters.splice(0)) waiter.resolve();
  }

  private onInvalidSession(resumable: boolean): void {
    this.host.logger.info(`invalid session (resumable: ${resumable})`);
    if (!resumable) this.forgetSession();
    // Resumable or not, start over on a new socket after a backoff delay; the session fields
    // decide between Resume and Identify.
    const socket = this.socket;
    this.socket = undefined;
    socket?.close(resumable ? RESUME_CLOSE_CODE : 1000, 'invalid session');
    this.scheduleRetry(ClientError.UnexpectedClose, 0);
  }

  private dropAndRetry(reason: string, detail: number): void {
    this.host.logger.info(`reconnecting: ${reason}`);
    const socket = this.socket;
    this.socket = undefined;
    socket?.drop(RESUME_CLOSE_CODE, reason);
    this.scheduleRetry(ClientError.UnexpectedClose, detail);
  }

  private onClosed(code: number, reason: string): void {
    this.socket = undefined;
    this.host.logger.info(`gateway closed with ${code}${reason ? ` (${reason})` : ''}`);
    if (FATAL_CLOSE_CODES.has(code)) {
      const type = code === GatewayCloseCode.AuthenticationFailed ? ErrorType.AuthorizationFailed : ErrorType.NetworkError;
      this.fail(
        ClientError.UnexpectedClose,
        code,
        new ClientResultError({ type, error: `Gateway closed with ${code}${reason ? `: ${reason}` : ''}`, errorCode: code }),
      );
      return;
    }
    if (NEW_SESSION_CLOSE_CODES.has(code)) this.forgetSession();
    this.attemptFailed(
      code,
      new ClientResultError({ type: ErrorType.NetworkError, error: `Gateway closed with ${code}`, errorCode: code, retryable: true }),
    );
  }

  /** A first attempt that never got Hello fails connect(); anything later is retried. */
  private attemptFailed(code: number, error: ClientResultError): void {
    if (this.current === ClientStatus.Connecting) {
      this.fail(ClientError.ConnectionFailed, code, error);
      return;
    }
    if (this.sessionId !== null) this.resumeUrlFailures++;
    this.scheduleRetry(ClientError.UnexpectedClose, code);
  }

  private scheduleRetry(error: ClientError, detail: number): void {
    this.clearTimers();
    this.generation++;
    this.transition(ClientStatus.Reconnecting, error, detail);
    const delay = backoffDelay(this.attempt++, this.options.backoff);
    this.host.logger.verbose(`reconnect attempt ${this.attempt} in ${delay} ms`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.open();
    }, delay);
  }

  /** Ends in Disconnected without retrying; connect() callers get `result`. */
  private fail(error: ClientError, detail: number, result: ClientResultError): void {
    this.generation++;
    this.clearTimers();
    const socket = this.socket;
    this.socket = undefined;
    socket?.close(1000);
    this.forgetSession();
    this.transition(ClientStatus.Disconnected, error, detail);
    this.rejectWaiters(result);
  }

  private forgetSession(): void {
    this.sessionId = null;
    this.resumeUrl = null;
    this.seq = null;
    this.resumeUrlFailures = 0;
  }

  private clearTimers(): void {
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    if (this.handshakeTimer !== undefined) clearTimeout(this.handshakeTimer);
    this.retryTimer = undefined;
    this.handshakeTimer = undefined;
  }

  private rejectWaiters(error: ClientResultError): void {
    for (const waiter of this.readyWaiters.splice(0)) waiter.reject(error);
  }
}

/** `?v=10&encoding=json`, set on whatever URL the server gave (it should carry no query). */
function withGatewayQuery(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('v', String(GATEWAY_VERSION));
  parsed.searchParams.set('encoding', 'json');
  return parsed.toString();
}

function platformName(): string {
  const nodeProcess = (globalThis as { process?: { platform?: string; versions?: { node?: string } } }).process;
  if (nodeProcess?.versions?.node) return nodeProcess.platform ?? 'node';
  return 'browser';
}

function asResultError(error: unknown, fallback: string): ClientResultError {
  if (error instanceof ClientResultError) return error;
  return new ClientResultError({
    type: ErrorType.NetworkError,
    error: `${fallback}: ${error instanceof Error ? error.message : String(error)}`,
    retryable: true,
  });
}
