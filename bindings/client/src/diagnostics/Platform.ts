import type { LoggingSeverity } from '@social-layer/protocol';
import { ClientResultError } from '../ClientResultError.ts';
import { ClientThread, isEnumValue } from '../enums.ts';
import type { Logger } from '../Logger.ts';
import { checkLogDirArgs, LogFile } from './LogFile.ts';

/**
 * The Client's platform hooks that have little or nothing to act on in a browser or Node:
 * setLogDir (a log file in Node; refused in browsers), setThreadPriority (JavaScript has no
 * thread priorities: checked, kept, logged), setGameWindowPid (the overlay's window owner:
 * kept for the desktop companion). Each checks its arguments like the rest of the API.
 */
export class Platform {
  private readonly logFile = new LogFile();
  private readonly threadPriorities = new Map<ClientThread, number>();
  private gameWindowPid: number | undefined;

  constructor(private readonly logger: Logger) {}

  /** Opens `<path>/social-layer.log` (overwritten); `None` closes it. Returns whether it opened. */
  setLogDir(path: string, minSeverity: LoggingSeverity): boolean {
    checkLogDirArgs('setLogDir', path, minSeverity);
    return this.logFile.open(this.logger, path, 'social-layer.log', minSeverity);
  }

  setThreadPriority(thread: ClientThread, priority: number): void {
    if (!isEnumValue(ClientThread, thread)) throw ClientResultError.validation('setThreadPriority: thread must be a Client thread (Client=0, Voice=1, Network=2)');
    if (!Number.isInteger(priority) || priority < -(2 ** 31) || priority >= 2 ** 31) throw ClientResultError.validation('setThreadPriority: priority must be a 32-bit integer');
    this.threadPriorities.set(thread, priority);
    this.logger.info('setThreadPriority: JavaScript runs the client on the event loop and audio worklets, which have no settable priority; kept, no effect');
  }

  getThreadPriority(thread: ClientThread): number | undefined {
    return this.threadPriorities.get(thread);
  }

  setGameWindowPid(pid: number): void {
    if (!Number.isInteger(pid) || pid <= 0 || pid >= 2 ** 31) throw ClientResultError.validation('setGameWindowPid: pid must be a positive 32-bit integer');
    this.gameWindowPid = pid;
  }

  /** The game window's process (default: this process in Node, undefined in browsers). */
  getGameWindowPid(): number | undefined {
    return this.gameWindowPid ?? (globalThis as { process?: { pid?: number } }).process?.pid;
  }

  close(): void {
    this.logFile.close();
  }
}
