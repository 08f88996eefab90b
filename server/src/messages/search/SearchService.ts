import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import type { Store } from '../../storage/Store.ts';
import type { ChannelMessagesTable } from '../../storage/ChannelMessageRepo.ts';
import { PostgresSearchIndex, SqliteSearchIndex, TOTAL_CAP, docOf, type IndexQuery, type MetaFilter, type SearchIndex } from './SearchIndex.ts';
import '../../storage/moderationSchema.ts';
import { onGuildEvent } from '../../guilds/guildEventTaps.ts';

type Db = Kysely<Database> | Transaction<Database>;

const State = { Building: 0, Ready: 1 } as const;

export interface SearchServiceOptions {
  /** Messages per backfill step (one transaction each). */
  batchSize?: number;
  /** Pause between steps, so a backfill leaves room for live traffic. */
  pauseMs?: number;
}

/** A guild's index is not ready: the route answers 202 / 110000 with these figures. */
export class IndexNotReady {
  constructor(readonly retryAfter: number, readonly documentsIndexed: number) {}
}

/**
 * The guild message index: kept in step with messages inside their create/edit/delete
 * transactions (MessageService calls `indexed`/`removed`), and built for guilds whose messages
 * predate it by a backfill job per guild (`message_search_guilds`: building with a cursor, then
 * ready). A guild with no state row gets one at its first message (ready when it had none before)
 * or at its first search (building when it holds messages). Each backfill step claims the guild's
 * row (PostgreSQL FOR UPDATE SKIP LOCKED; SQLite has one writer), indexes the next batch after
 * the cursor and moves the cursor, in one transaction, so a node that dies mid-way loses nothing
 * and any node resumes it.
 */
export class SearchService {
  readonly index: SearchIndex;
  private readonly db: Kysely<Database>;
  private readonly postgres: boolean;
  /** Guilds known to have a state row (state rows only go building -> ready, never away). */
  private readonly known = new Set<string>();
  private readonly running = new Set<string>();
  private stopped = false;
  private readonly batchSize: number;
  private readonly pauseMs: number;

  constructor(store: Store, options: SearchServiceOptions = {}) {
    this.db = store.database.db;
    this.postgres = store.database.dialect === 'postgres';
    this.index = this.postgres ? new PostgresSearchIndex(this.db) : new SqliteSearchIndex(this.db);
    this.batchSize = options.batchSize ?? 5000;
    this.pauseMs = options.pauseMs ?? 5;
  }

  /** Inside a message's create or edit transaction: (re)index it. */
  async indexed(tx: Db, row: ChannelMessagesTable): Promise<void> {
    const doc = docOf(row);
    if (!doc) return;
    if (!this.known.has(doc.guild_id)) await this.ensureState(tx, doc.guild_id, row.id);
    await this.index.upsert(tx, [doc]);
  }

  /** Inside a delete transaction. */
  async removed(tx: Db, ids: string[]): Promise<void> {
    await this.index.remove(tx, ids);
  }

  /** At a guild's first indexed message: ready when the guild had no earlier message, else building. */
  private async ensureState(tx: Db, guildId: string, newId: string): Promise<void> {
    const existing = await tx.selectFrom('message_search_guilds').select('state').where('guild_id', '=', guildId).executeTakeFirst();
    if (!existing) {
      const earlier = await tx.selectFrom('channel_messages').select('id').where('guild_id', '=', guildId).where('id', '<>', newId).limit(1).executeTakeFirst();
      await this.insertState(tx, guildId, earlier ? State.Building : State.Ready, earlier ? await this.newestId(tx, guildId) : null);
      if (earlier) setImmediate(() => this.kick(guildId));
    }
    this.known.add(guildId);
  }

  private async newestId(db: Db, guildId: string): Promise<string | null> {
    const r = await db.selectFrom('channel_messages').select('id').where('guild_id', '=', guildId).orderBy('id', 'desc').limit(1).executeTakeFirst();
    return r?.id ?? null;
  }

  private async insertState(db: Db, guildId: string, state: number, target: string | null): Promise<void> {
    const now = Date.now();
    await db.insertInto('message_search_guilds').values({ guild_id: guildId, state, cursor: null, target, indexed: 0, started_at: now, updated_at: now })
      .onConflict((oc) => oc.column('guild_id').doNothing()).execute();
  }

  /**
   * Throws IndexNotReady while the guild's index is being built (starting the build when the
   * guild was never indexed and holds messages).
   */
  async requireReady(guildId: string): Promise<void> {
    let st = await this.db.selectFrom('message_search_guilds').selectAll().where('guild_id', '=', guildId).executeTakeFirst();
    if (!st) {
      const target = await this.newestId(this.db, guildId);
      await this.insertState(this.db, guildId, target === null ? State.Ready : State.Building, target);
      this.known.add(guildId);
      st = await this.db.selectFrom('message_search_guilds').selectAll().where('guild_id', '=', guildId).executeTakeFirstOrThrow();
    }
    if (st.state === State.Ready) return;
    this.kick(guildId);
    throw new IndexNotReady(2, Number(st.indexed));
  }

