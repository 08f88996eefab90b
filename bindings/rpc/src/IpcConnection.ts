import type { Socket } from 'node:net';
import { IpcOpcode, RPC_VERSION, RpcCloseCode, RpcErrorCode } from './codes.ts';
import { parseRequest, RpcCloseError, RpcError, type RpcRequest } from './envelope.ts';
import { encodeFrame, FrameDecoder, FrameError, type Frame } from './frames.ts';

/** What the IPC server asks of the application behind it (the companion). */
export interface RpcHandler {
  /** A valid HANDSHAKE: returns the READY event's data, or throws RpcCloseError to refuse. */
  handshake(conn: IpcConnection, clientId: string): Promise<unknown>;
  /** A command after READY: returns the response's `data`, or throws RpcError. */
  command(conn: IpcConnection, request: RpcRequest): Promise<unknown>;
  /** The connection ended (either side, any reason); called once, after a handshake or not. */
  closed(conn: IpcConnection): void;
}

export interface ConnectionLimits {
  /** Frames a client may send at once (bucket size). */
  burst: number;
  /** Frames per second the bucket refills with. */
  perSecond: number;
  /** Close a client that has not sent a valid HANDSHAKE by then. */
  handshakeTimeoutMs: number;
  /** Least time between two frames we write (see README: discord-rpc 4 reads one frame per chunk). */
  frameGapMs: number;
}

export const DEFAULT_LIMITS: ConnectionLimits = { burst: 60, perSecond: 30, handshakeTimeoutMs: 10_000, frameGapMs: 20 };

/** Frames waiting for their turn beyond this: the client does not keep up; it is closed. */
const MAX_QUEUED_FRAMES = 512;

type State = 'handshake' | 'opening' | 'ready' | 'closed';

let nextId = 1;

/**
 * One local client on the socket: framing, the handshake, PING/PONG, the flood limit, and
 * commands with the public envelope. Frame-level errors close only this connection.
 */
