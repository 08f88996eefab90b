import { join } from 'node:path';

/** The companion's default IPC name; `discord` makes unmodified public RPC clients find it. */
export const DEFAULT_IPC_NAME = 'social-layer';
/** Sockets `<name>-ipc-0` .. `<name>-ipc-9`, as the official C library tries them. */
export const IPC_SLOTS = 10;

/**
 * The directory of the Unix sockets: the first set (non-empty) of XDG_RUNTIME_DIR, TMPDIR, TMP,
 * TEMP, else /tmp. Only that one is used, as the public clients do; they do not try each in turn.
 */
export function ipcDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const { XDG_RUNTIME_DIR, TMPDIR, TMP, TEMP } = env;
  return (XDG_RUNTIME_DIR || TMPDIR || TMP || TEMP || '/tmp').replace(/\/+$/, '') || '/';
}

/** The socket (or Windows named pipe) path of slot `n`. */
export function ipcPath(name: string, n: number, options: { platform?: NodeJS.Platform; env?: NodeJS.ProcessEnv } = {}): string {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) throw new Error(`Invalid IPC name: ${JSON.stringify(name)}`);
  if ((options.platform ?? process.platform) === 'win32') return `\\\\?\\pipe\\${name}-ipc-${n}`;
  return join(ipcDirectory(options.env), `${name}-ipc-${n}`);
}
