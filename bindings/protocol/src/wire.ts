/**
 * JSON shapes on the wire (snake_case, as the public API). IDs are snowflake strings.
 * Sources: reference/protocols.md 1.3-1.8 (Gateway) and 2.6-2.7 (REST lobbies, tokens).
 */

export type Snowflake = string;
/** String key-value metadata of lobbies, members and messages. */
export type Metadata = Record<string, string>;

/** One Gateway frame: opcode, data, and for dispatches (op 0) the sequence number and event name. */
export interface GatewayPayload<D = unknown> {
  /** The opcode. */
  op: number;
  /** The data. */
  d: D;
  /** The sequence number of a dispatch (op 0); null otherwise. */
  s: number | null;
  /** The event name of a dispatch (`READY`, `LOBBY_MESSAGE_CREATE`, ...); null otherwise. */
  t: string | null;
}

/** Hello (op 10): how often the client must send heartbeats, in milliseconds. */
export interface HelloData {
  /** Milliseconds between heartbeats. */
  heartbeat_interval: number;
}

/** Identify (op 2): the token that starts a new Gateway session, with the client's properties and intents. */
export interface IdentifyData {
  /** The access token (a bot token with its `Bot ` prefix for bots). */
  token: string;
  /** What the client runs on. */
  properties: {
    /** The operating system (`process.platform` in Node, `browser` in a page). */
    os: string;
    /** The client library (`@social-layer/client` for the SDK, `@discordjs/ws <version>` for discord.js). */
    browser: string;
    /** The device, or the library again as SDK clients and discord.js send it. */
    device: string;
  };
  /** The event groups the session wants (bit flags). */
  intents?: number;
  /** Whether the client asks for compressed payloads. */
  compress?: boolean;
  /** Member count above which a guild's offline members are left out. */
  large_threshold?: number;
  /** Client capability bits (for example 1 << 15: understands obfuscated channels). */
  capabilities?: number;
}

/** Resume (op 6): continue a session after a cut, replaying what was dispatched after `seq`. */
export interface ResumeData {
  /** The same token as the Identify. */
  token: string;
  /** The session to resume (from READY). */
  session_id: string;
  /** The last sequence number received. */
  seq: number;
}

/** A user object, as the HTTP API and the Gateway send it. */
export interface User {
  /** The user ID. */
  id: Snowflake;
  /** The unique username. */
  username: string;
  /** The display name, when set. */
  global_name: string | null;
  /** The avatar image's hash, when set. */
  avatar: string | null;
  /** Always `0` (usernames are unique). */
  discriminator: string;
  /** Whether this is a bot user. */
  bot: boolean;
  /** True for provisional (guest) accounts. */
  is_provisional: boolean;
  /**
   * Game profiles of the user's external identities for the application of the token that
   * reads them (UserApplicationProfileHandle); on the user's own object (READY, GET /users/@me).
   */
  application_profiles?: UserApplicationProfile[];
  /** The guild tag the user shows beside their name (spec, User); present once they chose one. */
  primary_guild?: UserPrimaryGuild;
}

/** `primary_guild` of a user: the public shape. `tag` is 1 to 4 characters. */
export interface UserPrimaryGuild {
  /** The guild whose tag is shown. */
  identity_guild_id: Snowflake | null;
  /** Null when the system cleared it (the user left the guild, or the guild dropped its tag). */
  identity_enabled: boolean | null;
  /** The tag (1 to 4 letters or digits). */
  tag: string | null;
  /** The badge image's hash. */
  badge: string | null;
}

/** One external identity's profile as its provider gave it (issue 19). */
export interface UserApplicationProfile {
  /** ExternalIdentityProviderType by name: OIDC, EPIC_ONLINE_SERVICES, STEAM, UNITY, DISCORD_BOT. */
  provider_type: string;
  /** The OIDC issuer, or the application for DISCORD_BOT. */
  provider_id: string | null;
  /** The user's ID at the provider; only to the user themself (with `identify`) and the application's bot. */
  provider_issued_user_id?: string;
  /** The name the provider gave. */
  username: string | null;
  /** As the provider gave it (an OIDC `picture` claim is a URL). */
  avatar_hash: string | null;
  /** Developer-set data for this profile. */
  metadata: string | null;
}