export class IpcConnection {
  readonly id = nextId++;
  clientId: string | undefined;
  /** Per-connection state the handler keeps (authentication, subscriptions). */
  readonly meta = new Map<string, unknown>();
  private state: State = 'handshake';
  private readonly decoder = new FrameDecoder();
  private tokens: number;
  private lastRefill = Date.now();
  private readonly outQueue: Buffer[] = [];
  private lastWrite = 0;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private handshakeTimer: ReturnType<typeof setTimeout> | undefined;
  private closing = false;
  private readonly early: unknown[] = [];
  private readonly closeListeners: (() => void)[] = [];
  /** How it ended, for tests and logs. */
  closeCode: number | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly handler: RpcHandler,
    private readonly limits: ConnectionLimits,
  ) {
    this.tokens = limits.burst;
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => this.finish());
    socket.on('close', () => this.finish());
    this.handshakeTimer = setTimeout(() => this.close(RpcCloseCode.InvalidEncoding, 'No handshake'), limits.handshakeTimeoutMs);
  }

  get isOpen(): boolean {
    return this.state !== 'closed' && !this.closing;
  }

  get isReady(): boolean {
    return this.state === 'ready' && !this.closing;
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** An event to this client: `{cmd: "DISPATCH", evt, data}`. */
  dispatch(evt: string, data: unknown): void {
    if (this.isReady) this.write(IpcOpcode.Frame, { cmd: 'DISPATCH', evt, data, nonce: null });
  }

  /** Sends what is queued and CLOSE `{code, message}`, then ends the socket. */
  close(code: number, message: string): void {
    if (!this.isOpen) return;
    this.closeCode = code;
    this.closing = true;
    // No pacing at the end: what is queued goes out now (one write per frame), then CLOSE.
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    for (const frame of this.outQueue.splice(0)) this.socket.write(frame);
    this.socket.write(encodeFrame(IpcOpcode.Close, { code, message }));
    this.socket.end();
    // A client that never reads must not hold the socket open.
    setTimeout(() => this.socket.destroy(), 2000).unref();
  }

  private onData(chunk: Buffer): void {
    if (!this.isOpen) return;
    let frames: Frame[];
    try {
      frames = this.decoder.push(chunk);
    } catch (err) {
      if (err instanceof FrameError) return this.close(err.code, err.message);
      throw err;
    }
    for (const frame of frames) {
      if (!this.isOpen) return;
      // Frames count, not chunks: a frame split into many writes costs one.
      if (!this.takeToken()) return this.close(RpcCloseCode.RateLimited, 'You are being rate limited');
      this.onFrame(frame);
    }
  }

  private takeToken(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.limits.burst, this.tokens + ((now - this.lastRefill) / 1000) * this.limits.perSecond);
    this.lastRefill = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  private onFrame(frame: Frame): void {
    switch (frame.op) {
      case IpcOpcode.Ping:
        return this.write(IpcOpcode.Pong, frame.data ?? null);
      case IpcOpcode.Pong:
        return;
      case IpcOpcode.Close:
        // The client is leaving: answer in kind and end.
        return this.close(RpcCloseCode.Normal, 'Closed by client');
      case IpcOpcode.Handshake:
        if (this.state !== 'handshake') return this.close(RpcCloseCode.InvalidEncoding, 'Already handshaken');
        return this.onHandshake(frame.data);
      case IpcOpcode.Frame:
        // Commands sent right behind the handshake wait for READY (the flood limit bounds them).
        if (this.state === 'opening') return void this.early.push(frame.data);
        if (this.state !== 'ready') return this.close(RpcCloseCode.InvalidEncoding, 'Handshake first');
        return void this.onCommand(frame.data);
    }
  }

  private onHandshake(data: unknown): void {
    const o = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
    // Some clients send v as a string ("1"); the value is what matters.
    if (Number(o.v) !== RPC_VERSION) return this.close(RpcCloseCode.InvalidVersion, 'Invalid Version');
    const clientId = typeof o.client_id === 'number' ? String(o.client_id) : o.client_id;
    if (typeof clientId !== 'string' || !/^\d{1,20}$/.test(clientId)) return this.close(RpcCloseCode.InvalidClientId, 'Invalid Client ID');
    this.state = 'opening';
    this.clientId = clientId;
    this.handler.handshake(this, clientId).then(
      (ready) => {
        if (this.state !== 'opening') return;
        clearTimeout(this.handshakeTimer);
        this.state = 'ready';
        this.dispatch('READY', ready);
        for (const data of this.early.splice(0)) void this.onCommand(data);
      },
      (err: unknown) => {
        if (err instanceof RpcCloseError) this.close(err.code, err.message);
        else this.close(RpcCloseCode.InvalidClientId, 'Could not open a session for this application');
      },
    );
  }

  private async onCommand(data: unknown): Promise<void> {
    let request: RpcRequest | undefined;
    try {
      request = parseRequest(data);
      const result = await this.handler.command(this, request);
      if (this.isOpen) this.write(IpcOpcode.Frame, { cmd: request.cmd, nonce: request.nonce, evt: null, data: result ?? null });
    } catch (err) {
      const o = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
      const error = err instanceof RpcError ? err : new RpcError(RpcErrorCode.UnknownError, 'Unknown error');
      if (this.isOpen) {
        this.write(IpcOpcode.Frame, {
          cmd: request?.cmd ?? (typeof o.cmd === 'string' ? o.cmd.slice(0, 64) : null),
          nonce: request?.nonce ?? (typeof o.nonce === 'string' ? o.nonce.slice(0, 128) : null),
          evt: 'ERROR',
          data: { code: error.code, message: error.message },
        });
      }
    }
  }

  private write(op: number, data: unknown): void {
    if (this.state === 'closed' || this.closing) return;
    if (this.outQueue.length >= MAX_QUEUED_FRAMES) {
      this.outQueue.length = 0;
      return this.close(RpcCloseCode.RateLimited, 'Too many frames waiting to be sent');
    }
    this.outQueue.push(encodeFrame(op, data));
    this.flush();
  }

  /** Writes queued frames one per write, at least frameGapMs apart. */
  private flush(): void {
    if (this.flushTimer || this.state === 'closed') return;
    const wait = this.lastWrite + this.limits.frameGapMs - Date.now();
    if (wait > 0 && this.outQueue.length > 0) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        this.flush();
      }, wait);
      return;
    }
    const frame = this.outQueue.shift();
    if (frame) {
      this.socket.write(frame);
      this.lastWrite = Date.now();
    }
    if (this.outQueue.length > 0) this.flush();
  }

  private finish(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    clearTimeout(this.handshakeTimer);
    clearTimeout(this.flushTimer);
    this.outQueue.length = 0;
    this.socket.destroy();
    this.handler.closed(this);
    for (const l of this.closeListeners.splice(0)) l();
  }
}
