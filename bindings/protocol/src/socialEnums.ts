/**
 * Enums of the social graph, presence and invites, with the native SDK's values
 * (reference/social-sdk-api.md sections 3-5), plus the wire strings where the public API uses
 * strings instead of numbers (presence status).
 */

/** RelationshipType: what a user is to the current user, for platform and for game relationships. */
export const RelationshipType = {
  /** No relationship. */
  None: 0,
  /** Friends. */
  Friend: 1,
  /** The current user blocked this user (always a platform relationship, across games). */
  Blocked: 2,
  /** This user sent the current user a friend request. */
  PendingIncoming: 3,
  /** The current user sent this user a friend request. */
  PendingOutgoing: 4,
  /** Unused by the SDK (the header says so); never sent by our server. */
  Implicit: 5,
  /** Unused by the SDK; never sent by our server. */
  Suggestion: 6,
} as const;
export type RelationshipType = (typeof RelationshipType)[keyof typeof RelationshipType];

/** RelationshipGroupType: the sections of a friends list (GetRelationshipsByGroup). */
export const RelationshipGroupType = {
  /** Online and playing this game. */
  OnlinePlayingGame: 0,
  /** Online but not in this game (those who played it before first). */
  OnlineElsewhere: 1,
  /** Offline. */
  Offline: 2,
} as const;
export type RelationshipGroupType = (typeof RelationshipGroupType)[keyof typeof RelationshipGroupType];

/** StatusType: a user's online status as UserHandle.status() reports it. */
export const StatusType = {
  /** Online (Gateway `online`). */
  Online: 0,
  /** Offline (Gateway `offline`). */
  Offline: 1,
  /** The current user blocked this user: their status is not shown. */
  Blocked: 2,
  /** Away (Gateway `idle`). */
  Idle: 3,
  /** Do not disturb (Gateway `dnd`). */
  Dnd: 4,
  /** Online but shown as offline to others (Gateway `invisible`; only the user's own). */
  Invisible: 5,
  /** Streaming (the native SDK's; no Gateway status maps to it). */
  Streaming: 6,
  /** Not known: not a friend, no presence seen, or the client is destroyed. */
  Unknown: 7,
} as const;
export type StatusType = (typeof StatusType)[keyof typeof StatusType];

/** Presence status strings of the Gateway (protocols.md 1.6, Update Presence `status`). */
export type PresenceStatus = 'online' | 'idle' | 'dnd' | 'invisible' | 'offline';

/** The Gateway status string of each SDK `StatusType` (those that have one). */
export const STATUS_TO_WIRE: Partial<Record<StatusType, PresenceStatus>> = {
  [StatusType.Online]: 'online',
  [StatusType.Offline]: 'offline',
  [StatusType.Idle]: 'idle',
  [StatusType.Dnd]: 'dnd',
  [StatusType.Invisible]: 'invisible',
};

/** The SDK `StatusType` of each Gateway status string. */
export const STATUS_FROM_WIRE: Record<PresenceStatus, StatusType> = {
  online: StatusType.Online,
  offline: StatusType.Offline,
  idle: StatusType.Idle,
  dnd: StatusType.Dnd,
  invisible: StatusType.Invisible,
};

/** ActivityTypes. Rich presence accepts only Playing, Listening, Watching and Competing. */
export const ActivityTypes = {
  /** "Playing {name}": what a game almost always sets. */
  Playing: 0,
  /** "Streaming {details}"; not settable by games. */
  Streaming: 1,
  /** "Listening to {name}". */
  Listening: 2,
  /** "Watching {name}". */
  Watching: 3,
  /** A user's custom status; not settable by games. */
  CustomStatus: 4,
  /** "Competing in {name}". */
  Competing: 5,
  /** A hang status in voice; not settable by games. */
  HangStatus: 6,
} as const;
export type ActivityTypes = (typeof ActivityTypes)[keyof typeof ActivityTypes];

/** The activity types a game may set (spec: Activity types Playing 0, Listening 2, Watching 3, Competing 5). */
export const SETTABLE_ACTIVITY_TYPES: readonly number[] = [
  ActivityTypes.Playing,
  ActivityTypes.Listening,
  ActivityTypes.Watching,
  ActivityTypes.Competing,
];

/** StatusDisplayTypes: which activity field is shown as the user's status text. */
export const StatusDisplayTypes = {
  /** The activity's `name` (the game's name by default). */
  Name: 0,
  /** The activity's `state`. */
  State: 1,
  /** The activity's `details`. */
  Details: 2,
} as const;
export type StatusDisplayTypes = (typeof StatusDisplayTypes)[keyof typeof StatusDisplayTypes];

/** ActivityPartyPrivacy. */
export const ActivityPartyPrivacy = {
  /** Only friends may ask to join; the default, and what other users' parties read as. */
  Private: 0,
  /** Anyone who sees the activity may ask to join. */
  Public: 1,
} as const;
export type ActivityPartyPrivacy = (typeof ActivityPartyPrivacy)[keyof typeof ActivityPartyPrivacy];

/** ActivityActionTypes: the kind of an ActivityInvite. */
export const ActivityActionTypes = {
  /** Not a valid invite. */
  Invalid: 0,
  /** An invite to join the sender's party. */
  Join: 1,
  /** A request from the sender to join the receiver's party. */
  JoinRequest: 5,
} as const;
export type ActivityActionTypes = (typeof ActivityActionTypes)[keyof typeof ActivityActionTypes];

/** ActivityGamePlatforms (bit flags): where an activity is joinable. */
export const ActivityGamePlatforms = {
  /** Desktop computers. */
  Desktop: 1,
  /** Xbox consoles. */
  Xbox: 2,
  /** Samsung devices. */
  Samsung: 4,
  /** iOS; mobile invites open the deep link configured in the portal. */
  IOS: 8,
  /** Android; mobile invites open the deep link configured in the portal. */
  Android: 16,
  /** An embedded activity in the client. */
  Embedded: 32,
  /** PlayStation 4. */
  PS4: 64,
  /** PlayStation 5. */
  PS5: 128,
} as const;
export type ActivityGamePlatforms = (typeof ActivityGamePlatforms)[keyof typeof ActivityGamePlatforms];
