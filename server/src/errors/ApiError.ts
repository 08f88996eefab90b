import { ApiErrorCode, type ApiErrorBody, type FieldErrorTree } from '@social-layer/protocol';

/**
 * A failure of the public API, thrown by the domain services and the HTTP layer alike: the HTTP
 * status, the public error code (ApiErrorCode) and the documented body `{code, message, errors?}`
 * (protocols.md 2.2). It lives below every domain folder so that services throw the API's errors
 * without importing the HTTP layer; http/createHttpApp.ts turns it into the response.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: FieldErrorTree,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.wireCode = code;
  }

  /**
   * The code the body carries. Kept apart from `code`: fastify sets `code = 'FST_ERR_VALIDATION'`
   * on a validator's error whose code is falsy (0, General), which put a string into the body
   * (found by test/attack.test.ts).
   */
  private readonly wireCode: number;

  /** Seconds to wait, for 429s: the body then has the public rate-limit shape. */
  retryAfter?: number;

  body(): ApiErrorBody | { code: number; message: string; retry_after: number; global: boolean } {
    // The public rate-limit body; `code` (0 for a budget, 20016 for slowmode) because the public OpenAPI
    // document's RatelimitedResponse requires it (conformance.test).
    if (this.status === 429) return { code: this.wireCode, message: this.message, retry_after: this.retryAfter ?? 1, global: false };
    return this.errors ? { code: this.wireCode, message: this.message, errors: this.errors } : { code: this.wireCode, message: this.message };
  }
}

export const Errors = {
  unauthorized: () => new ApiError(401, ApiErrorCode.General, '401: Unauthorized'),
  notFound: () => new ApiError(404, ApiErrorCode.General, '404: Not Found'),
  methodNotAllowed: () => new ApiError(405, ApiErrorCode.General, '405: Method Not Allowed'),
  unknownLobby: () => new ApiError(404, ApiErrorCode.UnknownLobby, 'Unknown Lobby'),
  unknownUser: () => new ApiError(404, ApiErrorCode.UnknownUser, 'Unknown User'),
  unknownApplication: () => new ApiError(404, ApiErrorCode.UnknownApplication, 'Unknown Application'),
  missingAccess: () => new ApiError(403, ApiErrorCode.MissingAccess, 'Missing Access'),
  missingScope: (scope: string) => new ApiError(403, ApiErrorCode.MissingRequiredOAuth2Scope, `Missing required OAuth2 scope: ${scope}`),
  invalidForm: (errors: FieldErrorTree) => new ApiError(400, ApiErrorCode.InvalidFormBody, 'Invalid Form Body', errors),
  invalidJson: () => new ApiError(400, ApiErrorCode.InvalidJson, 'The request body contains invalid JSON.'),
  tooLarge: () => new ApiError(413, ApiErrorCode.RequestTooLarge, 'Request entity too large'),
  provisionalNotEnabled: () => new ApiError(400, ApiErrorCode.ProvisionalAccountsNotEnabled, 'Provisional accounts are not enabled for this application'),
  invalidClientSecret: () => new ApiError(401, ApiErrorCode.InvalidClientSecret, 'Invalid client secret'),
  tooManyLobbies: () => new ApiError(400, ApiErrorCode.MaxLobbiesReached, 'Maximum number of lobbies reached'),
  lobbyFull: () => new ApiError(400, ApiErrorCode.LobbyFull, 'Lobby is full'),
};
