import { ErrorType } from '@social-layer/protocol';
import { ClientResultError } from './ClientResultError.ts';
import { redact, type Logger } from './Logger.ts';

/** A `fetch` implementation (the global one by default; tests and Node hosts may pass their own). */
export type FetchLike = typeof fetch;

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path under `/api/v10`, starting with '/'. */
  path: string;
  body?: unknown;
  /** Send `Authorization: Bearer <token>`; the request fails locally when no token is set. */
  auth: boolean;
}

/** How long an HTTP request may take before it fails with a timeout, unless `httpTimeoutMs` says otherwise. */
export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;

/**
 * The REST side of the client: one place that adds auth, enforces the timeout and turns every
 * failure (network, timeout, non-2xx) into a ClientResultError with the ClientResult fields.
 */
export class HttpApi {
  token: string | undefined;
  timeoutMs = DEFAULT_HTTP_TIMEOUT_MS;

  constructor(
    readonly apiBase: string,
    readonly fetchImpl: FetchLike,
    private readonly logger: Logger,
  ) {}

  get apiRoot(): string {
    return `${this.apiBase}/api/v10`;
  }

  async request<T>(req: HttpRequest): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (req.auth) {
      if (!this.token) {
        throw new ClientResultError({
          type: ErrorType.AuthorizationFailed,
          error: 'no token: call updateToken() first',
        });
      }
      headers.Authorization = `Bearer ${this.token}`;
    }
    let body: string | undefined;
    if (req.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(req.body);
    }

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    const label = `${req.method} ${req.path}`;
    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(`${this.apiRoot}${req.path}`, {
        method: req.method,
        headers,
        body,
        signal: controller.signal,
      });
      text = await response.text();
    } catch (cause) {
      const timedOut = controller.signal.aborted;
      const error = timedOut ? `${label} timed out after ${this.timeoutMs} ms` : `${label} failed: ${describe(cause)}`;
      this.logger.warn(error);
      throw new ClientResultError({ type: ErrorType.NetworkError, error, retryable: true });
    } finally {
      clearTimeout(timer);
    }

    this.logger.verbose(`${label} -> ${response.status}`);
    if (response.ok) {
      if (!text) return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new ClientResultError({
          type: ErrorType.HTTPError,
          error: `${label}: response is not JSON`,
          status: response.status,
          responseBody: text,
        });
      }
    }
    throw this.httpError(label, response, text);
  }

  private httpError(label: string, response: Response, text: string): ClientResultError {
    let code = 0;
    let message = response.statusText || `HTTP ${response.status}`;
    let bodyRetryAfter: number | undefined;
    try {
      const parsed = JSON.parse(text) as { code?: unknown; message?: unknown; retry_after?: unknown };
      if (typeof parsed.code === 'number') code = parsed.code;
      if (typeof parsed.message === 'string') message = parsed.message;
      if (typeof parsed.retry_after === 'number') bodyRetryAfter = parsed.retry_after;
    } catch {
      // Not JSON (a proxy's HTML page, say): keep the status text.
    }
    const headerRetryAfter = Number.parseFloat(response.headers.get('retry-after') ?? '');
    const retryAfter =
      response.status === 429 ? (Number.isFinite(headerRetryAfter) ? headerRetryAfter : (bodyRetryAfter ?? 0)) : 0;
    const retryable = response.status === 429 || response.status >= 500;
    const error = `${label}: ${response.status} ${message}`;
    this.logger.info(redact(error));
    return new ClientResultError({
      type: ErrorType.HTTPError,
      error: message,
      errorCode: code,
      status: response.status,
      responseBody: text,
      retryable,
      retryAfter,
    });
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as { cause?: unknown }).cause;
    return inner instanceof Error ? `${cause.message} (${inner.message})` : cause.message;
  }
  return String(cause);
}
