/** Gateway intents (protocols.md 1.10) that guild dispatches need. */
export const Intent = {
  Guilds: 1 << 0,
  GuildMembers: 1 << 1,
  GuildModeration: 1 << 2,
  GuildExpressions: 1 << 3,
  GuildInvites: 1 << 6,
  GuildPresences: 1 << 8,
  MessageContent: 1 << 15,
} as const;
export const PRIVILEGED_INTENTS = Intent.GuildMembers | Intent.GuildPresences | Intent.MessageContent;

/**
 * Application flags that enable the privileged intents (public values): the plain bit for an
 * approved application, the *_LIMITED bit for one under the 10,000-user threshold that enabled
 * the intent itself (spec, Authentication 10).
 */
export const ApplicationIntentFlag = {
  GatewayPresence: 1 << 12,
  GatewayPresenceLimited: 1 << 13,
  GatewayGuildMembers: 1 << 14,
  GatewayGuildMembersLimited: 1 << 15,
  GatewayMessageContent: 1 << 18,
  GatewayMessageContentLimited: 1 << 19,
} as const;

