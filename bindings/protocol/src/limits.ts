/**
 * Field limits, enforced by the server and checked early by the client. Values from the spec's
 * Limits table and reference/protocols.md 2.6; where neither gives one, the choice is ours and
 * documented in bindings/protocol/README.md.
 */
export const Limits = {
  /** Longest lobby `secret` of `PUT /lobbies`, in characters. */
  lobbySecretMaxLength: 250,
  /** Total characters of keys and values in one metadata map. */
  metadataMaxChars: 1000,
  /** Longest lobby or direct message `content`, in characters. */
  messageContentMaxLength: 2000,
  /** Most lobby messages one history read returns (`limit` of `GET /lobbies/{id}/messages`). */
  lobbyMessagesMaxPerRead: 200,
  /** Lobby messages a history read returns when `limit` is not given. */
  lobbyMessagesDefaultPerRead: 50,
  /** Oldest lobby message a history read returns: 72 hours, in milliseconds. */
  lobbyHistoryMaxAgeMs: 72 * 60 * 60 * 1000,
  /** Most members in one bulk member request, or in `members` of a lobby create or update. */
  bulkMembersMax: 25,
  /** Most members in one lobby (30064 LobbyFull beyond). */
  lobbyMembersMax: 1000,
  /** Most lobbies a user may be in per application (30063 MaxLobbiesReached beyond). */
  lobbiesPerUserPerApp: 100,
  /** Shortest `idle_timeout_seconds`: how long a lobby with nobody connected lives. */
  idleTimeoutMinSeconds: 5,
  /** Longest `idle_timeout_seconds`: 7 days. */
  idleTimeoutMaxSeconds: 604_800,
  /** Idle timeout of a lobby that names none: 5 minutes. */
  idleTimeoutDefaultSeconds: 300,
  /** Shortest lobby member `additional_name`, in characters. */
  additionalNameMinLength: 1,
  /** Longest lobby member `additional_name`, in characters. */
  additionalNameMaxLength: 80,
  /** Shortest display name (`preferred_global_name` of a provisional account), in characters. */
  displayNameMinLength: 1,
  /** Longest display name, in characters. */
  displayNameMaxLength: 32,
  /** Longest `external_user_id` a game backend gives a bot-issued provisional account. */
  externalUserIdMaxLength: 128,
  /** Shortest device ID of the `DEVICE_ID` external auth type (a random ID the game keeps). */
  deviceIdMinLength: 16,
  /** Longest device ID, in characters. */
  deviceIdMaxLength: 128,
  /** Largest HTTP request body the API accepts, in bytes. */
  httpBodyMaxBytes: 64 * 1024,
  /** Provisional and OAuth2 access tokens live 7 days (protocols.md 2.7). */
  accessTokenTtlSeconds: 604_800,
} as const;

/** Flags of a lobby member. */
export const LobbyMemberFlags = {
  /** No flags. */
  None: 0,
  /** The member may link the lobby to a guild channel and unlink it (set by the game backend only). */
  CanLinkLobby: 1 << 0,
} as const;
