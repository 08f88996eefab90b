import { contentExempt, withoutContent } from './messageWire.ts';

/** Gateway intents of the message events (public values; protocols.md 1.10). */
export const MessageIntent = {
  Guilds: 1 << 0,
  GuildMessages: 1 << 9,
  GuildMessageReactions: 1 << 10,
  GuildMessageTyping: 1 << 11,
  DirectMessages: 1 << 12,
  MessageContent: 1 << 15,
  GuildMessagePolls: 1 << 24,
} as const;

/** Which intent each guild message event needs; GuildGateway's intent filter reads this. */
export const MESSAGE_INTENT_OF: Record<string, number> = {
  MESSAGE_CREATE: MessageIntent.GuildMessages,
  MESSAGE_UPDATE: MessageIntent.GuildMessages,
  MESSAGE_DELETE: MessageIntent.GuildMessages,
  MESSAGE_DELETE_BULK: MessageIntent.GuildMessages,
  MESSAGE_REACTION_ADD: MessageIntent.GuildMessageReactions,
  MESSAGE_REACTION_REMOVE: MessageIntent.GuildMessageReactions,
  MESSAGE_REACTION_REMOVE_ALL: MessageIntent.GuildMessageReactions,
  MESSAGE_REACTION_REMOVE_EMOJI: MessageIntent.GuildMessageReactions,
  TYPING_START: MessageIntent.GuildMessageTyping,
  CHANNEL_PINS_UPDATE: MessageIntent.Guilds,
  MESSAGE_POLL_VOTE_ADD: MessageIntent.GuildMessagePolls,
  MESSAGE_POLL_VOTE_REMOVE: MessageIntent.GuildMessagePolls,
};

/**
 * The MESSAGE_CONTENT rule on one session's copy of MESSAGE_CREATE/UPDATE: a bot session without
 * the intent gets `content`, `embeds`, `attachments` and `components` empty, unless the message is
 * its own or mentions it. User sessions are not apps the rule applies to. Returns the JSON to send.
 */
export function messageJsonForSession(t: string, json: string, session: { userId: string; bot: boolean; intents: number }): string {
  if (t === 'AUTO_MODERATION_ACTION_EXECUTION') {
    // The blocked content is message content too (public rule: empty without the intent).
    if (!session.bot || (session.intents & MessageIntent.MessageContent) !== 0) return json;
    return JSON.stringify({ ...(JSON.parse(json) as object), content: '', matched_content: null });
  }
  if (t !== 'MESSAGE_CREATE' && t !== 'MESSAGE_UPDATE') return json;
  if (!session.bot || (session.intents & MessageIntent.MessageContent) !== 0) return json;
  const m = JSON.parse(json) as Record<string, unknown> & { author?: { id?: string }; mentions?: { id?: string }[] };
  if (contentExempt(m, session.userId)) return json;
  return JSON.stringify(withoutContent(m));
}
