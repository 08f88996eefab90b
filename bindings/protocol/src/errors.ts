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
  // Social graph, presence, invites and direct messages (issue 6). 50003/50007 and 80000-80007
  // are the public codes; 80010 and up are ours, documented in server/README.md.
  UnknownInvite: 10006,
  CannotExecuteOnDm: 50003,
  CannotSendMessagesToUser: 50007,
  IncomingFriendRequestsDisabled: 80000,
  FriendRequestBlocked: 80001,
  BotsCannotHaveFriends: 80002,
  CannotFriendSelf: 80003,
  NoUserWithThatName: 80004,
  NotFriends: 80006,
  AlreadyFriends: 80007,
  FriendRequestAlreadySent: 80010,
  NoIncomingFriendRequest: 80011,
  NoOutgoingFriendRequest: 80012,
  UserNotBlocked: 80013,
  ActivityNotJoinable: 80020,
  InviteNoLongerValid: 80021,
  PartyFull: 80022,
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
