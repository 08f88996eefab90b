import type { Kysely, Transaction } from 'kysely';
import { SNOWFLAKE_EPOCH_MS } from '@social-layer/protocol';
import type { Database } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';
import { PreparedListQuery } from './preparedListQuery.ts';

/** Table types of migration 0008_messages; they join kysely's Database by module augmentation. */
export interface ChannelMessagesTable {
  id: string;
  channel_id: string;
  guild_id: string | null;
  author_id: string;
  application_id: string | null;
  /** MessageType: 0 DEFAULT, 19 REPLY. */
  type: number;
  content: string;
  flags: number;
  tts: number;
  nonce: string | null;
  mention_everyone: number;
  /** JSON array of user IDs. */
  mentions: string;
  /** JSON array of role IDs. */
  mention_roles: string;
  /** JSON arrays of the public embed, component and attachment objects. */
  embeds: string;
  components: string;
  attachments: string;
  /** JSON `{type, message_id, channel_id, guild_id}` of a reply or forward. */
  message_reference: string | null;
  /** JSON array of `{message: {...}}` of a forward. */
  message_snapshots: string | null;
  interaction_metadata: string | null;
  /** JSON of the message's poll (messages/polls.ts StoredPoll), migration 0019; absent on rows written before it. */
  poll?: string | null;
  /** JSON of the deprecated MessageInteraction of a message an interaction made (migration 0019). */
  interaction?: string | null;
  /** ms when pinned; null when not pinned. */
  pinned_at: number | string | null;
  edited_at: number | string | null;
  created_at: number | string;
}

export interface ChannelMessageReactionsTable {
  message_id: string;
  emoji_key: string;
  user_id: string;
  type: number;
  emoji_id: string | null;
  emoji_name: string;
  animated: number;
  created_at: number | string;
}

export interface ChannelMessageNoncesTable {
  author_id: string;
  nonce: string;
  message_id: string;
  created_at: number | string;
}

declare module './schema.ts' {
  interface Database {
    channel_messages: ChannelMessagesTable;
    channel_message_reactions: ChannelMessageReactionsTable;
    channel_message_nonces: ChannelMessageNoncesTable;
  }
}

type Db = Kysely<Database> | Transaction<Database>;

export type NewChannelMessage = Omit<ChannelMessagesTable, 'id' | 'created_at' | 'edited_at' | 'pinned_at' | 'mentions' | 'mention_roles' | 'embeds' | 'components' | 'attachments'> & {
  mentions?: string[];
  mention_roles?: string[];
  embeds?: unknown[];
  components?: unknown[];
  attachments?: unknown[];
};

/** One emoji's reactions on one message, as the message object's `reactions` needs them. */
export interface ReactionCount {
  emoji_key: string;
  emoji_id: string | null;
  emoji_name: string;
  animated: boolean;
  normal: number;
  burst: number;
  me: boolean;
  me_burst: boolean;
}

/**
 * Snowflakes are varchar: text order equals numeric order only at equal lengths. Every ID this
 * server mints has 19 digits (until 2090), so a cursor of another length lies before or after
 * all of them, and equal-length cursors compare as text (which the (channel_id, id) index serves).
 */
const ID_LENGTH = 19;
function cursorSide(id: string): 'below' | 'above' | 'same' {
  const n = id.replace(/^0+(?=\d)/, '');
  return n.length < ID_LENGTH ? 'below' : n.length > ID_LENGTH ? 'above' : 'same';
}

/** Messages' reactions (a new message's wire form asks for one message's, a page for each of its messages): built once. */
const reactionsOfMessages = new PreparedListQuery(0, (db, messageIds: readonly string[]) =>
  db.selectFrom('channel_message_reactions').selectAll().where('message_id', 'in', messageIds).orderBy('created_at').orderBy('emoji_key'),
);

/** Channel messages (guild text channels), their reactions, pins and the enforce_nonce ledger. */
export class ChannelMessageRepo {
  constructor(private readonly db: Kysely<Database>, readonly ids: SnowflakeGenerator) {}

