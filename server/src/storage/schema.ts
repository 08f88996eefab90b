/**
 * Table types for kysely. Timestamps are integer milliseconds (BIGINT); PostgreSQL returns BIGINT
 * as a string, so reads go through `toMs`. Booleans are stored as 0/1 integers, which both
 * dialects handle the same way. JSON maps are TEXT (SQLite has no JSON column type).
 */
export interface ApplicationsTable {
  id: string;
  name: string;
  client_secret_hash: string;
  bot_token_hash: string;
  bot_user_id: string;
  public_client: number;
  flags: number;
  created_at: number | string;
}

export interface UsersTable {
  id: string;
  username: string;
  global_name: string | null;
  avatar: string | null;
  is_provisional: number;
  is_bot: number;
  created_at: number | string;
}

export interface ExternalIdentitiesTable {
  application_id: string;
  auth_type: string;
  external_id: string;
  user_id: string;
  created_at: number | string;
}

export interface AccessTokensTable {
  token_hash: string;
  user_id: string;
  application_id: string;
  scopes: string;
  expires_at: number | string;
  created_at: number | string;
}

export interface LobbiesTable {
  id: string;
  application_id: string;
  secret: string | null;
  metadata: string | null;
  idle_timeout_seconds: number;
  /** When the last connected member left (ms); null while someone is connected or never idle-tracked. */
  idle_since: number | string | null;
  created_at: number | string;
}

export interface LobbyMembersTable {
  lobby_id: string;
  user_id: string;
  metadata: string | null;
  flags: number;
  additional_name: string | null;
  joined_at: number | string;
}

export interface LobbyMessagesTable {
  id: string;
  lobby_id: string;
  application_id: string;
  author_id: string;
  content: string;
  metadata: string | null;
  moderation_metadata: string | null;
  additional_name: string | null;
  flags: number;
  created_at: number | string;
}

export interface Database {
  applications: ApplicationsTable;
  users: UsersTable;
  external_identities: ExternalIdentitiesTable;
  access_tokens: AccessTokensTable;
  lobbies: LobbiesTable;
  lobby_members: LobbyMembersTable;
  lobby_messages: LobbyMessagesTable;
}

