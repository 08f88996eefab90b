/**
 * JSON shapes of relationships, presence, activities, invites and direct messages (snake_case,
 * as the public API). Activity and presence follow the public Gateway objects (protocols.md 1.6,
 * 1.11); fields marked "ours" are extensions where the public shapes have nothing.
 */
import type { PresenceStatus } from './socialEnums.ts';
import type { Metadata, Snowflake, User } from './wire.ts';

/** Rich presence timestamps on the wire: when the activity started and will end. */
export interface ActivityTimestampsWire {
  /** ms since the epoch. */
  start?: number;
  /** When it ends (ms since the epoch). */
  end?: number;
}

/** Rich presence images on the wire: asset keys or URLs, with their hover texts. */
export interface ActivityAssetsWire {
  /** The large image: an asset key or a URL. */
  large_image?: string;
  /** The large image's hover text. */
  large_text?: string;
  /** Where clicking the large image leads. */
  large_url?: string;
  /** The small image: an asset key or a URL. */
  small_image?: string;
  /** The small image's hover text. */
  small_text?: string;
  /** Where clicking the small image leads. */
  small_url?: string;
  /** Banner of game invites sent while this activity is set (falls back to the application's cover). */
  invite_cover_image?: string;
}

/** Rich presence party on the wire: its ID and `[current, max]` size. */
export interface ActivityPartyWire {
  /** The party ID. */
  id?: string;
  /** `[current, max]`; max 0 = no maximum shown. */
  size?: [number, number];
  /** ActivityPartyPrivacy (ours: the public object carries party privacy in `flags`). */
  privacy?: number;
}

/** Rich presence secrets on the wire: the join secret friends use to join the party. */
export interface ActivitySecretsWire {
  /** The secret that joins the party (a lobby secret). */
  join?: string;
}

/** A rich presence button on the wire: its label and the URL it opens. */
export interface ActivityButtonWire {
  /** The button's text. */
  label: string;
  /** What it opens. */
  url: string;
}

/** A rich-presence activity. `secrets` are never sent to other users (PRESENCE_UPDATE strips them). */
export interface ActivityWire {
  /** The name shown (the application's, unless overridden). */
  name: string;
  /** ActivityTypes: Playing, Listening, Watching or Competing. */
  type: number;
  /** ms since the epoch; set by the server. */
  created_at?: number;
  /** Set by the server: the application that set the activity. */
  application_id?: Snowflake;
  /** The parent application, for a child application. */
  parent_application_id?: Snowflake | null;
  /** Which field is the status text (StatusDisplayTypes). */
  status_display_type?: number | null;
  /** The party state ("In a group"). */
  state?: string | null;
  /** Where the state text links to. */
  state_url?: string | null;
  /** What the player is doing. */
  details?: string | null;
  /** Where the details text links to. */
  details_url?: string | null;
  /** When it started and ends. */
  timestamps?: ActivityTimestampsWire;
  /** Its images. */
  assets?: ActivityAssetsWire;
  /** The party friends can join. */
  party?: ActivityPartyWire;
  /** The join secret (never sent to other users). */
  secrets?: ActivitySecretsWire;
  /** Up to two buttons. */
  buttons?: ActivityButtonWire[];
  /** ActivityGamePlatforms bit flags. */
  supported_platforms?: number;
}

/** `PUT /users/@me/activities` body, and op 3 / Identify `presence`. */
export interface UpdatePresenceData {
  /** When the user went idle (ms since the epoch), or null. */
  since?: number | null;
  /** The activities to show (this application's). */
  activities?: ActivityWire[];
  /** The status to show. */
  status?: PresenceStatus;
  /** Whether the user is away from the keyboard. */
  afk?: boolean;
}

/** PRESENCE_UPDATE `d`, and each entry of READY `presences`. */
export interface PresenceWire {
  /** The user. */
  user: {
    /** The user's ID (the only user field sent). */
    id: Snowflake;
  };
  /** Their status. */
  status: PresenceStatus;
  /** Only activities of the receiving application and its siblings. */
  activities: ActivityWire[];
  /** Their status per client platform (`web` here). */
  client_status: {
    /** Their status on the web client (every SDK session counts as web); absent when offline. */
    web?: PresenceStatus;
  };
}

