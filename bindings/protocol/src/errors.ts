/**
 * JSON error codes of the HTTP API (protocols.md 2.2; values as the public system documents them).
 * One table for the server that sends them and the client that reads them.
 */
export const ApiErrorCode = {
  General: 0,
  UnknownApplication: 10002,
  UnknownChannel: 10003,
  UnknownMessage: 10008,
  UnknownUser: 10013,
  UnknownLobby: 10031,
  Unauthorized: 40001,
  RequestTooLarge: 40005,
  MissingAccess: 50001,
  CannotEditOtherUsersMessage: 50005,
  CannotSendEmptyMessage: 50006,
  InvalidOAuth2State: 50012,
  MissingPermissions: 50013,
  InvalidAuthenticationToken: 50014,
  InvalidOAuth2AccessToken: 50025,
  MissingRequiredOAuth2Scope: 50026,
  InvalidFormBody: 50035,
  InvalidApiVersion: 50041,
  InvalidJson: 50109,
  MaxLobbiesReached: 30063,
  LobbyFull: 30064,
  ProvisionalAccountsNotEnabled: 530000,
  ExpiredIdToken: 530001,
  InvalidIssuer: 530002,
  InvalidAudience: 530003,
  IdTokenTooOld: 530004,
  UsernameGenerationFailed: 530006,
  InvalidClientSecret: 530007,
  OidcConfigNotFound: 530008,
  JwksNotFound: 530009,
  AccountNotProvisional: 530010,
  MergeSourceBanned: 530017,
  InvalidOidcJwt: 530020,
  MissingKid: 530027,
} as const;
export type ApiErrorCode = (typeof ApiErrorCode)[keyof typeof ApiErrorCode];

/** Leaf of an `errors` tree: `{_errors: [{code, message}]}` (protocols.md 2.2). */
export interface FieldErrorLeaf {
  _errors: { code: string; message: string }[];
}
/** `errors` mirrors the request shape; arrays are keyed by index strings. */
export interface FieldErrorTree {
  [key: string]: FieldErrorTree | FieldErrorLeaf['_errors'];
}

/** The error body of every HTTP API route: `{code, message, errors?}`. */
export interface ApiErrorBody {
  code: number;
  message: string;
  errors?: FieldErrorTree;
}

/** 429 body (protocols.md 2.3). */
export interface RateLimitedBody {
  message: string;
  retry_after: number;
  global: boolean;
  code?: number;
}
