/**
 * JSON error codes of the HTTP API (protocols.md 2.2; values as the public system documents them).
 * One table for the server that sends them and the client that reads them.
 */
export const ApiErrorCode = {
  /** No specific code: the HTTP status says it (for example `404: Not Found`, `401: Unauthorized`). */
  General: 0,
  /** No application with that ID (404). */
  UnknownApplication: 10002,
  /** No channel with that ID, or one the caller cannot see (404). */
  UnknownChannel: 10003,
  /** No message with that ID in that channel or lobby (404). */
  UnknownMessage: 10008,
  /** No user with that ID (404). */
  UnknownUser: 10013,
  /** No lobby with that ID in the caller's application (404). */
  UnknownLobby: 10031,
  /** The public code for an unauthorized request; this server answers a missing or bad token with 401 and code 0 instead. */
  Unauthorized: 40001,
  /** The request body or an uploaded file is over its size limit (413; 64 KiB for a JSON body). */
  RequestTooLarge: 40005,
  /** The caller may not reach that resource, for example a lobby they are not a member of (403). */
  MissingAccess: 50001,
  /** Editing a message someone else wrote (403). */
  CannotEditOtherUsersMessage: 50005,
  /** A message with no content (400). */
  CannotSendEmptyMessage: 50006,
  /** The OAuth2 `state` does not match the one of the authorization request (public code). */
  InvalidOAuth2State: 50012,
  /** The caller lacks a permission the action needs, or used the wrong kind of token for the route (403). */
  MissingPermissions: 50013,
  /** The token is unknown, expired or revoked (public code; the public example body is `Invalid authentication token`). */
  InvalidAuthenticationToken: 50014,
  /** The Bearer token is not a valid OAuth2 access token (public code). */
  InvalidOAuth2AccessToken: 50025,
  /** The Bearer token was not granted a scope the route needs, such as `sdk.social_layer` (403). */
  MissingRequiredOAuth2Scope: 50026,
  /** The body failed validation; `errors` says which fields and why (400). */
  InvalidFormBody: 50035,
  /** The path names an API version the server does not speak (public code). */
  InvalidApiVersion: 50041,
  /** The body is not valid JSON (400). */
  InvalidJson: 50109,
  /** The user is already in the most lobbies allowed per application, 100 (400). */
  MaxLobbiesReached: 30063,
  /** The lobby already has its most members, 1000 (400). */
  LobbyFull: 30064,
  /** The application has not enabled provisional accounts (400). */
  ProvisionalAccountsNotEnabled: 530000,
  /** The external ID token has expired. */
  ExpiredIdToken: 530001,
  /** The external ID token's issuer is not the one configured for the application. */
  InvalidIssuer: 530002,
  /** The external ID token's audience is not the one configured for the application. */
  InvalidAudience: 530003,
  /** The external ID token was issued more than a week ago. */
  IdTokenTooOld: 530004,
  /** No username could be generated for the new provisional account; retry. */
  UsernameGenerationFailed: 530006,
  /** The client secret does not match the application (401). */
  InvalidClientSecret: 530007,
  /** The OIDC issuer's discovery document could not be fetched. */
  OidcConfigNotFound: 530008,
  /** The OIDC issuer's key set (JWKS) could not be fetched. */
  JwksNotFound: 530009,
  /** The external identity belongs to a full account: sign in with OAuth2 instead. */
  AccountNotProvisional: 530010,
  /** The provisional account to merge belongs to a banned user; refused until the ban lifts. */
  MergeSourceBanned: 530017,
  /** The external ID token is not a valid JWT, or its signature does not verify. */
  InvalidOidcJwt: 530020,
  /** The external ID token's header has no `kid` to find its signing key. */
  MissingKid: 530027,
  // Social graph, presence, invites and direct messages (issue 6). 50003/50007 and 80000-80007
  // are the public codes; 80010 and up are ours, documented in server/README.md.
  /** No such invite, or one that is not the caller's (404). */
  UnknownInvite: 10006,
  /** The action is not allowed in a DM, such as deleting the other user's message (403). */
  CannotExecuteOnDm: 50003,
  /** The recipient does not accept direct messages from the caller (403). */
  CannotSendMessagesToUser: 50007,
  /** The recipient does not accept friend requests. */
  IncomingFriendRequestsDisabled: 80000,
  /** A block stands between the two users. */
  FriendRequestBlocked: 80001,
  /** One of the users is a bot. */
  BotsCannotHaveFriends: 80002,
  /** The target of a friend request or block is the caller. */
  CannotFriendSelf: 80003,
  /** No user has that username (friend request by name). */
  NoUserWithThatName: 80004,
  /** There is no friendship to remove. */
  NotFriends: 80006,
  /** The users are already friends. */
  AlreadyFriends: 80007,
  /** Ours: a friend request to that user is already pending. */
  FriendRequestAlreadySent: 80010,
  /** Ours: accepting or rejecting a request that user never sent. */
  NoIncomingFriendRequest: 80011,
  /** Ours: cancelling a request the caller never sent. */
  NoOutgoingFriendRequest: 80012,
  /** Ours: unblocking a user who is not blocked. */
  UserNotBlocked: 80013,
  /** Ours: the sender's activity has no party ID, no free room or no join secret, or is a private party of a non-friend. */
  ActivityNotJoinable: 80020,
  /** Ours: the invite is over 6 hours old, or the sender left that party. */
  InviteNoLongerValid: 80021,
  /** Ours: the party has no free room. */
  PartyFull: 80022,
} as const;
export type ApiErrorCode = (typeof ApiErrorCode)[keyof typeof ApiErrorCode];

/** Leaf of an `errors` tree: `{_errors: [{code, message}]}` (protocols.md 2.2). */
export interface FieldErrorLeaf {
  /** The errors of this field, one per broken rule. */
  _errors: {
    /** A machine-readable reason, for example `BASE_TYPE_REQUIRED` or `BASE_TYPE_MAX_LENGTH`. */
    code: string;
    /** The reason for people. */
    message: string;
  }[];
}
/** `errors` mirrors the request shape; arrays are keyed by index strings. */
export interface FieldErrorTree {
  [key: string]: FieldErrorTree | FieldErrorLeaf['_errors'];
}

/** The error body of every HTTP API route: `{code, message, errors?}`. */
export interface ApiErrorBody {
  /** The JSON error code (ApiErrorCode); 0 when only the HTTP status says it. */
  code: number;
  /** What went wrong, for people (for example `Invalid Form Body`). */
  message: string;
  /** Per-field errors, mirroring the request's shape (only with 50035 InvalidFormBody). */
  errors?: FieldErrorTree;
}

/** 429 body (protocols.md 2.3). */
export interface RateLimitedBody {
  /** `You are being rate limited.` */
  message: string;
  /** Seconds to wait before retrying (a float). */
  retry_after: number;
  /** Whether the global limit was hit rather than the route's. */
  global: boolean;
  /** A JSON error code, when there is one. */
  code?: number;
}
