// Value types of linked channels (social-sdk-api.md 6.4 and 5.2), camelCase over the wire's snake_case.

/** `GuildMinimal`: a guild the user is in. */
export interface GuildMinimal {
  /** The guild's ID. */
  readonly id: string;
  /** The guild's name. */
  readonly name: string;
}

/** `LinkedLobby`: the lobby a guild channel is linked to. */
export interface LinkedLobby {
  /** The application the lobby belongs to (it may be a sibling of the current one). */
  readonly applicationId: string;
  /** The lobby's ID. */
  readonly lobbyId: string;
}

/** `GuildChannel`: a channel of a guild as getGuildChannels lists it. */
export interface GuildChannel {
  /** The channel's ID (what linkChannelToLobby takes). */
  readonly id: string;
  /** The channel's name. */
  readonly name: string;
  /** ChannelType: GuildText 0, GuildVoice 2, GuildCategory 4 ... */
  readonly type: number;
  /** Sort order within the guild, as the web app lists channels; getGuildChannels returns them in this order. */
  readonly position: number;
  /** The category, if any. */
  readonly parentId: string | undefined;
  /** Guild text, not NSFW, not linked elsewhere, and this user has Manage Channels, View Channel and Send Messages. */
  readonly isLinkable: boolean;
  /**
   * Whether every guild member can view and write it. A private channel (false) that gets linked
   * becomes readable and writable by every lobby member: warn the player, or do not offer it.
   */
  readonly isViewableAndWriteableByAllMembers: boolean;
  /** The lobby the channel is already linked to, if any (a channel links to one lobby at most). */
  readonly linkedLobby: LinkedLobby | undefined;
}

/** `LinkedChannel`: the guild channel a lobby is linked to (LobbyHandle.linkedChannel()). */
export interface LinkedChannel {
  /** The channel's ID. */
  readonly id: string;
  /** The channel's name, what ChannelHandle.name() of the lobby reads. */
  readonly name: string;
  /** The guild the channel is in. */
  readonly guildId: string;
}

/** `AdditionalContentType` (social-sdk-api.md 5.2). */
export const AdditionalContentType = {
  /** Content of another kind. */
  Other: 0,
  /** Attached files. */
  Attachment: 1,
  /** A poll; `title` is its question. */
  Poll: 2,
  /** A recorded voice message. */
  VoiceMessage: 3,
  /** A thread started from the message; `title` is its name. */
  Thread: 4,
  /** Embeds (link previews, rich cards); `title` is the first one's title. */
  Embed: 5,
  /** Stickers. */
  Sticker: 6,
} as const;
export type AdditionalContentType = (typeof AdditionalContentType)[keyof typeof AdditionalContentType];

/** `AdditionalContent`: what a game cannot show of a message sent from the web app (attachments, embeds ...). */
export interface AdditionalContent {
  /** What kind of content the game cannot show. */
  readonly type: AdditionalContentType;
  /** A poll's or thread's name, when it has one (an embed's title here). */
  readonly title: string | undefined;
  /** How many items of that kind the message holds. */
  readonly count: number;
}

/** `DisclosureTypes`: set on the explanatory messages the SDK injects. */
export const DisclosureTypes = {
  /** An injected notice before the first message of a linked lobby: its messages are also visible in the guild channel, outside the game. */
  MessageDataVisibleOnDiscord: 3,
} as const;
export type DisclosureTypes = (typeof DisclosureTypes)[keyof typeof DisclosureTypes];

/** `AdditionalContent::TypeToString`. */
export function additionalContentTypeToString(type: AdditionalContentType): string {
  for (const [name, v] of Object.entries(AdditionalContentType)) if (v === type) return name;
  return 'Unknown';
}
