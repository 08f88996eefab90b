import type { Kysely, Transaction } from 'kysely';
import type { Metadata } from '@social-layer/protocol';
import { encodeMetadata } from './LobbyRepo.ts';
import type { Database, DirectMessagesTable, DmChannelsTable } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';
import { PreparedQuery } from './preparedQuery.ts';
import { PreparedListQuery } from './preparedListQuery.ts';

type Db = Kysely<Database> | Transaction<Database>;

// A DM's send path, built once (storage/preparedQuery.ts): the pair's channel, the message, and
// whether the recipient wrote first.
const channelOfPair = new PreparedQuery(2, (db, low: string, high: string) =>
  db.selectFrom('dm_channels').selectAll().where('user_low', '=', low).where('user_high', '=', high),
);
const insertMessage = new PreparedQuery(11, (db, id: string, channelId: string, applicationId: string, authorId: string, recipientId: string, content: string, metadata: string | null, moderationMetadata: string | null, flags: number, createdAt: number | string, editedAt: number | string | null) =>
  db.insertInto('direct_messages').values({ id, channel_id: channelId, application_id: applicationId, author_id: authorId, recipient_id: recipientId, content, metadata, moderation_metadata: moderationMetadata, flags, created_at: createdAt, edited_at: editedAt }),
);
/** One message is enough: without the limit every message of the pair was read to answer yes. */
const anySent = new PreparedListQuery(2, (db, applicationIds: readonly string[], from: string, to: string) =>
  db.selectFrom('direct_messages').select('id').where('author_id', '=', from).where('recipient_id', '=', to).where('application_id', 'in', applicationIds).limit(1),
);

/** Snowflakes compare as numbers: longer is larger, equal lengths compare as text. */
export function snowflakeLess(a: string, b: string): boolean {
  return a.length !== b.length ? a.length < b.length : a < b;
}

/** DM channels (one per pair of users) and the messages in them. */
export class DirectMessageRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  transaction<T>(fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  channelBetween(a: string, b: string, db: Db = this.db): Promise<DmChannelsTable | undefined> {
    const [low, high] = snowflakeLess(a, b) ? [a, b] : [b, a];
    return channelOfPair.first(this.db, db, low, high);
  }

  channel(id: string, db: Db = this.db): Promise<DmChannelsTable | undefined> {
    return db.selectFrom('dm_channels').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The pair's channel, made on first use. */
  async openChannel(db: Db, a: string, b: string): Promise<DmChannelsTable> {
    const existing = await this.channelBetween(a, b, db);
    if (existing) return existing;
    const [low, high] = snowflakeLess(a, b) ? [a, b] : [b, a];
    const row: DmChannelsTable = { id: this.ids.next(), user_low: low, user_high: high, created_at: Date.now() };
    // Two first messages between the same pair at once (two nodes, or two requests): the loser
    // of the race takes the winner's channel instead of failing on the unique pair.
    await db.insertInto('dm_channels').values(row).onConflict((oc) => oc.columns(['user_low', 'user_high']).doNothing()).execute();
    return (await this.channelBetween(a, b, db))!;
  }

  async insert(
    db: Db,
    fields: { channelId: string; applicationId: string; authorId: string; recipientId: string; content: string; metadata: Metadata | null },
  ): Promise<DirectMessagesTable> {
    const row: DirectMessagesTable = {
      id: this.ids.next(),
      channel_id: fields.channelId,
      application_id: fields.applicationId,
      author_id: fields.authorId,
      recipient_id: fields.recipientId,
      content: fields.content,
      metadata: encodeMetadata(fields.metadata),
      moderation_metadata: null,
      flags: 0,
      created_at: Date.now(),
      edited_at: null,
    };
    await insertMessage.run(this.db, db, row.id, row.channel_id, row.application_id, row.author_id, row.recipient_id, row.content, row.metadata, row.moderation_metadata, row.flags, row.created_at, row.edited_at);
    return row;
  }

  get(id: string, db: Db = this.db): Promise<DirectMessagesTable | undefined> {
    return db.selectFrom('direct_messages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async edit(db: Db, id: string, content: string, at: number): Promise<void> {
    await db.updateTable('direct_messages').set({ content, edited_at: at }).where('id', '=', id).execute();
  }

  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom('direct_messages').where('id', '=', id).execute();
  }

  async setModerationMetadata(db: Db, id: string, metadata: Metadata | null): Promise<void> {
    await db.updateTable('direct_messages').set({ moderation_metadata: encodeMetadata(metadata) }).where('id', '=', id).execute();
  }

  /** Newest first, at most `limit`, none older than `notBefore`, only from the given applications. */
  history(channelId: string, applicationIds: readonly string[], limit: number, notBefore: number): Promise<DirectMessagesTable[]> {
    return this.db
      .selectFrom('direct_messages')
      .selectAll()
      .where('channel_id', '=', channelId)
      .where('application_id', 'in', [...applicationIds])
      .where('created_at', '>=', notBefore)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Whether `from` ever sent `to` a message from one of the applications (a conversation exists). */
  async hasSent(from: string, to: string, applicationIds: readonly string[]): Promise<boolean> {
    if (applicationIds.length === 0) return false;
    return (await anySent.all(this.db, this.db, applicationIds, from, to)).length > 0;
  }

  /** For each conversation of the user (within the applications), the other user and the newest message ID. */
  async summaries(userId: string, applicationIds: readonly string[]): Promise<{ userId: string; lastMessageId: string }[]> {
    const rows = await this.db
      .selectFrom('direct_messages')
      .select(['author_id', 'recipient_id', 'id'])
      .where((eb) => eb.or([eb('author_id', '=', userId), eb('recipient_id', '=', userId)]))
      .where('application_id', 'in', [...applicationIds])
      .execute();
    const last = new Map<string, string>();
    for (const r of rows) {
      const other = r.author_id === userId ? r.recipient_id : r.author_id;
      const seen = last.get(other);
      if (seen === undefined || snowflakeLess(seen, r.id)) last.set(other, r.id);
    }
    return [...last].map(([other, id]) => ({ userId: other, lastMessageId: id })).sort((a, b) => (snowflakeLess(a.lastMessageId, b.lastMessageId) ? 1 : -1));
  }

  /** Row count, so tests can prove that a refused request wrote nothing. */
  async countAll(): Promise<number> {
    const r = await this.db.selectFrom('direct_messages').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
