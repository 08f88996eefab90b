/**
 * Limits of the social features. Activity field lengths are the native header's
 * (social-sdk-api.md 4.1); the others are ours where the sources give none, and each is written
 * down in server/README.md.
 */
export const SocialLimits = {
  /** Activity `name` (the application-name override): our choice, as the public activity name. */
  activityNameMinLength: 1,
  activityNameMaxLength: 128,
  /** `state`, `details`, `assets.large_text`, `assets.small_text`. */
  activityTextMinLength: 2,
  activityTextMaxLength: 128,
  /** `state_url`, `details_url`. */
  activityLinkMinLength: 2,
  activityLinkMaxLength: 256,
  /** `assets.large_url`, `assets.small_url`. */
  assetUrlMinLength: 1,
  assetUrlMaxLength: 256,
  /** `assets.large_image`, `assets.small_image`, `assets.invite_cover_image` (asset key or URL). */
  assetImageMinLength: 1,
  assetImageMaxLength: 300,
  /** `party.id` and `secrets.join`. */
  partyIdMinLength: 2,
  partyIdMaxLength: 128,
  joinSecretMinLength: 2,
  joinSecretMaxLength: 128,
  partySizeMax: 2_147_483_647,
  /** Up to two buttons per activity. */
  activityButtonsMax: 2,
  /** Button label and URL: the public limits of activity buttons. */
  buttonLabelMinLength: 1,
  buttonLabelMaxLength: 32,
  buttonUrlMinLength: 1,
  buttonUrlMaxLength: 512,
  /** Timestamps below this are seconds and are converted to milliseconds (header: "small values"). */
  timestampSecondsBelow: 100_000_000_000,
  /** An invite is valid for 6 hours, and only while the sender still plays in that party. */
  inviteValidityMs: 6 * 60 * 60 * 1000,
  /** Free text sent with an invite; may be empty. */
  inviteContentMaxLength: 1024,
  /** Direct message history per read, and its age window (as lobby history). */
  directMessagesMaxPerRead: 200,
  directMessagesDefaultPerRead: 50,
  directHistoryMaxAgeMs: 72 * 60 * 60 * 1000,
  /** Moderation metadata (protocols.md 2.6): at most 5 keys, key <= 1024 and value <= 2000 chars. */
  moderationMetadataMaxKeys: 5,
  moderationKeyMaxLength: 1024,
  moderationValueMaxLength: 2000,
  /** Username lookups for friend requests. */
  usernameMaxLength: 64,
  /** Spam heuristic: this many requests in the window before a new one marks it as spam. */
  spamRequestsPerWindow: 5,
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
  RelationshipAdd: 'RELATIONSHIP_ADD',
  RelationshipUpdate: 'RELATIONSHIP_UPDATE',
  RelationshipRemove: 'RELATIONSHIP_REMOVE',
  PresenceUpdate: 'PRESENCE_UPDATE',
  MessageCreate: 'MESSAGE_CREATE',
  MessageUpdate: 'MESSAGE_UPDATE',
  MessageDelete: 'MESSAGE_DELETE',
  LobbyMessageUpdate: 'LOBBY_MESSAGE_UPDATE',
  ActivityInviteCreate: 'ACTIVITY_INVITE_CREATE',
  ActivityInviteUpdate: 'ACTIVITY_INVITE_UPDATE',
} as const;
export type SocialDispatchEvent = (typeof SocialDispatchEvent)[keyof typeof SocialDispatchEvent];
