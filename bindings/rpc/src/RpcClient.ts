import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { IpcOpcode, RPC_VERSION, RpcEvent } from './codes.ts';
import { RpcError, type RpcMessage } from './envelope.ts';
import { encodeFrame, FrameDecoder, FrameError } from './frames.ts';
import { DEFAULT_IPC_NAME, IPC_SLOTS, ipcPath } from './ipcPath.ts';

export interface RpcClientOptions {
  clientId: string;
  /** `<name>-ipc-N`; default `social-layer`. */
  name?: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** A socket path to use instead of searching slots 0-9. */
  path?: string;
  /** READY must arrive within this (default 10000 ms, as the public clients wait). */
  readyTimeoutMs?: number;
  /** A command's response must arrive within this (default 60000 ms). */
  requestTimeoutMs?: number;
}

export interface CloseInfo {
  code: number;
  message: string;
}

type Listener = (data: any) => void;

/** Whether a companion socket (or, on Windows, named pipe) exists in slot 0-9 of `name`. */
export function companionSocketExists(options: { name?: string; env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform } = {}): boolean {
  if ((options.platform ?? process.platform) === 'win32') {
    // Named pipes are listed as the entries of \\.\pipe\.
    try {
      const pipes = new Set(readdirSync('\\\\.\\pipe\\'));
      return Array.from({ length: IPC_SLOTS }, (_, n) => `${options.name ?? DEFAULT_IPC_NAME}-ipc-${n}`).some((p) => pipes.has(p));
    } catch {
      return false;
    }
  }
  for (let n = 0; n < IPC_SLOTS; n++) if (existsSync(ipcPath(options.name ?? DEFAULT_IPC_NAME, n, options))) return true;
  return false;
}

/**
 * A Node client of the local RPC transport: connects to the first companion socket that
 * answers, handshakes, resolves `connect()` with READY's data, and matches responses to
 * requests by nonce. Events arrive through `on(evt, listener)`; `on('close', ...)` gets the
 * CLOSE frame's `{code, message}` (or code 0 when the socket just ended).
 */
export class RpcClient {
  private socket: Socket | undefined;
  private readonly decoder = new FrameDecoder();
  private readonly pending = new Map<string, { resolve(data: any): void; reject(err: Error): void; timer: ReturnType<typeof setTimeout> }>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private closeInfo: CloseInfo | undefined;
  ready: any;

  constructor(private readonly options: RpcClientOptions) {}

  get closed(): CloseInfo | undefined {
    return this.closeInfo;
  }

  on(evt: string, listener: Listener): () => void {
    let set = this.listeners.get(evt);
    if (!set) this.listeners.set(evt, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Waits for the next `evt` event whose data passes `filter`. */
  next(evt: string, filter: (data: any) => boolean = () => true, timeoutMs = 10_000): Promise<any> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`timed out waiting for ${evt}`));
      }, timeoutMs);
      const off = this.on(evt, (data) => {
        if (!filter(data)) return;
        clearTimeout(timer);
        off();
        resolve(data);
      });
    });
  }

  /** Connects and handshakes; resolves with READY's data, rejects with the CLOSE that refused it. */
  async connect(): Promise<any> {
    this.socket = await this.open();
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('close', () => this.ended({ code: 0, message: 'Socket closed' }));
    this.socket.on('error', () => {});
    const ready = new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('READY did not arrive')), this.options.readyTimeoutMs ?? 10_000);
      const offReady = this.on(RpcEvent.Ready, (data) => {
        clearTimeout(timer);
        offClose();
        offReady();
        resolve(data);
      });
      const offClose = this.on('close', (info: CloseInfo) => {
        clearTimeout(timer);
        offClose();
        offReady();
        reject(new RpcError(info.code, info.message));
      });
    });
    this.send(IpcOpcode.Handshake, { v: RPC_VERSION, client_id: this.options.clientId });
    this.ready = await ready;
    return this.ready;
  }

  /** Sends a command; resolves with the response's `data`, rejects with RpcError on `evt: "ERROR"`. */
  request(cmd: string, args?: Record<string, unknown>, evt?: string): Promise<any> {
    if (!this.socket || this.closeInfo) return Promise.reject(new Error('not connected'));
    const nonce = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(nonce);
        reject(new Error(`${cmd} timed out`));
      }, this.options.requestTimeoutMs ?? 60_000);
      this.pending.set(nonce, { resolve, reject, timer });
      this.send(IpcOpcode.Frame, { cmd, args: args ?? {}, evt, nonce });
    });
  }

  /** A raw frame (tests of the server's framing). */
  send(op: number, data: unknown): void {
    this.socket?.write(encodeFrame(op, data));
  }

  /** Sends CLOSE and ends the socket; resolves once it is closed. */
  async close(): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.destroyed) return;
    const done = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    this.send(IpcOpcode.Close, {});
    socket.end();
    setTimeout(() => socket.destroy(), 1000).unref();
    await done;
  }

  private async open(): Promise<Socket> {
    const paths = this.options.path
      ? [this.options.path]
      : Array.from({ length: IPC_SLOTS }, (_, n) => ipcPath(this.options.name ?? DEFAULT_IPC_NAME, n, this.options));
    for (const path of paths) {
      const socket = await new Promise<Socket | undefined>((resolve) => {
        const s = createConnection(path);
        s.once('connect', () => resolve(s));
        s.once('error', () => resolve(undefined));
      });
      if (socket) return socket;
    }
    throw new Error('No companion is listening (is `social-layer companion` running?)');
  }

  private onData(chunk: Buffer): void {
    let frames;
    try {
      frames = this.decoder.push(chunk);
    } catch (err) {
      if (err instanceof FrameError) this.socket?.destroy();
      return;
    }
    for (const { op, data } of frames) {
      if (op === IpcOpcode.Ping) this.send(IpcOpcode.Pong, data ?? null);
      else if (op === IpcOpcode.Pong) this.emit('pong', data);
      else if (op === IpcOpcode.Close) {
        const d = (data ?? {}) as { code?: number; message?: string };
        this.ended({ code: typeof d.code === 'number' ? d.code : 0, message: String(d.message ?? '') });
      } else if (op === IpcOpcode.Frame) this.onMessage(data as RpcMessage);
    }
  }

  private onMessage(message: RpcMessage): void {
    if (!message || typeof message !== 'object') return;
    const waiter = message.nonce ? this.pending.get(message.nonce) : undefined;
    if (waiter && message.cmd !== 'DISPATCH') {
      this.pending.delete(message.nonce!);
      clearTimeout(waiter.timer);
      const data = message.data as { code?: number; message?: string } | undefined;
      if (message.evt === RpcEvent.Error) waiter.reject(new RpcError(data?.code ?? 0, data?.message ?? ''));
      else waiter.resolve(message.data);
      return;
    }
    if (message.cmd === 'DISPATCH' && message.evt) this.emit(message.evt, message.data);
  }

  private emit(evt: string, data: unknown): void {
    for (const l of [...(this.listeners.get(evt) ?? [])]) l(data);
  }

  private ended(info: CloseInfo): void {
    if (this.closeInfo) return;
    this.closeInfo = info;
    for (const [, w] of this.pending) {
      clearTimeout(w.timer);
      w.reject(new RpcError(info.code, info.message || 'Connection closed'));
    }
    this.pending.clear();
    this.emit('close', info);
    this.socket?.destroy();
  }
}
