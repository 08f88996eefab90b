import { LoggingSeverity } from '@social-layer/protocol';

/** `Client::LogCallback`: message first, then severity, as the native SDK. */
export type LogCallback = (message: string, severity: LoggingSeverity) => void;

/**
 * Whether this is a production build of the SDK. The spec's logging rule: a release build logs
 * Error and Warning only; a debug build adds Info and Verbose. A bundler that defines
 * `process.env.NODE_ENV` as "production" (esbuild, Vite, webpack in production mode) makes a
 * release build; so does running under Node with NODE_ENV=production. Anything else is a debug
 * build. (A browser bundle without the define throws on `process` and is a debug build.)
 */
export function isReleaseBuild(): boolean {
  try {
    return process.env.NODE_ENV === 'production';
  } catch {
    return false;
  }
}

/** The most detailed severity this build emits. */
export function buildMinSeverity(): LoggingSeverity {
  return isReleaseBuild() ? LoggingSeverity.Warning : LoggingSeverity.Verbose;
}

/**
 * Fans log lines out to the callbacks registered with `addLogCallback` (and the log file of
 * `setLogDir`). Nothing is printed by default: a game chooses where logs go. Callers never pass
 * token values here (DESIGN.md, security rules), and as a second guard every line goes through
 * `redact` at every severity before any sink sees it.
 */
export class Logger {
  private readonly sinks: { callback: LogCallback; minSeverity: LoggingSeverity }[] = [];
  /** Below this nothing is emitted whatever the sinks ask for (release builds: Warning). */
  private readonly floor: LoggingSeverity;

  constructor(floor: LoggingSeverity = buildMinSeverity()) {
    this.floor = floor;
  }

  add(callback: LogCallback, minSeverity: LoggingSeverity): () => void {
    const sink = { callback, minSeverity };
    this.sinks.push(sink);
    return () => {
      const index = this.sinks.indexOf(sink);
      if (index >= 0) this.sinks.splice(index, 1);
    };
  }

  clear(): void {
    this.sinks.length = 0;
  }

  enabled(severity: LoggingSeverity): boolean {
    if (severity < this.floor) return false;
    return this.sinks.some((s) => severity >= s.minSeverity && s.minSeverity !== LoggingSeverity.None);
  }

  log(severity: LoggingSeverity, message: string): void {
    if (!this.enabled(severity)) return;
    const safe = redact(message);
    for (const sink of this.sinks) {
      if (sink.minSeverity === LoggingSeverity.None || severity < sink.minSeverity) continue;
      try {
        sink.callback(safe, severity);
      } catch {
        // A failing log sink must not break the client, and logging the failure could recurse.
      }
    }
  }

  verbose(message: string): void {
    this.log(LoggingSeverity.Verbose, message);
  }
  info(message: string): void {
    this.log(LoggingSeverity.Info, message);
  }
  warn(message: string): void {
    this.log(LoggingSeverity.Warning, message);
  }
  error(message: string): void {
    this.log(LoggingSeverity.Error, message);
  }
}

/** Masks anything that looks like a credential in free text (e.g. an error body echoing a header). */
export function redact(text: string): string {
  return text
    .replace(/(Bearer|Bot)\s+[A-Za-z0-9._~+/=-]+/g, '$1 [redacted]')
    .replace(/("(?:token|access_token|refresh_token|id_token|client_secret|device_code)"\s*:\s*)"[^"]*"/g, '$1"[redacted]"')
    .replace(/([?&](?:token|access_token|code|client_secret)=)[^&\s#]+/g, '$1[redacted]');
}
