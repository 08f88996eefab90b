import { ErrorType } from '@social-layer/protocol';

/** The fields of the spec's `ClientResult` for a failed operation (everything but `successful`). */
export interface ClientResultInit {
  type: ErrorType;
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
  retryable?: boolean;
  /** Seconds to wait before retrying (429 `Retry-After` / `retry_after`); 0 when not rate limited. */
  retryAfter?: number;
}

/**
 * The one error class every failed Promise of the Client rejects with. It carries the spec's
 * ClientResult fields so a game can branch on `type` and `retryable` instead of parsing text.
 */
export class ClientResultError extends Error {
  readonly type: ErrorType;
  readonly error: string;
  readonly errorCode: number;
  readonly status: number;
  readonly responseBody: string;
  readonly retryable: boolean;
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

  static validation(error: string): ClientResultError {
    return new ClientResultError({ type: ErrorType.ValidationError, error });
  }

  static notReady(operation: string): ClientResultError {
    return new ClientResultError({
      type: ErrorType.ClientNotReady,
      error: `${operation} needs a Ready client: call connect() and wait for it`,
    });
  }

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

export function errorTypeToString(type: ErrorType): string {
  return ERROR_TYPE_NAMES[type] ?? `Unknown(${type})`;
}