/** A lobby member: the user, their member metadata and flags, and whether they are connected. */
export interface LobbyMember {
  /** The member's user ID. */
  id: Snowflake;
  /** The member's metadata in this lobby. */
  metadata: Metadata | null;
  /** Bit 0 = CanLinkLobby. */
  flags: number;
  /** A name for this member in this lobby only, when set. */
  additional_name?: string | null;
  /** Our extension: whether the member has a live Gateway session now (LobbyMemberHandle.connected). */
  connected: boolean;
  /** Our extension: the member's user object, so clients can show names without another request. */
  user?: User;
}

/** A lobby object: its metadata and members. */
export interface Lobby {
  /** The lobby ID. */
  id: Snowflake;
  /** The application the lobby belongs to. */
  application_id: Snowflake;
  /** The lobby's metadata. */
  metadata: Metadata | null;
  /** Its members. */
  members: LobbyMember[];
  /** The guild channel the lobby is linked to, if any. */
  linked_channel?: LinkedChannelWire | null;
  /** Our extension: who is in the lobby's call now (VOICE_STATE_UPDATE keeps it current). */
  voice_states?: import('./voice.ts').VoiceState[];
}

/** A message in a lobby's chat. */
export interface LobbyMessage {
  /** The message ID. */
  id: Snowflake;
  /** The message type (0: default). */
  type: number;
  /** The text. */
  content: string;
  /** The lobby it was sent in. */
  lobby_id: Snowflake;
  /** The lobby's channel (its ID is the lobby's). */
  channel_id: Snowflake;
  /** Who sent it. */
  author: User;
  /** The author's lobby-only name, if any. */
  lobby_member?: {
    /** The author's name in this lobby only, or null when they have none. */
    additional_name: string | null;
  };
  /** String metadata the sender attached. */
  metadata?: Metadata;
  /** Metadata moderation attached. */
  moderation_metadata?: Metadata;
  /** Message flag bits. */
  flags: number;
  /** The application it was sent through. */
  application_id: Snowflake;
  /** ISO 8601, as the public message object. */
  timestamp: string;
  /** Ours (linked channels, issue 12): the copy of this message in the lobby's linked guild channel and which side it was written on. */
  linked_message?: LinkedMessageRef;
  /** Ours: set once a mirrored message was edited in the linked channel (ISO 8601). */
  edited_timestamp?: string | null;
  /** Ours: what a lobby cannot show of a message written in the guild (attachments, embeds...): AdditionalContentType and count. */
  additional_content?: {
    /** What kind of content it is (AdditionalContentType: 1 attachment, 2 poll, 5 embed ...). */
    type: number;
    /** How many of them the message holds. */
    count: number;
    /** A poll's or thread's name, or an embed's title, when there is one. */
    title?: string;
  };
}

/** Ours: where a lobby message's copy lives in the linked channel; `origin` is where it was written. */
export interface LinkedMessageRef {
  /** The copy's message ID. */
  id: Snowflake;
  /** The linked channel. */
  channel_id: Snowflake;
  /** The linked channel's guild. */
  guild_id: Snowflake;
  /** Where the message was written: in the lobby or in the channel. */
  origin: 'lobby' | 'channel';
}

/** The lobby object's `linked_channel` (LinkedChannel of social-sdk-api.md 6.4; `type` is ours). */
export interface LinkedChannelWire {
  /** The channel ID. */
  id: Snowflake;
  /** The channel's name. */
  name: string;
  /** Its guild. */
  guild_id: Snowflake;
  /** The channel type. */
  type?: number;
}