/**
 * One relationship as the current user sees it. `type` is the platform relationship (across
 * games), `game_type` the relationship in the calling application (ours; the public object has
 * only `type`).
 */
export interface RelationshipWire {
  /** The other user's ID. */
  id: Snowflake;
  /** The platform relationship (RelationshipType: friend, blocked, incoming or outgoing request, ...). */
  type: number;
  /** The relationship in the calling application (RelationshipType). */
  game_type: number;
  /** The other user. */
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
  /** The other user's ID. */
  id: Snowflake;
}

/** READY fields the social features add. */
export interface SocialReadyData {
  /** Every relationship of the current user. */
  relationships?: RelationshipWire[];
  /** Presences of friends as the calling application sees them. */
  presences?: PresenceWire[];
  /** The current user's own chosen status and this application's activity (ours). */
  user_settings?: {
    /** The status the user chose (`invisible` included), as last set with Update Presence. */
    status: PresenceStatus;
  };
  /** Valid invites received in the last 6 hours. */
  activity_invites?: ActivityInviteWire[];
}

/** An invite to join (type 1) or a request to join (type 5) a party. */
export interface ActivityInviteWire {
  /** The invite's message ID. */
  id: Snowflake;
  /** 1: an invite to join; 5: a request to join. */
  type: number;
  /** Who sent it. */
  sender_id: Snowflake;
  /** Who received it. */
  recipient_id: Snowflake;
  /** The DM channel the invite belongs to. */
  channel_id: Snowflake;
  /** The application the party is in. */
  application_id: Snowflake;
  /** Its parent application, if any. */
  parent_application_id: Snowflake | null;
  /** The party it is for. */
  party_id: string;
  /** The sender's presence session for that activity. */
  session_id: string;
  /** The message that came with it. */
  content: string;
  /** ISO 8601. */
  created_at: string;
  /** Whether it can still be accepted: not expired, and the sender still has that party with a join secret. */
  is_valid: boolean;
  /** The sender's activity `invite_cover_image`, else the application's cover, else null. */
  cover_image: string | null;
  /** Deep link that opens the web game and joins the party, when the application has a launch URL. */
  url: string | null;
  /** The sender's user object. */
  sender: User;
}

/** `POST /users/@me/activity-invites/{id}/accept` result. */
export interface AcceptActivityInviteResult {
  /** The join secret: pass it to createOrJoinLobby. */
  secret: string;
  /** The party. */
  party_id: string;
  /** The application the party is in. */
  application_id: Snowflake;
}

/** A direct message between two users (channel type Dm). */
export interface DirectMessageWire {
  /** The message ID. */
  id: Snowflake;
  /** The message type (0: default). */
  type: number;
  /** The DM channel. */
  channel_id: Snowflake;
  /** The channel type (Dm, or an ephemeral DM). */
  channel_type: number;
  /** Who sent it. */
  author: User;
  /** Who it was sent to. */
  recipient_id: Snowflake;
  /** The text. */
  content: string;
  /** ISO 8601. */
  timestamp: string;
  /** When it was last edited (ISO 8601), or null. */
  edited_timestamp: string | null;
  /** String metadata the sender attached. */
  metadata?: Metadata;
  /** Metadata moderation attached. */
  moderation_metadata?: Metadata;
  /** The application it was sent through. */
  application_id: Snowflake;
  /** Message flag bits. */
  flags: number;
}

/** MESSAGE_DELETE `d`. */
export interface MessageDeleteData {
  /** The deleted message's ID. */
  id: Snowflake;
  /** Its channel. */
  channel_id: Snowflake;
  /** Its author. */
  author_id: Snowflake;
  /** Its recipient. */
  recipient_id: Snowflake;
}

/** LOBBY_MESSAGE_UPDATE `d` carries the whole lobby message; see LobbyMessage in wire.ts. */

/** One entry of `GET /users/@me/message-summaries`. */
export interface UserMessageSummaryWire {
  /** The other user of the conversation. */
  user_id: Snowflake;
  /** The newest message's ID. */
  last_message_id: Snowflake;
}

/** `PATCH /applications/@me/social-settings` body and result. */
export interface ApplicationSocialSettingsWire {
  /** The cover image uploaded for invites (asset key or URL); invites fall back to it. */
  cover_image?: string | null;
  /** Where the web game lives; invite deep links are `<launch_url>?invite=<id>`. */
  launch_url?: string | null;
}
