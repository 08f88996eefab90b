/**
 * The few wire numbers the app uses at run time. discord-api-types is imported for types only:
 * its enums are CommonJS objects that would put the whole package (100+ KiB) in the bundle.
 * Each value is checked against the package's enum by server/test/webAppModel.test.ts.
 */
export const Op = { Dispatch: 0, Heartbeat: 1, Identify: 2, Reconnect: 7, InvalidSession: 9, Hello: 10 } as const;
export const Intent = {
  Guilds: 1 << 0, GuildMembers: 1 << 1, GuildInvites: 1 << 6, GuildVoiceStates: 1 << 7,
  GuildMessages: 1 << 9, GuildMessageReactions: 1 << 10, GuildMessageTyping: 1 << 11,
  DirectMessages: 1 << 12, DirectMessageReactions: 1 << 13, DirectMessageTyping: 1 << 14,
} as const;
export const Channel = { GuildText: 0, GuildVoice: 2, GuildCategory: 4, GuildAnnouncement: 5, GuildStageVoice: 13 } as const;
