import { LoggingSeverity } from '@social-layer/protocol';

/** `Client::LogCallback`: message first, then severity, as the native SDK. */
export type LogCallback = (message: string, severity: LoggingSeverity) => void;

/**
 * Fans log lines out to the callbacks registered with `addLogCallback`. Nothing is printed by
 * default: a game chooses where logs go. Callers never pass token values here (DESIGN.md,
 * security rules); `redact` exists for the few places that log text that could hold one.
 */
export class Logger {
  private readonly sinks: { callback: LogCallback; minSeverity: LoggingSeverity }[] = [];

  add(callback: LogCallback, minSeverity: LoggingSeverity): void {
    this.sinks.push({ callback, minSeverity });
  }

  clear(): void {
    this.sinks.length = 0;
  }

  enabled(severity: LoggingSeverity): boolean {
    return this.sinks.some((s) => severity >= s.minSeverity && s.minSeverity !== LoggingSeverity.None);
  }

  log(severity: LoggingSeverity, message: string): void {
    for (const sink of this.sinks) {
      if (sink.minSeverity === LoggingSeverity.None || severity < sink.minSeverity) continue;
      try {
        sink.callback(message, severity);
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
    .replace(/("(?:token|access_token|refresh_token|id_token|client_secret)"\s*:\s*)"[^"]*"/g, '$1"[redacted]"');
}
