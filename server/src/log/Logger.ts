/**
 * Leveled logger. Release logging (the default) is Error and Warning; `info`/`debug` are opt-in.
 * Every line passes through `redact`, so a bearer or bot token that slips into a message or
 * field never reaches the output (DESIGN.md security rules).
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Token-shaped strings: our 43-char base64url tokens and anything after Bearer/Bot. */
const TOKEN_PATTERNS: RegExp[] = [
  /\b(Bearer|Bot)\s+[A-Za-z0-9._~+/=-]+/gi,
  /\b[A-Za-z0-9_-]{43}\b/g,
];

/** OAuth2 and account parameters that hold credentials, in a query string, a form or JSON. */
const SECRET_PARAMS = 'code|device_code|user_code|code_verifier|token|access_token|refresh_token|id_token|subject_token|client_secret|external_auth_token|password';
const SECRET_QUERY = new RegExp(`((?:^|[?&\\s])(?:${SECRET_PARAMS})=)[^&#\\s"']+`, 'gi');
const SECRET_JSON = new RegExp(`("(?:${SECRET_PARAMS})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gi');

export function redact(text: string): string {
  let out = text;
  for (const re of TOKEN_PATTERNS) out = out.replace(re, (m) => (/^(bearer|bot)\s/i.test(m) ? `${m.split(/\s+/)[0]} [redacted]` : '[redacted]'));
  // A URL or body that slips into a message (an authorize redirect carries `code=`) loses its
  // credential values; nothing logs them on purpose (request lines are method, route, status).
  return out.replace(SECRET_QUERY, '$1[redacted]').replace(SECRET_JSON, '$1"[redacted]"');
}

export type LogSink = (line: string) => void;

export class Logger {
  constructor(
    private readonly level: LogLevel = 'warn',
    private readonly sink: LogSink = (line) => process.stderr.write(line + '\n'),
    private readonly scope = 'server',
  ) {}

  child(scope: string): Logger {
    return new Logger(this.level, this.sink, `${this.scope}:${scope}`);
  }

  enabled(level: LogLevel): boolean {
    return ORDER[level] >= ORDER[this.level];
  }

  debug(msg: string, fields?: Record<string, unknown>): void { this.write('debug', msg, fields); }
  info(msg: string, fields?: Record<string, unknown>): void { this.write('info', msg, fields); }
  warn(msg: string, fields?: Record<string, unknown>): void { this.write('warn', msg, fields); }
  error(msg: string, fields?: Record<string, unknown>): void { this.write('error', msg, fields); }

  private write(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
    if (!this.enabled(level)) return;
    const extra = fields ? ' ' + safeJson(fields) : '';
    this.sink(redact(`${new Date().toISOString()} ${level.toUpperCase()} [${this.scope}] ${msg}${extra}`));
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v) => (v instanceof Error ? { name: v.name, message: v.message } : v));
  } catch {
    return '[unserializable]';
  }
}