  async query(q: IndexQuery): Promise<{ ids: string[]; total: number }> {
    return this.index.query(q);
  }

  /** Starts (or resumes) every unfinished build: at server start, any node. */
  async resume(): Promise<void> {
    const rows = await this.db.selectFrom('message_search_guilds').select('guild_id').where('state', '=', State.Building).execute();
    for (const r of rows) this.kick(r.guild_id);
  }

  stop(): void {
    this.stopped = true;
  }

  /** Runs the guild's backfill in the background on this node unless it already runs here. */
  kick(guildId: string): void {
    if (this.stopped || this.running.has(guildId)) return;
    this.running.add(guildId);
    void (async () => {
      try {
        while (!this.stopped && (await this.step(guildId))) await new Promise((r) => setTimeout(r, this.pauseMs));
      } catch {
        // The database closed under us (server stopping) or another node holds the row: a later kick resumes.
      } finally {
        this.running.delete(guildId);
      }
    })();
  }

  /** One backfill step; true while more remains. */
  async step(guildId: string): Promise<boolean> {
    const more = await this.stepOnce(guildId);
    // A finished build changed the table a lot: fresh statistics, so PostgreSQL's planner picks the GIN index.
    if (!more && this.postgres) await sql`ANALYZE message_search`.execute(this.db);
    return more;
  }

  private async stepOnce(guildId: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      let claim = tx.selectFrom('message_search_guilds').selectAll().where('guild_id', '=', guildId).where('state', '=', State.Building);
      if (this.postgres) claim = claim.forUpdate().skipLocked();
      const st = await claim.executeTakeFirst();
      if (!st) return false;
      let q = tx.selectFrom('channel_messages').selectAll().where('guild_id', '=', guildId);
      if (st.cursor !== null) q = q.where('id', '>', st.cursor);
      if (st.target !== null) q = q.where('id', '<=', st.target);
      const rows = await q.orderBy('id', 'asc').limit(this.batchSize).execute();
      // Messages of deleted channels stay in the table; they are not searchable.
      const live = new Set((await tx.selectFrom('guild_channels').select('id').where('guild_id', '=', guildId).execute()).map((c) => c.id));
      const docs = rows.filter((r) => live.has(r.channel_id)).map(docOf).filter((d) => d !== undefined);
      await this.index.upsert(tx, docs);
      const done = rows.length < this.batchSize || st.target === null;
      await tx.updateTable('message_search_guilds').set({
        cursor: rows.length > 0 ? rows[rows.length - 1]!.id : st.cursor,
        indexed: Number(st.indexed) + rows.length,
        updated_at: Date.now(),
        ...(done ? { state: State.Ready } : {}),
      }).where('guild_id', '=', guildId).execute();
      return !done;
    });
  }
}

/** Builds a MetaFilter from the public query's filters (already checked). */
export function metaFilter(f: { authorIds?: string[]; channelIds?: string[] | null; mentions?: string[]; mentionEveryone?: boolean; authorType?: string[]; has?: string[] }, hasTokens: Record<string, string>): MetaFilter {
  const all: string[][] = [];
  const not: string[] = [];
  if (f.authorIds?.length) all.push(f.authorIds.map((id) => `a${id}`));
  if (f.channelIds) all.push(f.channelIds.map((id) => `c${id}`));
  if (f.mentions?.length) all.push(f.mentions.map((id) => `u${id}`));
  if (f.mentionEveryone === true) all.push(['ev']);
  if (f.mentionEveryone === false) not.push('ev');
  for (const t of f.authorType ?? []) {
    // No webhooks post here: `webhook` matches nothing, `-webhook` everything.
    if (t === 'bot' || t === '-user') all.push(['bot']);
    else if (t === '-bot' || t === 'user') not.push('bot');
    else if (t === 'webhook') all.push(['hwebhook']);
  }
  for (const h of f.has ?? []) {
    if (h.startsWith('-')) not.push(hasTokens[h.slice(1)]!);
    else all.push([hasTokens[h]!]);
  }
  return { all, not };
}

export { TOTAL_CAP };

/** A deleted channel's messages leave the index (CHANNEL_DELETE, from whichever service deleted it). */
export function installSearchTap(store: Store): () => void {
  const search = searchServiceFor(store);
  return onGuildEvent(store, async (_guildId, t, payload) => {
    if (t === 'CHANNEL_DELETE') await search.index.removeChannel(store.database.db, (payload as { id: string }).id);
  });
}

const byStore = new WeakMap<Store, SearchService>();

/** One search service per store (MessageService and the route share it). */
export function searchServiceFor(store: Store, options?: SearchServiceOptions): SearchService {
  let s = byStore.get(store);
  if (!s) byStore.set(store, (s = new SearchService(store, options)));
  return s;
}
