/**
 * Limits of the social features. Activity field lengths are the native header's
 * (social-sdk-api.md 4.1); the others are ours where the sources give none, and each is written
 * down in server/README.md.
 */
export const SocialLimits = {
  /** Activity `name` (the application-name override): our choice, as the public activity name. */
  activityNameMinLength: 1,
  /** Longest activity `name`, in characters. */
  activityNameMaxLength: 128,
  /** `state`, `details`, `assets.large_text`, `assets.small_text`. */
  activityTextMinLength: 2,
  /** Longest of those texts, in characters. */
  activityTextMaxLength: 128,
  /** `state_url`, `details_url`. */
  activityLinkMinLength: 2,
  /** Longest of those links, in characters. */
  activityLinkMaxLength: 256,
  /** `assets.large_url`, `assets.small_url`. */
  assetUrlMinLength: 1,
  /** Longest asset link, in characters. */
  assetUrlMaxLength: 256,
  /** `assets.large_image`, `assets.small_image`, `assets.invite_cover_image` (asset key or URL). */
  assetImageMinLength: 1,
  /** Longest image asset key or URL, in characters. */
  assetImageMaxLength: 300,
  /** `party.id` and `secrets.join`. */
  partyIdMinLength: 2,
  /** Longest party ID, in characters. */
  partyIdMaxLength: 128,
  /** Shortest join secret (`secrets.join`), in characters. */
  joinSecretMinLength: 2,
  /** Longest join secret, in characters. */
  joinSecretMaxLength: 128,
  /** Largest `party.size` value (current or max): an int32. */
  partySizeMax: 2_147_483_647,
  /** Up to two buttons per activity. */
  activityButtonsMax: 2,
  /** Button label and URL: the public limits of activity buttons. */
  buttonLabelMinLength: 1,
  /** Longest button label, in characters. */
  buttonLabelMaxLength: 32,
  /** Shortest button URL, in characters. */
  buttonUrlMinLength: 1,
  /** Longest button URL, in characters. */
  buttonUrlMaxLength: 512,
  /** Timestamps below this are seconds and are converted to milliseconds (header: "small values"). */
  timestampSecondsBelow: 100_000_000_000,
  /** An invite is valid for 6 hours, and only while the sender still plays in that party. */
  inviteValidityMs: 6 * 60 * 60 * 1000,
  /** Free text sent with an invite; may be empty. */
  inviteContentMaxLength: 1024,
  /** Direct message history per read, and its age window (as lobby history). */
  directMessagesMaxPerRead: 200,
  /** Direct messages a history read returns when `limit` is not given. */
  directMessagesDefaultPerRead: 50,
  /** Oldest direct message a history read returns: 72 hours, in milliseconds. */
  directHistoryMaxAgeMs: 72 * 60 * 60 * 1000,
  /** Moderation metadata (protocols.md 2.6): at most 5 keys, key <= 1024 and value <= 2000 chars. */
  moderationMetadataMaxKeys: 5,
  /** Longest moderation metadata key, in characters. */
  moderationKeyMaxLength: 1024,
  /** Longest moderation metadata value, in characters. */
  moderationValueMaxLength: 2000,
  /** Username lookups for friend requests. */
  usernameMaxLength: 64,
  /** Spam heuristic: this many requests in the window before a new one marks it as spam. */
  spamRequestsPerWindow: 5,
  /** That window: 10 minutes, in milliseconds. */
  spamWindowMs: 10 * 60 * 1000,
  /** A request re-sent within this time after the recipient rejected one is spam. */
  spamAfterRejectMs: 24 * 60 * 60 * 1000,
} as const;

/**
 * Dispatch names of the social features. RELATIONSHIP_* and PRESENCE_UPDATE, MESSAGE_* follow the
 * public Gateway's names; ACTIVITY_INVITE_* and LOBBY_MESSAGE_UPDATE are ours (the realtime
 * protocol of SDK clients is not public, protocols.md 8).
 */
export const SocialDispatchEvent = {
  /** A relationship appeared for the user: a friend request sent or received, or a block (a RelationshipWire). */
  RelationshipAdd: 'RELATIONSHIP_ADD',
  /** A relationship changed: its platform or game type (a request accepted, a friend blocked) or its spam flag. */
  RelationshipUpdate: 'RELATIONSHIP_UPDATE',
  /** A relationship ended (`{id}`, the other user): request cancelled or rejected, friend removed, unblocked. */
  RelationshipRemove: 'RELATIONSHIP_REMOVE',
  /** A friend's status or activities changed, as the receiving application sees them (PresenceWire). */
  PresenceUpdate: 'PRESENCE_UPDATE',
  /** A direct message to or from the user. */
  MessageCreate: 'MESSAGE_CREATE',
  /** A direct message was edited. */
  MessageUpdate: 'MESSAGE_UPDATE',
  /** A direct message was deleted (`id`, `channel_id`). */
  MessageDelete: 'MESSAGE_DELETE',
  /** Ours: a lobby message changed: its moderation metadata was set, or its copy in the linked channel was edited. */
  LobbyMessageUpdate: 'LOBBY_MESSAGE_UPDATE',
  /** Ours: the user received an invite or a request to join (ActivityInviteWire). */
  ActivityInviteCreate: 'ACTIVITY_INVITE_CREATE',
  /** Ours: an invite the user received turned valid or invalid as the sender's activity changed. */
  ActivityInviteUpdate: 'ACTIVITY_INVITE_UPDATE',
} as const;
export type SocialDispatchEvent = (typeof SocialDispatchEvent)[keyof typeof SocialDispatchEvent];
