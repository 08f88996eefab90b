/**
 * JSON shapes of relationships, presence, activities, invites and direct messages (snake_case,
 * as the public API). Activity and presence follow the public Gateway objects (protocols.md 1.6,
 * 1.11); fields marked "ours" are extensions where the public shapes have nothing.
 */
import type { PresenceStatus } from './socialEnums.ts';
import type { Metadata, Snowflake, User } from './wire.ts';

export interface ActivityTimestampsWire {
  /** ms since the epoch. */
  start?: number;
  end?: number;
}

export interface ActivityAssetsWire {
  large_image?: string;
  large_text?: string;
  large_url?: string;
  small_image?: string;
  small_text?: string;
  small_url?: string;
  /** Banner of game invites sent while this activity is set (falls back to the application's cover). */
  invite_cover_image?: string;
}

export interface ActivityPartyWire {
  id?: string;
  /** `[current, max]`; max 0 = no maximum shown. */
  size?: [number, number];
  /** ActivityPartyPrivacy (ours: the public object carries party privacy in `flags`). */
  privacy?: number;
}

export interface ActivitySecretsWire {
  join?: string;
}

export interface ActivityButtonWire {
  label: string;
  url: string;
}

/** A rich-presence activity. `secrets` are never sent to other users (PRESENCE_UPDATE strips them). */
export interface ActivityWire {
  name: string;
  type: number;
  /** ms since the epoch; set by the server. */
  created_at?: number;
  /** Set by the server: the application that set the activity. */
  application_id?: Snowflake;
  parent_application_id?: Snowflake | null;
  status_display_type?: number | null;
  state?: string | null;
  state_url?: string | null;
  details?: string | null;
  details_url?: string | null;
  timestamps?: ActivityTimestampsWire;
  assets?: ActivityAssetsWire;
  party?: ActivityPartyWire;
  secrets?: ActivitySecretsWire;
  buttons?: ActivityButtonWire[];
  /** ActivityGamePlatforms bit flags. */
  supported_platforms?: number;
}

/** `PUT /users/@me/activities` body, and op 3 / Identify `presence`. */
export interface UpdatePresenceData {
  since?: number | null;
  activities?: ActivityWire[];
  status?: PresenceStatus;
  afk?: boolean;
}

/** PRESENCE_UPDATE `d`, and each entry of READY `presences`. */
export interface PresenceWire {
  user: { id: Snowflake };
  status: PresenceStatus;
  /** Only activities of the receiving application and its siblings. */
  activities: ActivityWire[];
  client_status: { web?: PresenceStatus };
}

/**
 * One relationship as the current user sees it. `type` is the platform relationship (across
 * games), `game_type` the relationship in the calling application (ours; the public object has
 * only `type`).
 */
export interface RelationshipWire {
  id: Snowflake;
  type: number;
  game_type: number;
  user: User;
  /** ISO 8601: when the current state began. */
  since: string;
  /** The server's spam verdict on an incoming request (see server/README.md for the heuristic). */
  is_spam_request: boolean;
  /** Ours: whether the user has ever connected to the calling application (groups sort on it). */
  has_played_game: boolean;
}

/** RELATIONSHIP_REMOVE `d`: nothing is left between the two users in this application. */
export interface RelationshipRemoveData {
  id: Snowflake;
}

/** READY fields the social features add. */
export interface SocialReadyData {
  relationships?: RelationshipWire[];
  /** Presences of friends as the calling application sees them. */
  presences?: PresenceWire[];
  /** The current user's own chosen status and this application's activity (ours). */
  user_settings?: { status: PresenceStatus };
  /** Valid invites received in the last 6 hours. */
  activity_invites?: ActivityInviteWire[];
}

/** An invite to join (type 1) or a request to join (type 5) a party. */
export interface ActivityInviteWire {
  /** The invite's message ID. */
  id: Snowflake;
  type: number;
  sender_id: Snowflake;
  recipient_id: Snowflake;
  /** The DM channel the invite belongs to. */
  channel_id: Snowflake;
  application_id: Snowflake;
  parent_application_id: Snowflake | null;
  party_id: string;
  session_id: string;
  content: string;
  /** ISO 8601. */
  created_at: string;
  is_valid: boolean;
  /** The sender's activity `invite_cover_image`, else the application's cover, else null. */
  cover_image: string | null;
  /** Deep link that opens the web game and joins the party, when the application has a launch URL. */
  url: string | null;
  sender: User;
}

/** `POST /users/@me/activity-invites/{id}/accept` result. */
export interface AcceptActivityInviteResult {
  secret: string;
  party_id: string;
  application_id: Snowflake;
}

/** A direct message between two users (channel type Dm). */
export interface DirectMessageWire {
  id: Snowflake;
  type: number;
  channel_id: Snowflake;
  channel_type: number;
  author: User;
  recipient_id: Snowflake;
  content: string;
  /** ISO 8601. */
  timestamp: string;
  edited_timestamp: string | null;
  metadata?: Metadata;
  moderation_metadata?: Metadata;
  application_id: Snowflake;
  flags: number;
}

/** MESSAGE_DELETE `d`. */
export interface MessageDeleteData {
  id: Snowflake;
  channel_id: Snowflake;
  author_id: Snowflake;
  recipient_id: Snowflake;
}

/** LOBBY_MESSAGE_UPDATE `d` carries the whole lobby message; see LobbyMessage in wire.ts. */

/** One entry of `GET /users/@me/message-summaries`. */
export interface UserMessageSummaryWire {
  user_id: Snowflake;
  last_message_id: Snowflake;
}

/** `PATCH /applications/@me/social-settings` body and result. */
export interface ApplicationSocialSettingsWire {
  /** The cover image uploaded for invites (asset key or URL); invites fall back to it. */
  cover_image?: string | null;
  /** Where the web game lives; invite deep links are `<launch_url>?invite=<id>`. */
  launch_url?: string | null;
}