export function toMs(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

// ---- social graph, presence, invites and direct messages (migration 0002_social) -----------
// Declaration merging adds these tables to Database.

export interface RelationshipsTable {
  user_id: string;
  other_id: string;
  /** '0': the platform relationship (across games); otherwise a game relationship in that application. */
  application_id: string;
  /** RelationshipType: 1 Friend, 2 Blocked, 3 PendingIncoming, 4 PendingOutgoing. */
  type: number;
  /** 1 when the server judged this incoming request to be spam. */
  is_spam: number;
  since: number | string;
}

export interface FriendRequestLogTable {
  id: string;
  sender_id: string;
  recipient_id: string;
  application_id: string;
  created_at: number | string;
  rejected_at: number | string | null;
}

export interface DmChannelsTable {
  id: string;
  user_low: string;
  user_high: string;
  created_at: number | string;
}

export interface DirectMessagesTable {
  id: string;
  channel_id: string;
  application_id: string;
  author_id: string;
  recipient_id: string;
  content: string;
  metadata: string | null;
  moderation_metadata: string | null;
  flags: number;
  created_at: number | string;
  edited_at: number | string | null;
}

export interface ActivityInvitesTable {
  id: string;
  application_id: string;
  sender_id: string;
  recipient_id: string;
  channel_id: string;
  /** ActivityActionTypes: 1 Join, 5 JoinRequest. */
  type: number;
  party_id: string;
  session_id: string;
  content: string;
  cover_image: string | null;
  /** 0 once the sender left the party it invited to; time expiry is computed on read. */
  valid: number;
  created_at: number | string;
}

export interface ApplicationSocialSettingsTable {
  application_id: string;
  cover_image: string | null;
  launch_url: string | null;
  updated_at: number | string;
}

export interface ApplicationPlayersTable {
  application_id: string;
  user_id: string;
  first_seen_at: number | string;
  last_seen_at: number | string;
}

export interface UserPresenceSettingsTable {
  user_id: string;
  /** 'online' | 'idle' | 'dnd' | 'invisible'. */
  status: string;
  updated_at: number | string;
}

export interface Database {
  relationships: RelationshipsTable;
  friend_request_log: FriendRequestLogTable;
  dm_channels: DmChannelsTable;
  direct_messages: DirectMessagesTable;
  activity_invites: ActivityInvitesTable;
  application_social_settings: ApplicationSocialSettingsTable;
  application_players: ApplicationPlayersTable;
  user_presence_settings: UserPresenceSettingsTable;
}

// ---- accounts and OAuth2 (migration 0003_accounts) -----------------------------------------
// Declaration merging adds the new columns to the tables above; they are optional here because
// older rows get the column defaults and inserts elsewhere need not name them.

export interface UsersTable {
  /** 0 none; read back as the real value only with the identify.premium scope. */
  premium_type?: number;
  /** Null when not banned; ms timestamp when the ban ends (Number.MAX_SAFE_INTEGER: permanent). */
  banned_until?: number | string | null;
  /** On the restricted provisional account a ban creates: the banned user it carries the identity of. */
  restricted_from?: string | null;
}

export interface ApplicationsTable {
  /** Publisher-level linking: the parent application of a child application. */
  parent_id?: string | null;
  /** Privileged scopes the application may request, space-separated (identify.premium). */
  approved_scopes?: string;
}

export interface AccessTokensTable {
  /** Hash of the refresh token issued with this access token, so a refresh retires the pair. */
  refresh_hash?: string | null;
}

export interface AccountsTable {
  user_id: string;
  /** Lower-cased sign-in name. */
  login: string;
  email: string | null;
  /** scrypt$N$r$p$salt$hash (see accounts/passwords.ts). */
  password_hash: string;
  created_at: number | string;
}

export interface WebSessionsTable {
  id_hash: string;
  user_id: string;
  csrf: string;
  expires_at: number | string;
  created_at: number | string;
}

export interface OAuthRedirectUrisTable {
  application_id: string;
  uri: string;
}

export interface OidcIssuersTable {
  application_id: string;
  issuer: string;
  audience: string;
}

export interface OAuthAuthorizationsTable {
  application_id: string;
  user_id: string;
  scopes: string;
  created_at: number | string;
  updated_at: number | string;
}

export interface OAuthCodesTable {
  code_hash: string;
  application_id: string;
  user_id: string;
  redirect_uri: string | null;
  scopes: string;
  code_challenge: string | null;
  nonce: string | null;
  expires_at: number | string;
  used_at: number | string | null;
  created_at: number | string;
}

export interface RefreshTokensTable {
  token_hash: string;
  user_id: string;
  application_id: string;
  scopes: string;
  created_at: number | string;
}

export interface DeviceCodesTable {
  device_code_hash: string;
  user_code: string;
  application_id: string;
  scopes: string;
  user_id: string | null;
  /** pending | approved | denied | used */
  status: string;
  interval_s: number;
  last_poll_at: number | string | null;
  expires_at: number | string;
  created_at: number | string;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  private_pem: string;
  public_jwk: string;
  created_at: number | string;
}

export interface WebhookEventsTable {
  id: string;
  application_id: string;
  type: string;
  /** The event's `data` object as JSON. */
  data: string;
  attempts: number;
  delivered_at: number | string | null;
  created_at: number | string;
}

export interface Database {
  accounts: AccountsTable;
  web_sessions: WebSessionsTable;
  oauth_redirect_uris: OAuthRedirectUrisTable;
  oidc_issuers: OidcIssuersTable;
  oauth_authorizations: OAuthAuthorizationsTable;
  oauth_codes: OAuthCodesTable;
  refresh_tokens: RefreshTokensTable;
  device_codes: DeviceCodesTable;
  signing_keys: SigningKeysTable;
  webhook_events: WebhookEventsTable;
}
