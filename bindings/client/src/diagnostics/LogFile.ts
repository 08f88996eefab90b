import { LoggingSeverity } from '@social-layer/protocol';
import { ClientResultError } from '../ClientResultError.ts';
import type { Logger } from '../Logger.ts';

type Fs = {
  mkdirSync(path: string, options: { recursive: true }): void;
  openSync(path: string, flags: string, mode?: number): number;
  writeSync(fd: number, text: string): number;
  closeSync(fd: number): void;
};
type Path = { join(...parts: string[]): string; resolve(...parts: string[]): string };

/** node:fs and node:path when running in Node; undefined in browsers (no bundler shims needed). */
export function nodeFs(): { fs: Fs; path: Path } | undefined {
  const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  if (typeof getBuiltin !== 'function') return undefined;
  return { fs: getBuiltin('node:fs') as Fs, path: getBuiltin('node:path') as Path };
}

/** Checks the (path, minSeverity) pair of setLogDir / setVoiceLogDir. */
export function checkLogDirArgs(method: string, path: unknown, minSeverity: unknown): void {
  if (typeof path !== 'string') throw ClientResultError.validation(`${method}: path must be a string (empty: the working directory)`);
  if (path.includes('\0')) throw ClientResultError.validation(`${method}: path must not contain NUL`);
  if (!Object.values(LoggingSeverity).includes(minSeverity as LoggingSeverity)) {
    throw ClientResultError.validation(`${method}: minSeverity must be a LoggingSeverity (Verbose=1 ... None=5)`);
  }
  if (!nodeFs()) {
    throw ClientResultError.validation(`${method}: a browser has no file system to write logs to; use addLogCallback (or addVoiceLogCallback) instead`);
  }
}

/**
 * One log file of setLogDir (social-sdk-api.md 8.1): `<dir>/<name>`, overwritten when opened,
 * one line per entry written synchronously so a crash loses nothing. The lines come from a
 * Logger, so they are already filtered for tokens and by the build's severity rule.
 */
export class LogFile {
  private fd: number | undefined;
  private detach: (() => void) | undefined;

  /** Opens `<dir>/<name>` and subscribes it to `logger`; returns false when the file cannot be opened. */
  open(logger: Logger, dir: string, name: string, minSeverity: LoggingSeverity): boolean {
    this.close();
    if (minSeverity === LoggingSeverity.None) return true;
    const node = nodeFs();
    if (!node) return false;
    try {
      const directory = node.path.resolve(dir || '.');
      node.fs.mkdirSync(directory, { recursive: true });
      this.fd = node.fs.openSync(node.path.join(directory, name), 'w', 0o600);
    } catch {
      return false;
    }
    const fd = this.fd;
    this.detach = logger.add((message, severity) => {
      try {
        node.fs.writeSync(fd, `${new Date().toISOString()} ${SEVERITY_NAMES[severity] ?? severity} ${message}\n`);
      } catch {
        // A full disk must not break the client.
      }
    }, minSeverity);
    return true;
  }

  close(): void {
    this.detach?.();
    this.detach = undefined;
    if (this.fd !== undefined) nodeFs()?.fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

const SEVERITY_NAMES: Record<number, string> = {
  [LoggingSeverity.Verbose]: 'VERBOSE',
  [LoggingSeverity.Info]: 'INFO',
  [LoggingSeverity.Warning]: 'WARNING',
  [LoggingSeverity.Error]: 'ERROR',
};
