import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import type { ChannelMessagesTable } from '../../storage/ChannelMessageRepo.ts';
import '../../storage/moderationSchema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** One message as the index holds it: its words and its filter tokens. */
export interface SearchDoc {
  id: string;
  guild_id: string;
  channel_id: string;
  author_id: string;
  content: string;
  meta: string;
}

/** `has` values of the public search and the token each becomes. */
export const HAS_TOKENS: Record<string, string> = {
  link: 'hlink', embed: 'hembed', file: 'hfile', image: 'himage', video: 'hvideo', sound: 'hsound', sticker: 'hsticker', poll: 'hpoll', snapshot: 'hsnapshot',
};

/**
 * The filter tokens of a message: `g<guild> c<channel> a<author> u<mentioned user>`, `ev`
 * (mentions everyone), `bot` (written by an app) and `h<kind>` for what it has. Each filter of a
 * search is then an index lookup on the same tokens in both databases.
 */
export function metaOf(m: Pick<ChannelMessagesTable, 'guild_id' | 'channel_id' | 'author_id' | 'application_id' | 'content' | 'mentions' | 'mention_everyone' | 'embeds' | 'attachments' | 'message_snapshots'>): string {
  const t = [`g${m.guild_id}`, `c${m.channel_id}`, `a${m.author_id}`];
  for (const u of JSON.parse(m.mentions) as string[]) t.push(`u${u}`);
  if (m.mention_everyone) t.push('ev');
  if (m.application_id !== null) t.push('bot');
  if (/https?:\/\/\S/i.test(m.content)) t.push(HAS_TOKENS.link!);
  if (m.embeds !== '[]') t.push(HAS_TOKENS.embed!);
  if (m.message_snapshots !== null) t.push(HAS_TOKENS.snapshot!);
  const atts = JSON.parse(m.attachments) as { content_type?: string }[];
  if (atts.length > 0) t.push(HAS_TOKENS.file!);
  for (const kind of ['image', 'video'] as const) if (atts.some((a) => a.content_type?.startsWith(`${kind}/`))) t.push(HAS_TOKENS[kind]!);
  if (atts.some((a) => a.content_type?.startsWith('audio/'))) t.push(HAS_TOKENS.sound!);
  return t.join(' ');
}

/** A message's searchable text: its content and its embeds' texts (title, description, fields, author, footer). */
function textOf(m: ChannelMessagesTable): string {
  if (m.embeds === '[]') return m.content;
  const embeds = JSON.parse(m.embeds) as { title?: string; description?: string; author?: { name?: string }; footer?: { text?: string }; fields?: { name?: string; value?: string }[] }[];
  const parts = embeds.flatMap((e) => [e.title, e.description, e.author?.name, e.footer?.text, ...(e.fields ?? []).flatMap((f) => [f.name, f.value])]);
  return [m.content, ...parts.filter((x): x is string => typeof x === 'string' && x !== '')].join(' ');
}

export function docOf(m: ChannelMessagesTable): SearchDoc | undefined {
  if (m.guild_id === null) return undefined;
  return { id: m.id, guild_id: m.guild_id, channel_id: m.channel_id, author_id: m.author_id, content: textOf(m), meta: metaOf(m) };
}

/** Words of a query as both tokenizers split them (letters and digits; the rest separates). */
export function queryWords(content: string): string[] {
  return [...new Set((content.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 32))];
}

/** A filter: every group must hold (one of its tokens), and none of `not`. */
export interface MetaFilter {
  all: string[][];
  not: string[];
}

export interface IndexQuery {
  guildId: string;
  words: string[];
  filter: MetaFilter;
  maxId?: string;
  minId?: string;
  sort: 'timestamp' | 'relevance';
  order: 'desc' | 'asc';
  limit: number;
  offset: number;
}

/** Totals are counted up to this many (the public offset stops at 9,975 anyway). */
export const TOTAL_CAP = 10_000;

/** The index behind one interface: FTS5 on SQLite, tsvector + GIN on PostgreSQL. */
export interface SearchIndex {
  upsert(db: Db, docs: SearchDoc[]): Promise<void>;
  remove(db: Db, ids: string[]): Promise<void>;
  /** Every message of a deleted channel (its rows stay in channel_messages). */
  removeChannel(db: Db, channelId: string): Promise<void>;
  query(q: IndexQuery): Promise<{ ids: string[]; total: number }>;
}

const ID_LENGTH = 19;
/** Snowflakes this server mints have 19 digits; a bound of another length lies past all of them. */
function idSide(id: string): 'below' | 'above' | 'same' {
  const n = id.replace(/^0+(?=\d)/, '');
  return n.length < ID_LENGTH ? 'below' : n.length > ID_LENGTH ? 'above' : 'same';
}

export class SqliteSearchIndex implements SearchIndex {
  constructor(private readonly db: Kysely<Database>) {}

  async upsert(db: Db, docs: SearchDoc[]): Promise<void> {
    if (docs.length === 0) return;
    await this.remove(db, docs.map((d) => d.id));
    for (let i = 0; i < docs.length; i += 500) {
      const rows = docs.slice(i, i + 500).map((d) => sql`(${BigInt(d.id)}, ${d.content}, ${d.meta})`);
      await sql`INSERT INTO message_search_fts(rowid, content, meta) VALUES ${sql.join(rows)}`.execute(db);
    }
  }

