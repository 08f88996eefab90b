/**
 * Enums of the social graph, presence and invites, with the native SDK's values
 * (reference/social-sdk-api.md sections 3-5), plus the wire strings where the public API uses
 * strings instead of numbers (presence status).
 */

/** RelationshipType: what a user is to the current user, for platform and for game relationships. */
export const RelationshipType = {
  None: 0,
  Friend: 1,
  Blocked: 2,
  PendingIncoming: 3,
  PendingOutgoing: 4,
  /** Unused by the SDK (the header says so); never sent by our server. */
  Implicit: 5,
  /** Unused by the SDK; never sent by our server. */
  Suggestion: 6,
} as const;
export type RelationshipType = (typeof RelationshipType)[keyof typeof RelationshipType];

/** RelationshipGroupType: the sections of a friends list (GetRelationshipsByGroup). */
export const RelationshipGroupType = {
  OnlinePlayingGame: 0,
  OnlineElsewhere: 1,
  Offline: 2,
} as const;
export type RelationshipGroupType = (typeof RelationshipGroupType)[keyof typeof RelationshipGroupType];

/** StatusType: a user's online status as UserHandle.status() reports it. */
export const StatusType = {
  Online: 0,
  Offline: 1,
  Blocked: 2,
  Idle: 3,
  Dnd: 4,
  Invisible: 5,
  Streaming: 6,
  Unknown: 7,
} as const;
export type StatusType = (typeof StatusType)[keyof typeof StatusType];

/** Presence status strings of the Gateway (protocols.md 1.6, Update Presence `status`). */
export type PresenceStatus = 'online' | 'idle' | 'dnd' | 'invisible' | 'offline';

export const STATUS_TO_WIRE: Partial<Record<StatusType, PresenceStatus>> = {
  [StatusType.Online]: 'online',
  [StatusType.Offline]: 'offline',
  [StatusType.Idle]: 'idle',
  [StatusType.Dnd]: 'dnd',
  [StatusType.Invisible]: 'invisible',
};

export const STATUS_FROM_WIRE: Record<PresenceStatus, StatusType> = {
  online: StatusType.Online,
  offline: StatusType.Offline,
  idle: StatusType.Idle,
  dnd: StatusType.Dnd,
  invisible: StatusType.Invisible,
};

/** ActivityTypes. Rich presence accepts only Playing, Listening, Watching and Competing. */
export const ActivityTypes = {
  Playing: 0,
  Streaming: 1,
  Listening: 2,
  Watching: 3,
  CustomStatus: 4,
  Competing: 5,
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
  Name: 0,
  State: 1,
  Details: 2,
} as const;
export type StatusDisplayTypes = (typeof StatusDisplayTypes)[keyof typeof StatusDisplayTypes];

/** ActivityPartyPrivacy. */
export const ActivityPartyPrivacy = {
  Private: 0,
  Public: 1,
} as const;
export type ActivityPartyPrivacy = (typeof ActivityPartyPrivacy)[keyof typeof ActivityPartyPrivacy];

/** ActivityActionTypes: the kind of an ActivityInvite. */
export const ActivityActionTypes = {
  Invalid: 0,
  Join: 1,
  JoinRequest: 5,
} as const;
export type ActivityActionTypes = (typeof ActivityActionTypes)[keyof typeof ActivityActionTypes];

/** ActivityGamePlatforms (bit flags): where an activity is joinable. */
export const ActivityGamePlatforms = {
  Desktop: 1,
  Xbox: 2,
  Samsung: 4,
  IOS: 8,
  Android: 16,
  Embedded: 32,
  PS4: 64,
  PS5: 128,
} as const;
export type ActivityGamePlatforms = (typeof ActivityGamePlatforms)[keyof typeof ActivityGamePlatforms];
