import { type DestinationStream, type Logger as PinoLogger, pino } from 'pino';
import PinoPretty from 'pino-pretty';
import { CENSOR, pathShape, REDACT_PATHS, redact, redactStrings, serializeError } from './redaction.ts';

export { redact } from './redaction.ts';

/**
 * The server's logger is pino, the one fastify itself uses (`loggerInstance`), so request, plugin
 * and domain lines share one stream and one redaction. Release logging (the default level) is
 * warn and error; `debug` adds a line per request and per flow. `info` and `silent` exist too.
 */
export type Logger = PinoLogger;
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
/** Receives each log line (JSON, no trailing newline); tests capture lines with it. */
export type LogSink = (line: string) => void;

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go. Default: stderr (stdout stays free for the CLI's JSON output), pretty-printed when stderr is a terminal. */
  sink?: LogSink;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'warn',
      base: undefined,
      // Names as well as numbers, so a reader of the JSON lines need not know pino's scale.
      formatters: {
        level: (label, number) => ({ level: number, levelName: label }),
        log: (object) => redactStrings(object) as Record<string, unknown>,
      },
      redact: { paths: REDACT_PATHS, censor: CENSOR },
      serializers: { err: serializeError, error: serializeError, req: serializeRequest },
      hooks: {
        // Messages are masked too: a message built from a URL or an error can carry a credential.
        logMethod(args, method) {
          return method.apply(this, args.map((a) => (typeof a === 'string' ? redact(a) : a)) as typeof args);
        },
      },
    },
    destination(options.sink),
  );
}

function destination(sink: LogSink | undefined): DestinationStream {
  if (sink) return { write: (line: string) => sink(line.endsWith('\n') ? line.slice(0, -1) : line) };
  if (process.stderr.isTTY) return PinoPretty({ destination: 2, colorize: true, sync: true, ignore: 'levelName' });
  return pino.destination({ dest: 2, sync: false });
}

/**
 * Requests are logged by method and route pattern, never by URL: a query or a path can hold a
 * credential (`/activate?user_code=`, webhook tokens in paths). Unmatched requests show the path's
 * shape (pathShape), without its query.
 */
function serializeRequest(req: { method?: string; url?: string; routeOptions?: { url?: string } }): unknown {
  return { method: req.method, route: req.routeOptions?.url ?? pathShape((req.url ?? '').split('?')[0]!) };
}