/** READY: the session's user, its ID and resume URL, and the state the client starts from. */
export interface ReadyData {
  /** The Gateway version (10). */
  v: number;
  /** The session's user. */
  user: User;
  /** The session ID, for Resume. */
  session_id: string;
  /** Where to reconnect to resume. */
  resume_gateway_url: string;
  /** The application of the token: its ID and flags. */
  application: {
    /** The application's ID. */
    id: Snowflake;
    /** The application's flags (bit field). */
    flags: number;
  };
  /** The user's guilds, unavailable until their GUILD_CREATE. */
  guilds: {
    /** The guild's ID. */
    id: Snowflake;
    /** Always true here: the guild's data follows in its own GUILD_CREATE. */
    unavailable: true;
  }[];
  /** The user's DM and group DM channels (public Channel objects): empty for bots and for a game's token, which may not use DMs. */
  private_channels: Record<string, unknown>[];
  /** Always `normal` (public field). */
  session_type: 'normal';
  /** Every lobby the user is a member of in this application, with members (lobby reconciliation). */
  lobbies: Lobby[];
}

/** LOBBY_MEMBER_ADD, _UPDATE and _REMOVE: the lobby and the member. */
export interface LobbyMemberEventData {
  /** The lobby. */
  lobby_id: Snowflake;
  /** The member. */
  member: LobbyMember;
}

/** LOBBY_DELETE: the lobby that is gone. */
export interface LobbyDeleteData {
  /** The lobby ID. */
  id: Snowflake;
  /** Its application. */
  application_id: Snowflake;
}

/** Token endpoint and provisional-token response (protocols.md 2.7). */
export interface TokenResponse {
  /** The access token. */
  access_token: string;
  /** Always Bearer. */
  token_type: 'Bearer';
  /** Seconds until the access token expires. */
  expires_in: number;
  /** The scopes granted, space-separated. */
  scope: string;
  /** A refresh token (not for provisional tokens). */
  refresh_token?: string;
  /** An OpenID Connect ID token, with the `openid` scope. */
  id_token?: string;
}

/** `PUT /lobbies` body. */
export interface CreateOrJoinLobbyBody {
  /** The lobby secret: the same secret joins the same lobby. */
  secret: string;
  /** How long the lobby lives with nobody connected. */
  idle_timeout_seconds?: number;
  /** The lobby's metadata. */
  lobby_metadata?: Metadata | null;
  /** The joining member's metadata. */
  member_metadata?: Metadata | null;
}

/** `POST /lobbies/{id}/messages` body. */
export interface SendLobbyMessageBody {
  /** The text. */
  content: string;
  /** String metadata to attach. */
  metadata?: Metadata;
  /** Message flag bits. */
  flags?: number;
}

/** `PUT /lobbies/{id}/members/{user_id}` body. */
export interface UpsertLobbyMemberBody {
  /** The member's metadata. */
  metadata?: Metadata | null;
  /** Member flags (bit 0: CanLinkLobby). */
  flags?: number;
  /** A name for the member in this lobby only. */
  additional_name?: string | null;
}

/** One element of `POST /lobbies/{id}/members/bulk`. */
export interface BulkLobbyMemberBody extends UpsertLobbyMemberBody {
  /** The member's user ID. */
  id: Snowflake;
  /** Remove this member instead. */
  remove_member?: boolean;
}

/** `POST /partner-sdk/token/bot` body. */
export interface BotProvisionalTokenBody {
  /** The player's ID in the game's own account system. */
  external_user_id: string;
  /** The display name to give a new provisional account. */
  preferred_global_name?: string;
}

/** `POST /partner-sdk/token` body (external credentials, or the public-client device path). */
export interface ProvisionalTokenBody {
  /** The application (client) ID. */
  client_id: Snowflake;
  /** The client secret (confidential clients). */
  client_secret?: string;
  /** The kind of external credential (`OIDC`, `STEAM_SESSION_TICKET`, ...). */
  external_auth_type: string;
  /** The external credential itself. */
  external_auth_token: string;
  /** The display name to give a new provisional account. */
  preferred_global_name?: string;
}
