import { ErrorType } from '@social-layer/protocol';

/** The fields of the spec's `ClientResult` for a failed operation (everything but `successful`). */
export interface ClientResultInit {
  /** See `ClientResultError.type`. */
  type: ErrorType;
  /** See `ClientResultError.error`. */
  error: string;
  /**
   * JSON error code from the HTTP body (`{code}`); for a Gateway failure, the close code.
   * 0 when there is none.
   */
  errorCode?: number;
  /** HTTP status; 0 when the failure was not an HTTP response. */
  status?: number;
  /** Raw response body, usually JSON; '' when there was no response. */
  responseBody?: string;
  /** See `ClientResultError.retryable`. */
  retryable?: boolean;
  /** Seconds to wait before retrying (429 `Retry-After` / `retry_after`); 0 when not rate limited. */
  retryAfter?: number;
}

/**
 * The one error class every failed Promise of the Client rejects with. It carries the spec's
 * ClientResult fields so a game can branch on `type` and `retryable` instead of parsing text.
 */
export class ClientResultError extends Error {
  /** What kind of failure (`ErrorType`): network, HTTP, validation, not ready, ... */
  readonly type: ErrorType;
  /** What went wrong, for people. */
  readonly error: string;
  /** The platform's error code from the response body (0 when none). */
  readonly errorCode: number;
  /** The HTTP status (0 when there was no response). */
  readonly status: number;
  /** The response body as received (empty when none). */
  readonly responseBody: string;
  /** Whether trying again may succeed (rate limits, network failures, 5xx). */
  readonly retryable: boolean;
  /** Seconds to wait before a retry (from Retry-After; 0 when not given). */
  readonly retryAfter: number;

  constructor(init: ClientResultInit) {
    super(init.error);
    this.name = 'ClientResultError';
    this.type = init.type;
    this.error = init.error;
    this.errorCode = init.errorCode ?? 0;
    this.status = init.status ?? 0;
    this.responseBody = init.responseBody ?? '';
    this.retryable = init.retryable ?? false;
    this.retryAfter = init.retryAfter ?? 0;
  }

  /** Always false: a successful operation resolves instead of producing a ClientResultError. */
  get successful(): boolean {
    return false;
  }

  override toString(): string {
    const parts = [`${errorTypeToString(this.type)}: ${this.error}`];
    if (this.status) parts.push(`status ${this.status}`);
    if (this.errorCode) parts.push(`code ${this.errorCode}`);
    return parts.join(', ');
  }

  /** An error of type ValidationError: the arguments were refused before any request. */
  static validation(error: string): ClientResultError {
    return new ClientResultError({ type: ErrorType.ValidationError, error });
  }

  /** An error of type ClientNotReady: `operation` needs a connected, Ready client. */
  static notReady(operation: string): ClientResultError {
    return new ClientResultError({
      type: ErrorType.ClientNotReady,
      error: `${operation} needs a Ready client: call connect() and wait for it`,
    });
  }

  /** An error of type ClientDestroyed: the client was destroyed. */
  static destroyed(): ClientResultError {
    return new ClientResultError({ type: ErrorType.ClientDestroyed, error: 'the client was destroyed' });
  }
}

const ERROR_TYPE_NAMES: Record<ErrorType, string> = {
  0: 'None',
  1: 'NetworkError',
  2: 'HTTPError',
  3: 'ClientNotReady',
  4: 'Disabled',
  5: 'ClientDestroyed',
  6: 'ValidationError',
  7: 'Aborted',
  8: 'AuthorizationFailed',
  9: 'RPCError',
};

/** The name of an `ErrorType` value, as the spec's `ErrorTypeToString`. */
export function errorTypeToString(type: ErrorType): string {
  return ERROR_TYPE_NAMES[type] ?? `Unknown(${type})`;
}
