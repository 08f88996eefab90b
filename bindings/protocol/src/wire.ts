/**
 * JSON shapes on the wire (snake_case, as the public API). IDs are snowflake strings.
 * Sources: reference/protocols.md 1.3-1.8 (Gateway) and 2.6-2.7 (REST lobbies, tokens).
 */

export type Snowflake = string;
export type Metadata = Record<string, string>;

export interface GatewayPayload<D = unknown> {
  op: number;
  d: D;
  s: number | null;
  t: string | null;
}

export interface HelloData {
  heartbeat_interval: number;
}

export interface IdentifyData {
  token: string;
  properties: { os: string; browser: string; device: string };
  intents?: number;
  compress?: boolean;
  large_threshold?: number;
  capabilities?: number;
}

export interface ResumeData {
  token: string;
  session_id: string;
  seq: number;
}

export interface User {
  id: Snowflake;
  username: string;
  global_name: string | null;
  avatar: string | null;
  discriminator: string;
  bot: boolean;
  /** True for provisional (guest) accounts. */
  is_provisional: boolean;
  /**
   * Game profiles of the user's external identities for the application of the token that
   * reads them (UserApplicationProfileHandle); on the user's own object (READY, GET /users/@me).
   */
  application_profiles?: UserApplicationProfile[];
}

/** One external identity's profile as its provider gave it (issue 19). */
export interface UserApplicationProfile {
  /** ExternalIdentityProviderType by name: OIDC, EPIC_ONLINE_SERVICES, STEAM, UNITY, DISCORD_BOT. */
  provider_type: string;
  /** The OIDC issuer, or the application for DISCORD_BOT. */
  provider_id: string | null;
  /** The user's ID at the provider; only to the user themself (with `identify`) and the application's bot. */
  provider_issued_user_id?: string;
  username: string | null;
  /** As the provider gave it (an OIDC `picture` claim is a URL). */
  avatar_hash: string | null;
  metadata: string | null;
}

export interface LobbyMember {
  id: Snowflake;
  metadata: Metadata | null;
  /** Bit 0 = CanLinkLobby. */
  flags: number;
  additional_name?: string | null;
  /** Our extension: whether the member has a live Gateway session now (LobbyMemberHandle.connected). */
  connected: boolean;
  /** Our extension: the member's user object, so clients can show names without another request. */
  user?: User;
}

export interface Lobby {
  id: Snowflake;
  application_id: Snowflake;
  metadata: Metadata | null;
  members: LobbyMember[];
  linked_channel?: unknown;
  /** Our extension: who is in the lobby's call now (VOICE_STATE_UPDATE keeps it current). */
  voice_states?: import('./voice.ts').VoiceState[];
}

export interface LobbyMessage {
  id: Snowflake;
  type: number;
  content: string;
  lobby_id: Snowflake;
  channel_id: Snowflake;
  author: User;
  lobby_member?: { additional_name: string | null };
  metadata?: Metadata;
  moderation_metadata?: Metadata;
  flags: number;
  application_id: Snowflake;
  /** ISO 8601, as the public message object. */
  timestamp: string;
}

export interface ReadyData {
  v: number;
  user: User;
  session_id: string;
  resume_gateway_url: string;
  application: { id: Snowflake; flags: number };
  guilds: { id: Snowflake; unavailable: true }[];
  /** Every lobby the user is a member of in this application, with members (lobby reconciliation). */
  lobbies: Lobby[];
}

export interface LobbyMemberEventData {
  lobby_id: Snowflake;
  member: LobbyMember;
}

export interface LobbyDeleteData {
  id: Snowflake;
  application_id: Snowflake;
}

/** Token endpoint and provisional-token response (protocols.md 2.7). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
}

/** `PUT /lobbies` body. */
export interface CreateOrJoinLobbyBody {
  secret: string;
  idle_timeout_seconds?: number;
  lobby_metadata?: Metadata | null;
  member_metadata?: Metadata | null;
}

/** `POST /lobbies/{id}/messages` body. */
export interface SendLobbyMessageBody {
  content: string;
  metadata?: Metadata;
  flags?: number;
}

/** `PUT /lobbies/{id}/members/{user_id}` body. */
export interface UpsertLobbyMemberBody {
  metadata?: Metadata | null;
  flags?: number;
  additional_name?: string | null;
}

/** One element of `POST /lobbies/{id}/members/bulk`. */
export interface BulkLobbyMemberBody extends UpsertLobbyMemberBody {
  id: Snowflake;
  remove_member?: boolean;
}

/** `POST /partner-sdk/token/bot` body. */
export interface BotProvisionalTokenBody {
  external_user_id: string;
  preferred_global_name?: string;
}

/** `POST /partner-sdk/token` body (external credentials, or the public-client device path). */
export interface ProvisionalTokenBody {
  client_id: Snowflake;
  client_secret?: string;
  external_auth_type: string;
  external_auth_token: string;
  preferred_global_name?: string;
}
