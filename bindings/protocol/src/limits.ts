/**
 * Field limits, enforced by the server and checked early by the client. Values from the spec's
 * Limits table and reference/protocols.md 2.6; where neither gives one, the choice is ours and
 * documented in bindings/protocol/README.md.
 */
export const Limits = {
  lobbySecretMaxLength: 250,
  /** Total characters of keys and values in one metadata map. */
  metadataMaxChars: 1000,
  messageContentMaxLength: 2000,
  lobbyMessagesMaxPerRead: 200,
  lobbyMessagesDefaultPerRead: 50,
  lobbyHistoryMaxAgeMs: 72 * 60 * 60 * 1000,
  bulkMembersMax: 25,
  lobbyMembersMax: 1000,
  lobbiesPerUserPerApp: 100,
  idleTimeoutMinSeconds: 5,
  idleTimeoutMaxSeconds: 604_800,
  idleTimeoutDefaultSeconds: 300,
  additionalNameMinLength: 1,
  additionalNameMaxLength: 80,
  displayNameMinLength: 1,
  displayNameMaxLength: 32,
  externalUserIdMaxLength: 128,
  deviceIdMinLength: 16,
  deviceIdMaxLength: 128,
  /** Largest HTTP request body the API accepts, in bytes. */
  httpBodyMaxBytes: 64 * 1024,
  /** Provisional and OAuth2 access tokens live 7 days (protocols.md 2.7). */
  accessTokenTtlSeconds: 604_800,
} as const;

/** Flags of a lobby member. */
export const LobbyMemberFlags = {
  None: 0,
  CanLinkLobby: 1 << 0,
} as const;
