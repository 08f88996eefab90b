import { memberWire } from '../guilds/guildWire.ts';
import { has, Permission } from '../guilds/permissions.ts';
import type { ChannelMessagesTable } from '../storage/ChannelMessageRepo.ts';
import { MessageErrors as E } from './messageErrors.ts';
import { messageWire } from './messageWire.ts';
import type { MessageCaller, MessageHost } from './messageTypes.ts';

/**
 * Reactions on channel messages (for MessageService): add and remove one's own, remove others'
 * (MANAGE_MESSAGES), list who reacted, with the MESSAGE_REACTION_* dispatches.
 */
export class MessageReactions {
  constructor(private readonly host: MessageHost) {}

  /** `name:id` of a custom emoji of this guild, or Unicode emoji; 10014 otherwise. */
  private async emoji(guildId: string, raw: string): Promise<{ key: string; id: string | null; name: string; animated: boolean }> {
    const custom = /^(?:a:)?([A-Za-z0-9_~]{1,32}):(\d{1,20})$/.exec(raw);
    if (custom) {
      const e = await this.host.repo.guildEmoji(guildId, custom[2]!);
      if (!e) throw E.unknownEmoji();
      return { key: `${e.name}:${e.id}`, id: e.id, name: e.name, animated: e.animated === 1 };
    }
    if (raw.length === 0 || raw.length > 32 || !/^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|[#*0-9]\uFE0F?\u20E3|\p{Emoji_Modifier}|\uFE0F|\u200D)+$/u.test(raw)) throw E.unknownEmoji();
    return { key: raw, id: null, name: raw, animated: false };
  }

  async addReaction(caller: MessageCaller, channelId: string, messageId: string, rawEmoji: string): Promise<void> {
    const { view, channel, perms } = await this.host.access(caller, channelId);
    if (!has(perms, Permission.ReadMessageHistory)) throw E.missingPermissions();
    const row = await this.host.message(channelId, messageId);
    const emoji = await this.emoji(channel.guild_id, rawEmoji);
    // Adding to an existing reaction needs only history; a new emoji on the message needs ADD_REACTIONS.
    if (!has(perms, Permission.AddReactions) && !(await this.host.repo.hasEmoji(row.id, emoji.key))) throw E.missingPermissions();
    const added = await this.host.repo.addReaction(this.host.store.database.db, { message_id: row.id, emoji_key: emoji.key, user_id: caller.userId, type: 0, emoji_id: emoji.id, emoji_name: emoji.name, animated: emoji.animated ? 1 : 0 });
    if (!added) return;
    await this.host.events.publish(channel.guild_id, 'MESSAGE_REACTION_ADD', {
      user_id: caller.userId,
      channel_id: channel.id,
      message_id: row.id,
      guild_id: channel.guild_id,
      member: memberWire(view.member),
      emoji: emojiWire(emoji),
      message_author_id: row.author_id,
      burst: false,
      burst_colors: [],
      type: 0,
    }, { kind: 'channel', channel });
  }

  /** Removes `userId`'s reaction ('@me' for the caller's own; anyone else's needs MANAGE_MESSAGES). */
  async removeReaction(caller: MessageCaller, channelId: string, messageId: string, rawEmoji: string, userId: string): Promise<void> {
    const { channel, perms } = await this.host.access(caller, channelId);
    const target = userId === '@me' ? caller.userId : userId;
    if (target !== caller.userId && !has(perms, Permission.ManageMessages)) throw E.missingPermissions();
    const row = await this.host.message(channelId, messageId);
    const emoji = await this.emoji(channel.guild_id, rawEmoji);
    const removed = await this.host.repo.removeReactions(this.host.store.database.db, row.id, { emojiKey: emoji.key, userId: target, type: 0 });
    if (removed.length === 0) return;
    await this.host.events.publish(channel.guild_id, 'MESSAGE_REACTION_REMOVE', {
      user_id: target, channel_id: channel.id, message_id: row.id, guild_id: channel.guild_id, emoji: emojiWire(emoji), burst: false, type: 0,
    }, { kind: 'channel', channel });
  }

  /** Every reaction, or every reaction with one emoji: MANAGE_MESSAGES. */
  async removeAllReactions(caller: MessageCaller, channelId: string, messageId: string, rawEmoji?: string): Promise<void> {
    const { channel, perms } = await this.host.access(caller, channelId);
    if (!has(perms, Permission.ManageMessages)) throw E.missingPermissions();
    const row = await this.host.message(channelId, messageId);
    const emoji = rawEmoji === undefined ? undefined : await this.emoji(channel.guild_id, rawEmoji);
    const removed = await this.host.repo.removeReactions(this.host.store.database.db, row.id, emoji ? { emojiKey: emoji.key } : {});
    if (removed.length === 0) return;
    const base = { channel_id: channel.id, message_id: row.id, guild_id: channel.guild_id };
    if (emoji) await this.host.events.publish(channel.guild_id, 'MESSAGE_REACTION_REMOVE_EMOJI', { ...base, emoji: emojiWire(emoji) }, { kind: 'channel', channel });
    else await this.host.events.publish(channel.guild_id, 'MESSAGE_REACTION_REMOVE_ALL', base, { kind: 'channel', channel });
  }

  async reactions(caller: MessageCaller, channelId: string, messageId: string, rawEmoji: string, q: { after?: string; limit?: number; type?: number }): Promise<unknown[]> {
    const { channel, perms } = await this.host.access(caller, channelId);
    if (!has(perms, Permission.ReadMessageHistory)) throw E.missingPermissions();
    const row = await this.host.message(channelId, messageId);
    const emoji = await this.emoji(channel.guild_id, rawEmoji);
    const ids = await this.host.repo.reactors(row.id, emoji.key, { type: q.type ?? 0, ...(q.after ? { after: q.after } : {}), limit: q.limit ?? 25 });
    const users = await this.host.store.users.getMany(ids);
    return ids.map((id) => users.get(id)).filter((u) => u !== undefined).map((u) => messageWire({ ...blankRow, author_id: u.id }, { users }).author);
  }
}

const blankRow: ChannelMessagesTable = {
  id: '0', channel_id: '0', guild_id: null, author_id: '0', application_id: null, type: 0, content: '', flags: 0, tts: 0, nonce: null, mention_everyone: 0,
  mentions: '[]', mention_roles: '[]', embeds: '[]', components: '[]', attachments: '[]', message_reference: null, message_snapshots: null, interaction_metadata: null,
  pinned_at: null, edited_at: null, created_at: 0,
};

function emojiWire(e: { id: string | null; name: string; animated: boolean }): { id: string | null; name: string; animated?: boolean } {
  return { id: e.id, name: e.name, ...(e.id ? { animated: e.animated } : {}) };
}

/** The `member` of a message event carries no `user` (the author is beside it). */
