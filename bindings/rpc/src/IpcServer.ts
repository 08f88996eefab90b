import { chmodSync, lstatSync, statSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { RpcCloseCode } from './codes.ts';
import { DEFAULT_LIMITS, IpcConnection, type ConnectionLimits, type RpcHandler } from './IpcConnection.ts';
import { DEFAULT_IPC_NAME, IPC_SLOTS, ipcPath } from './ipcPath.ts';

export interface IpcServerOptions {
  handler: RpcHandler;
  /** `<name>-ipc-N`; default `social-layer`. */
  name?: string;
  /** Where the socket goes (default: from the environment, see ipcDirectory). */
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  limits?: Partial<ConnectionLimits>;
  /** Connections at once; more are closed with the rate-limit code. */
  maxConnections?: number;
}

/**
 * The companion's listening side: the first free `<name>-ipc-N` (N 0-9), a Unix socket with mode
 * 0600 (only the OS user who runs the companion can connect) or a Windows named pipe. A socket
 * file left by a crashed companion (nobody accepts on it) is replaced; one that answers belongs
 * to a live companion and is never touched.
 */
export class IpcServer {
  private server: Server | undefined;
  private boundPath: string | undefined;
  private boundInode: number | undefined;
  private readonly connections = new Set<IpcConnection>();
  private readonly limits: ConnectionLimits;

  constructor(private readonly options: IpcServerOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
  }

  get path(): string | undefined {
    return this.boundPath;
  }

  get clients(): ReadonlySet<IpcConnection> {
    return this.connections;
  }

  /** Listens on the first free slot; resolves with its path. */
  async listen(): Promise<string> {
    const name = this.options.name ?? DEFAULT_IPC_NAME;
    const windows = (this.options.platform ?? process.platform) === 'win32';
    for (let n = 0; n < IPC_SLOTS; n++) {
      const path = ipcPath(name, n, { platform: this.options.platform, env: this.options.env });
      if (!windows && !(await this.claimable(path))) continue;
      const server = this.makeServer();
      const ok = await listenOn(server, path, !windows);
      if (!ok) continue;
      if (!windows) {
        // listen() created the file under a 0077 umask; chmod makes 0600 explicit whatever the umask did.
        chmodSync(path, 0o600);
        this.boundInode = statSync(path).ino;
      }
      this.server = server;
      this.boundPath = path;
      return path;
    }
    throw new Error(`No free IPC slot: ${ipcPath(name, 0, { platform: this.options.platform, env: this.options.env })} to -${IPC_SLOTS - 1} are all in use`);
  }

  /** Closes every client with CLOSE 1000, stops listening, and removes our socket file. */
  async close(): Promise<void> {
    for (const c of this.connections) c.close(RpcCloseCode.Normal, 'The companion is shutting down');
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    this.removeSocketFile();
  }

  /** Removes the socket file this server made, if it is still ours; synchronous, safe to repeat. */
  removeSocketFile(): void {
    const path = this.boundPath;
    if (path && this.boundInode !== undefined) {
      // Only the file we made: a newer companion may have replaced it after we were stopped.
      try {
        if (statSync(path).ino === this.boundInode) unlinkSync(path);
      } catch {
        // already gone
      }
    }
  }

  private makeServer(): Server {
    const server = createServer((socket: Socket) => {
      if (this.connections.size >= (this.options.maxConnections ?? 64)) {
        const c = new IpcConnection(socket, { handshake: async () => null, command: async () => null, closed: () => {} }, this.limits);
        return c.close(RpcCloseCode.RateLimited, 'Too many connections');
      }
      const conn = new IpcConnection(socket, this.options.handler, this.limits);
      this.connections.add(conn);
      conn.onClose(() => this.connections.delete(conn));
    });
    server.on('error', () => {});
    return server;
  }

  /** True when the path is free, or holds a stale socket that we removed. */
  private async claimable(path: string): Promise<boolean> {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      return true;
    }
    // Only sockets are ours to judge; any other file at that path is left alone.
    if (!st.isSocket()) return false;
    if (await answers(path)) return false;
    try {
      unlinkSync(path);
      return true;
    } catch {
      return false;
    }
  }
}

/** Whether something accepts connections on the socket (a live companion or Discord itself). */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    const done = (alive: boolean) => {
      probe.destroy();
      resolve(alive);
    };
    probe.once('connect', () => done(true));
    probe.once('error', () => done(false));
    setTimeout(() => done(false), 1000).unref();
  });
}

function listenOn(server: Server, path: string, restrictMode: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const onError = () => resolve(false);
    server.once('error', onError);
    // The socket file is created inside listen(); a 0077 umask keeps it private from its first instant.
    let previous: number | undefined;
    try {
      if (restrictMode) previous = process.umask(0o077);
    } catch {
      // Worker threads may not change the umask; the chmod right after listening still applies.
    }
    try {
      server.listen(path, () => {
        server.off('error', onError);
        resolve(true);
      });
    } finally {
      if (previous !== undefined) process.umask(previous);
    }
  });
}