  transaction<T>(fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  async insert(db: Db, m: NewChannelMessage, now = Date.now()): Promise<ChannelMessagesTable> {
    const row: ChannelMessagesTable = {
      ...m,
      id: this.ids.next(now),
      mentions: JSON.stringify(m.mentions ?? []),
      mention_roles: JSON.stringify(m.mention_roles ?? []),
      embeds: JSON.stringify(m.embeds ?? []),
      components: JSON.stringify(m.components ?? []),
      attachments: JSON.stringify(m.attachments ?? []),
      pinned_at: null,
      edited_at: null,
      created_at: now,
    };
    await db.insertInto('channel_messages').values(row).execute();
    return row;
  }

  get(id: string, db: Db = this.db): Promise<ChannelMessagesTable | undefined> {
    return db.selectFrom('channel_messages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The message when it is in `channelId` (a message ID from another channel is unknown there). */
  async inChannel(channelId: string, id: string, db: Db = this.db): Promise<ChannelMessagesTable | undefined> {
    if (!/^\d{1,20}$/.test(id)) return undefined;
    return db.selectFrom('channel_messages').selectAll().where('id', '=', id).where('channel_id', '=', channelId).executeTakeFirst();
  }

  many(channelId: string, ids: string[], db: Db = this.db): Promise<ChannelMessagesTable[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db.selectFrom('channel_messages').selectAll().where('channel_id', '=', channelId).where('id', 'in', ids).execute();
  }

  /**
   * A page of history, newest first as the public route answers: before/after/around one ID
   * (exclusive, `around` includes the message itself), at most `limit`.
   */
  async page(channelId: string, opts: { before?: string; after?: string; around?: string; limit: number }, db: Db = this.db): Promise<ChannelMessagesTable[]> {
    const base = () => db.selectFrom('channel_messages').selectAll().where('channel_id', '=', channelId);
    if (opts.around) {
      const side = cursorSide(opts.around);
      if (side !== 'same') return side === 'below' ? (await this.page(channelId, { limit: opts.limit }, db)).slice(-opts.limit) : this.page(channelId, { limit: opts.limit }, db);
      // Half before (older) and half at-or-after, as the public route splits its window.
      const newer = await base().where('id', '>=', opts.around).orderBy('id', 'asc').limit(Math.ceil(opts.limit / 2)).execute();
      const older = await base().where('id', '<', opts.around).orderBy('id', 'desc').limit(opts.limit - newer.length).execute();
      return [...newer.reverse(), ...older];
    }
    if (opts.after) {
      const side = cursorSide(opts.after);
      if (side === 'above') return [];
      let q = base();
      if (side === 'same') q = q.where('id', '>', opts.after);
      // The oldest `limit` after the cursor, returned newest first.
      return (await q.orderBy('id', 'asc').limit(opts.limit).execute()).reverse();
    }
    let q = base();
    if (opts.before) {
      const side = cursorSide(opts.before);
      if (side === 'below') return [];
      if (side === 'same') q = q.where('id', '<', opts.before);
    }
    return q.orderBy('id', 'desc').limit(opts.limit).execute();
  }

  /** ms of the author's last message in the channel (slowmode). */
  async lastByAuthor(channelId: string, authorId: string, db: Db = this.db): Promise<number | undefined> {
    const r = await db.selectFrom('channel_messages').select('created_at').where('channel_id', '=', channelId).where('author_id', '=', authorId).orderBy('id', 'desc').limit(1).executeTakeFirst();
    return r ? Number(r.created_at) : undefined;
  }

  async update(db: Db, id: string, set: Partial<Pick<ChannelMessagesTable, 'content' | 'flags' | 'mentions' | 'mention_roles' | 'mention_everyone' | 'embeds' | 'components' | 'attachments' | 'edited_at' | 'pinned_at' | 'poll'>>): Promise<void> {
    if (Object.keys(set).length > 0) await db.updateTable('channel_messages').set(set).where('id', '=', id).execute();
  }

  async delete(db: Db, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await db.deleteFrom('channel_message_reactions').where('message_id', 'in', ids).execute();
    await db.deleteFrom('channel_messages').where('id', 'in', ids).execute();
  }

  /**
   * The guild's messages by these authors since `since` (ms): what a ban's delete_message_seconds
   * removes. The first ID of that moment bounds the (guild_id, id) index range, so a ban reads the
   * guild's recent messages, not all of them.
   */
  byAuthorsSince(guildId: string, authorIds: string[], since: number, db: Db = this.db): Promise<ChannelMessagesTable[]> {
    if (authorIds.length === 0) return Promise.resolve([]);
    const floor = (BigInt(Math.max(0, since - SNOWFLAKE_EPOCH_MS)) << 22n).toString();
    let q = db.selectFrom('channel_messages').selectAll().where('guild_id', '=', guildId);
    if (cursorSide(floor) === 'same') q = q.where('id', '>=', floor);
    return q.where('author_id', 'in', authorIds).where('created_at', '>=', since).execute();
  }

  async count(channelId: string, db: Db = this.db): Promise<number> {
    const r = await db.selectFrom('channel_messages').select((eb) => eb.fn.countAll<string | number>().as('n')).where('channel_id', '=', channelId).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** A custom emoji of the guild (for reactions): its name and whether it is animated. */
  guildEmoji(guildId: string, emojiId: string, db: Db = this.db): Promise<{ id: string; name: string; animated: number } | undefined> {
    return db.selectFrom('emojis').select(['id', 'name', 'animated']).where('id', '=', emojiId).where('guild_id', '=', guildId).executeTakeFirst();
  }

  // ---- enforce_nonce -------------------------------------------------------------------------

  /**
   * Claims (author, nonce) for `messageId` inside the creating transaction. Returns the earlier
   * message's ID when a claim younger than `windowMs` exists (that message is returned, none is
   * created); an older claim is taken over. Two concurrent claims: the primary key lets one win,
   * the other's transaction fails and the caller retries, then finds the winner.
   */
  async claimNonce(db: Db, authorId: string, nonce: string, messageId: string, now: number, windowMs: number): Promise<string | null> {
    const existing = await db.selectFrom('channel_message_nonces').selectAll().where('author_id', '=', authorId).where('nonce', '=', nonce).executeTakeFirst();
    if (existing && Number(existing.created_at) > now - windowMs) return existing.message_id;
    if (existing) await db.updateTable('channel_message_nonces').set({ message_id: messageId, created_at: now }).where('author_id', '=', authorId).where('nonce', '=', nonce).execute();
    else await db.insertInto('channel_message_nonces').values({ author_id: authorId, nonce, message_id: messageId, created_at: now }).execute();
    return null;
  }

  /** Points the claim at `messageId` from `now` (the earlier message was deleted meanwhile). */
  async replaceNonce(db: Db, authorId: string, nonce: string, messageId: string, now: number): Promise<void> {
    await db.updateTable('channel_message_nonces').set({ message_id: messageId, created_at: now }).where('author_id', '=', authorId).where('nonce', '=', nonce).execute();
  }

  nonceClaim(authorId: string, nonce: string, db: Db = this.db): Promise<ChannelMessageNoncesTable | undefined> {
    return db.selectFrom('channel_message_nonces').selectAll().where('author_id', '=', authorId).where('nonce', '=', nonce).executeTakeFirst();
  }

  // ---- pins ----------------------------------------------------------------------------------

  /** Pinned messages newest pin first, pinned before `before` (ms) when given. */
  pins(channelId: string, opts: { before?: number; limit: number }, db: Db = this.db): Promise<ChannelMessagesTable[]> {
    let q = db.selectFrom('channel_messages').selectAll().where('channel_id', '=', channelId).where('pinned_at', 'is not', null);
    if (opts.before !== undefined) q = q.where('pinned_at', '<', opts.before);
    return q.orderBy('pinned_at', 'desc').orderBy('id', 'desc').limit(opts.limit).execute();
  }

  async pinCount(channelId: string, db: Db = this.db): Promise<number> {
    const r = await db.selectFrom('channel_messages').select((eb) => eb.fn.countAll<string | number>().as('n')).where('channel_id', '=', channelId).where('pinned_at', 'is not', null).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  // ---- reactions -----------------------------------------------------------------------------

  /** Adds one user's reaction; false when it was already there. */
  async addReaction(db: Db, r: Omit<ChannelMessageReactionsTable, 'created_at'>, now = Date.now()): Promise<boolean> {
    const res = await db
      .insertInto('channel_message_reactions')
      .values({ ...r, created_at: now })
      .onConflict((oc) => oc.columns(['message_id', 'emoji_key', 'user_id', 'type']).doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** Removes reactions; `userId`/`emojiKey` narrow it. Returns the removed rows. */
  async removeReactions(db: Db, messageId: string, opts: { emojiKey?: string; userId?: string; type?: number } = {}): Promise<ChannelMessageReactionsTable[]> {
    let sel = db.selectFrom('channel_message_reactions').selectAll().where('message_id', '=', messageId);
    let del = db.deleteFrom('channel_message_reactions').where('message_id', '=', messageId);
    if (opts.emojiKey !== undefined) {
      sel = sel.where('emoji_key', '=', opts.emojiKey);
      del = del.where('emoji_key', '=', opts.emojiKey);
    }
    if (opts.userId !== undefined) {
      sel = sel.where('user_id', '=', opts.userId);
      del = del.where('user_id', '=', opts.userId);
    }
    if (opts.type !== undefined) {
      sel = sel.where('type', '=', opts.type);
      del = del.where('type', '=', opts.type);
    }
    const rows = await sel.execute();
    if (rows.length > 0) await del.execute();
    return rows;
  }

  /** Whether anyone has reacted with this emoji yet (a new emoji needs ADD_REACTIONS). */
  async hasEmoji(messageId: string, emojiKey: string, db: Db = this.db): Promise<boolean> {
    return (await db.selectFrom('channel_message_reactions').select('user_id').where('message_id', '=', messageId).where('emoji_key', '=', emojiKey).limit(1).executeTakeFirst()) !== undefined;
  }

  /** Users who reacted with the emoji, by user ID after `after`, at most `limit`. */
  async reactors(messageId: string, emojiKey: string, opts: { type: number; after?: string; limit: number }, db: Db = this.db): Promise<string[]> {
    let q = db.selectFrom('channel_message_reactions').select('user_id').where('message_id', '=', messageId).where('emoji_key', '=', emojiKey).where('type', '=', opts.type);
    if (opts.after) q = q.where((eb) => eb.or([eb(eb.fn('length', ['user_id']), '>', opts.after!.length), eb.and([eb(eb.fn('length', ['user_id']), '=', opts.after!.length), eb('user_id', '>', opts.after!)])]));
    const rows = await q.orderBy((eb) => eb.fn('length', ['user_id'])).orderBy('user_id').limit(opts.limit).execute();
    return rows.map((r) => r.user_id);
  }

  /** Per-emoji counts of each message in `messageIds`, in first-reaction order, with `me` for `viewerId`. */
  async reactionCounts(messageIds: string[], viewerId: string, db: Db = this.db): Promise<Map<string, ReactionCount[]>> {
    const out = new Map<string, ReactionCount[]>();
    if (messageIds.length === 0) return out;
    const rows = await reactionsOfMessages.all(this.db, db, messageIds);
    for (const r of rows) {
      let list = out.get(r.message_id);
      if (!list) out.set(r.message_id, (list = []));
      let c = list.find((x) => x.emoji_key === r.emoji_key);
      if (!c) list.push((c = { emoji_key: r.emoji_key, emoji_id: r.emoji_id, emoji_name: r.emoji_name, animated: r.animated === 1, normal: 0, burst: 0, me: false, me_burst: false }));
      if (r.type === 1) c.burst++;
      else c.normal++;
      if (r.user_id === viewerId) {
        if (r.type === 1) c.me_burst = true;
        else c.me = true;
      }
    }
    return out;
  }
}

const byDb = new WeakMap<object, ChannelMessageRepo>();

/** One repo per database (the Store's other repos are built in Store.ts, which other slices extend at once). */
export function channelMessageRepo(db: Kysely<Database>, ids: SnowflakeGenerator): ChannelMessageRepo {
  let r = byDb.get(db);
  if (!r) byDb.set(db, (r = new ChannelMessageRepo(db, ids)));
  return r;
}