  async remove(db: Db, ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      await sql`DELETE FROM message_search_fts WHERE rowid IN (${sql.join(ids.slice(i, i + 500).map((id) => BigInt(id)))})`.execute(db);
    }
  }

  async removeChannel(db: Db, channelId: string): Promise<void> {
    await sql`DELETE FROM message_search_fts WHERE rowid IN (SELECT CAST(id AS INTEGER) FROM channel_messages WHERE channel_id = ${channelId})`.execute(db);
  }

  async query(q: IndexQuery): Promise<{ ids: string[]; total: number }> {
    const quote = (w: string) => `"${w.replace(/"/g, '""')}"`;
    const parts = [`meta : ${quote(`g${q.guildId}`)}`];
    if (q.words.length > 0) parts.push(`content : (${q.words.map(quote).join(' AND ')})`);
    for (const group of q.filter.all) parts.push(`meta : (${group.map(quote).join(' OR ')})`);
    let match = parts.join(' AND ');
    if (q.filter.not.length > 0) match = `(${match}) NOT meta : (${q.filter.not.map(quote).join(' OR ')})`;
    const bounds = [];
    if (q.maxId !== undefined) {
      const side = idSide(q.maxId);
      if (side === 'below') return { ids: [], total: 0 };
      if (side === 'same') bounds.push(sql`AND rowid < ${BigInt(q.maxId)}`);
    }
    if (q.minId !== undefined) {
      const side = idSide(q.minId);
      if (side === 'above') return { ids: [], total: 0 };
      if (side === 'same') bounds.push(sql`AND rowid > ${BigInt(q.minId)}`);
    }
    const where = sql`message_search_fts MATCH ${match} ${sql.join(bounds, sql` `)}`;
    const dir = q.order === 'asc' ? sql`ASC` : sql`DESC`;
    // Relevance: bm25 over the words only (meta weighs 0); ties newest first.
    const order = q.sort === 'relevance' && q.words.length > 0 ? sql`bm25(message_search_fts, 1.0, 0.0), rowid DESC` : sql`rowid ${dir}`;
    const rows = await sql<{ id: string }>`SELECT CAST(rowid AS TEXT) AS id FROM message_search_fts WHERE ${where} ORDER BY ${order} LIMIT ${q.limit} OFFSET ${q.offset}`.execute(this.db);
    const ids = rows.rows.map((r) => r.id);
    // A short page is the last one: its end is the total, no count needed.
    if (ids.length < q.limit && (ids.length > 0 || q.offset === 0)) return { ids, total: q.offset + ids.length };
    const total = await sql<{ n: number }>`SELECT count(*) AS n FROM (SELECT rowid FROM message_search_fts WHERE ${where} LIMIT ${TOTAL_CAP})`.execute(this.db);
    return { ids, total: Number(total.rows[0]?.n ?? 0) };
  }
}

export class PostgresSearchIndex implements SearchIndex {
  constructor(private readonly db: Kysely<Database>) {}

  async upsert(db: Db, docs: SearchDoc[]): Promise<void> {
    for (let i = 0; i < docs.length; i += 1000) {
      const rows = docs.slice(i, i + 1000).map((d) => sql`(${d.id}, ${d.guild_id}, ${d.channel_id}, ${d.author_id}, ${d.meta}, to_tsvector('simple', ${d.content}))`);
      await sql`INSERT INTO message_search (message_id, guild_id, channel_id, author_id, meta, tsv) VALUES ${sql.join(rows)}
        ON CONFLICT (message_id) DO UPDATE SET meta = excluded.meta, tsv = excluded.tsv`.execute(db);
    }
  }

  async remove(db: Db, ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 1000) await db.deleteFrom('message_search').where('message_id', 'in', ids.slice(i, i + 1000)).execute();
  }

  async removeChannel(db: Db, channelId: string): Promise<void> {
    await db.deleteFrom('message_search').where('channel_id', '=', channelId).execute();
  }

  async query(q: IndexQuery): Promise<{ ids: string[]; total: number }> {
    const conds = [sql`guild_id = ${q.guildId}`];
    // Words joined with & as plainto_tsquery would, built here so both databases see the same words.
    const words = q.words.map((w) => `'${w}'`).join(' & ');
    if (words) conds.push(sql`tsv @@ to_tsquery('simple', ${words})`);
    const metaExpr = [...q.filter.all.map((g) => `(${g.map((t) => `'${t}'`).join(' | ')})`), ...q.filter.not.map((t) => `!'${t}'`)].join(' & ');
    if (metaExpr) conds.push(sql`to_tsvector('simple', meta) @@ to_tsquery('simple', ${metaExpr})`);
    if (q.maxId !== undefined) {
      const side = idSide(q.maxId);
      if (side === 'below') return { ids: [], total: 0 };
      if (side === 'same') conds.push(sql`message_id < ${q.maxId}`);
    }
    if (q.minId !== undefined) {
      const side = idSide(q.minId);
      if (side === 'above') return { ids: [], total: 0 };
      if (side === 'same') conds.push(sql`message_id > ${q.minId}`);
    }
    const where = sql.join(conds, sql` AND `);
    const dir = q.order === 'asc' ? sql`ASC` : sql`DESC`;
    const order = q.sort === 'relevance' && words ? sql`ts_rank(tsv, to_tsquery('simple', ${words})) DESC, message_id DESC` : sql`message_id ${dir}`;
    const rows = await sql<{ id: string }>`SELECT message_id AS id FROM message_search WHERE ${where} ORDER BY ${order} LIMIT ${q.limit} OFFSET ${q.offset}`.execute(this.db);
    const ids = rows.rows.map((r) => r.id);
    if (ids.length < q.limit && (ids.length > 0 || q.offset === 0)) return { ids, total: q.offset + ids.length };
    const total = await sql<{ n: string }>`SELECT count(*) AS n FROM (SELECT 1 FROM message_search WHERE ${where} LIMIT ${TOTAL_CAP}) s`.execute(this.db);
    return { ids, total: Number(total.rows[0]?.n ?? 0) };
  }
}
