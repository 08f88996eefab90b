import type { APIEmbed, APIMessage, APIMessageReference, APIReaction, APIUser } from 'discord-api-types/v10';
import type { UsersTable } from '../storage/schema.ts';
import type { ChannelMessagesTable, ReactionCount } from '../storage/ChannelMessageRepo.ts';
import { userWire } from '../guilds/guildWire.ts';
import { pollWire } from './polls.ts';

const iso = (ms: number | string | null): string | null => (ms === null ? null : new Date(Number(ms)).toISOString());

/** A user whose row is gone (deleted account) still renders, as the public "Deleted User". */
function userOrGhost(users: Map<string, UsersTable>, id: string): APIUser {
  const u = users.get(id);
  if (u) return userWire(u);
  return { id, username: 'Deleted User', global_name: null, avatar: null, discriminator: '0', public_flags: 0 } as unknown as APIUser;
}

export function reactionWire(c: ReactionCount): APIReaction {
  return {
    count: c.normal + c.burst,
    count_details: { burst: c.burst, normal: c.normal },
    me: c.me,
    me_burst: c.me_burst,
    burst_colors: [],
    emoji: { id: c.emoji_id, name: c.emoji_name, ...(c.emoji_id && c.animated ? { animated: true } : {}) },
  } as APIReaction;
}

export interface WireContext {
  users: Map<string, UsersTable>;
  reactions?: Map<string, ReactionCount[]>;
  /** Replied-to messages by ID (one level: theirs carry no `referenced_message`). */
  referenced?: Map<string, ChannelMessagesTable>;
}

/** The user IDs a message's wire form names (author and mentions), for one batched lookup. */
export function userIdsOf(rows: Iterable<ChannelMessagesTable>): string[] {
  const ids = new Set<string>();
  for (const r of rows) {
    ids.add(r.author_id);
    for (const id of JSON.parse(r.mentions) as string[]) ids.add(id);
  }
  return [...ids];
}

/** An embed as the public API answers it: `type` is `rich` unless it says otherwise. */
const embedsWire = (embeds: APIEmbed[]): APIEmbed[] => embeds.map((e) => ({ type: 'rich', ...e }) as APIEmbed);

type Component = { id?: number; components?: Component[]; accessory?: Component } & Record<string, unknown>;

/**
 * Components with their `id`: the public API numbers every component the sender left without one,
 * in order (depth first), skipping the ids the sender chose, and answers with them all.
 */
export function numberComponents(components: Component[]): Component[] {
  const used = new Set<number>();
  const collect = (list: Component[]) => {
    for (const c of list) {
      if (typeof c.id === 'number') used.add(c.id);
      if (c.components) collect(c.components);
      if (c.accessory) collect([c.accessory]);
    }
  };
  collect(components);
  let next = 1;
  const number = (c: Component): Component => {
    let id = c.id;
    if (typeof id !== 'number') {
      while (used.has(next)) next++;
      id = next++;
    }
    const out: Component = { ...c, id };
    if (c.components) out.components = c.components.map(number);
    if (c.accessory) out.accessory = number(c.accessory);
    return out;
  };
  return components.map(number);
}

/** A user object kept inside a stored message (snapshots, interactions), with the fields the public User object requires. */
const storedUser = (u: Record<string, unknown>) => ({ public_flags: 0, flags: 0, primary_guild: null, ...u });
const withStoredUser = (o: Record<string, unknown>) => (o.user && typeof o.user === 'object' ? { ...o, user: storedUser(o.user as Record<string, unknown>) } : o);

/**
 * A row to the public Message object (discord-api-types/v10 APIMessage). `guild_id` and
 * `member` are added by the Gateway events only, as on the public API.
 */
export function messageWire(row: ChannelMessagesTable, ctx: WireContext, depth = 0): APIMessage {
  const ref = row.message_reference ? (JSON.parse(row.message_reference) as APIMessageReference) : undefined;
  const msg: Record<string, unknown> = {
    id: row.id,
    channel_id: row.channel_id,
    type: row.type,
    author: userOrGhost(ctx.users, row.author_id),
    content: row.content,
    timestamp: iso(row.created_at)!,
    edited_timestamp: iso(row.edited_at),
    tts: row.tts === 1,
    mention_everyone: row.mention_everyone === 1,
    mentions: (JSON.parse(row.mentions) as string[]).map((id) => userOrGhost(ctx.users, id)),
    mention_roles: JSON.parse(row.mention_roles) as string[],
    attachments: JSON.parse(row.attachments) as unknown[],
    embeds: embedsWire(JSON.parse(row.embeds) as APIEmbed[]),
    components: numberComponents(JSON.parse(row.components) as Component[]),
    pinned: row.pinned_at !== null,
    flags: row.flags,
  };
  const reactions = ctx.reactions?.get(row.id);
  if (reactions && reactions.length > 0) msg.reactions = reactions.map(reactionWire);
  if (row.nonce !== null) msg.nonce = row.nonce;
  if (row.application_id !== null) msg.application_id = row.application_id;
  if (ref) msg.message_reference = ref;
  if (row.message_snapshots) {
    msg.message_snapshots = (JSON.parse(row.message_snapshots) as { message: Record<string, unknown> }[]).map((snap) => ({
      ...snap,
      message: {
        ...snap.message,
        ...(Array.isArray(snap.message.embeds) ? { embeds: embedsWire(snap.message.embeds as APIEmbed[]) } : {}),
        ...(Array.isArray(snap.message.components) ? { components: numberComponents(snap.message.components as Component[]) } : {}),
        ...(Array.isArray(snap.message.mentions) ? { mentions: (snap.message.mentions as Record<string, unknown>[]).map(storedUser) } : {}),
      },
    }));
  }
  if (row.interaction_metadata) msg.interaction_metadata = withStoredUser(JSON.parse(row.interaction_metadata));
  // The deprecated MessageInteraction (public shape), beside interaction_metadata.
  if (row.interaction) msg.interaction = withStoredUser(JSON.parse(row.interaction));
  if (row.poll) msg.poll = pollWire(row.poll);
  // A reply carries the replied-to message, or null once that one is deleted (public rule).
  if (row.type === 19 && depth === 0 && ref?.message_id) {
    const target = ctx.referenced?.get(ref.message_id);
    msg.referenced_message = target ? messageWire(target, ctx, 1) : null;
  }
  return msg as unknown as APIMessage;
}

/**
 * The MESSAGE_CONTENT privileged-intent rule: the fields that expose content, emptied for an
 * app that lacks the intent (unless it wrote the message or is mentioned in it; DMs are exempt).
 */
export function withoutContent<T extends Record<string, unknown>>(m: T): T {
  const out: Record<string, unknown> = { ...m, content: '', embeds: [], attachments: [], components: [] };
  if (Array.isArray(m.message_snapshots)) {
    out.message_snapshots = (m.message_snapshots as { message: Record<string, unknown> }[]).map((s) => ({ ...s, message: { ...s.message, content: '', embeds: [], attachments: [], components: [] } }));
  }
  if (m.referenced_message && typeof m.referenced_message === 'object') out.referenced_message = withoutContent(m.referenced_message as Record<string, unknown>);
  if (m.poll) delete out.poll;
  return out as T;
}

/** Whether `userId` may see the content of `m` without the intent: its own message, or one that mentions it. */
export function contentExempt(m: { author?: { id?: string }; mentions?: { id?: string }[] }, userId: string): boolean {
  return m.author?.id === userId || (m.mentions ?? []).some((u) => u.id === userId);
}
