import { PostgresAdapter, sql, type Kysely, type Migration } from 'kysely';

/**
 * Issue 11, second slice: the guild message search index, AutoMod rules and the audit log.
 *
 * Search: SQLite keeps an FTS5 table (contentless, so the text is not stored twice; rowid = the
 * message's snowflake as an integer; `meta` holds filter tokens such as `g<guild>` `c<channel>`
 * `a<author>` `u<mentioned user>` `hfile` so every filter is an index lookup). PostgreSQL keeps
 * `message_search` with a `tsvector` under a GIN index. `message_search_guilds` tracks each
 * guild's index: building (a backfill walks the guild's messages by ID) or ready.
 */
export const m0012_search_automod_audit: Migration = {
  async up(db: Kysely<any>) {
    const postgres = await isPostgres(db);
    // Backfill walks one guild by ID.
    await db.schema.createIndex('channel_messages_guild').on('channel_messages').columns(['guild_id', 'id']).execute();

    await db.schema
      .createTable('message_search_guilds')
      .addColumn('guild_id', 'varchar(20)', (c) => c.primaryKey())
      // 0 building, 1 ready.
      .addColumn('state', 'integer', (c) => c.notNull())
      // Last message ID the backfill indexed; it stops at `target` (the newest ID when it began).
      .addColumn('cursor', 'varchar(20)')
      .addColumn('target', 'varchar(20)')
      .addColumn('indexed', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    if (postgres) {
      await db.schema
        .createTable('message_search')
        .addColumn('message_id', 'varchar(20)', (c) => c.primaryKey())
        .addColumn('guild_id', 'varchar(20)', (c) => c.notNull())
        .addColumn('channel_id', 'varchar(20)', (c) => c.notNull())
        .addColumn('author_id', 'varchar(20)', (c) => c.notNull())
        // Space-separated filter tokens (mentions, has:*, bot), as in SQLite's `meta`.
        .addColumn('meta', 'text', (c) => c.notNull())
        .addColumn('tsv', sql`tsvector`, (c) => c.notNull())
        .execute();
      await sql`CREATE INDEX message_search_tsv ON message_search USING GIN (tsv)`.execute(db);
      await sql`CREATE INDEX message_search_meta ON message_search USING GIN (to_tsvector('simple', meta))`.execute(db);
      await db.schema.createIndex('message_search_guild').on('message_search').columns(['guild_id', 'message_id']).execute();
    } else {
      await sql`CREATE VIRTUAL TABLE message_search_fts USING fts5(content, meta, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`.execute(db);
    }

    await db.schema
      .createTable('automod_rules')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('guild_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('creator_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('event_type', 'integer', (c) => c.notNull())
      .addColumn('trigger_type', 'integer', (c) => c.notNull())
      // JSON of the public trigger_metadata, actions and exempt lists.
      .addColumn('trigger_metadata', 'text', (c) => c.notNull())
      .addColumn('actions', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('exempt_roles', 'text', (c) => c.notNull())
      .addColumn('exempt_channels', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('automod_rules_guild').on('automod_rules').columns(['guild_id', 'id']).execute();

    await db.schema
      .createTable('audit_log_entries')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('guild_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('user_id', 'varchar(20)')
      .addColumn('action_type', 'integer', (c) => c.notNull())
      .addColumn('target_id', 'varchar(20)')
      // JSON: [{key, old_value?, new_value?}] and the entry's optional info.
      .addColumn('changes', 'text')
      .addColumn('options', 'text')
      .addColumn('reason', 'varchar(512)')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_log_guild').on('audit_log_entries').columns(['guild_id', 'id']).execute();
    await db.schema.createIndex('audit_log_guild_action').on('audit_log_entries').columns(['guild_id', 'action_type', 'id']).execute();
    await db.schema.createIndex('audit_log_guild_user').on('audit_log_entries').columns(['guild_id', 'user_id', 'id']).execute();
  },
};

/** The dialect from kysely's adapter (a failing probe query would abort PostgreSQL's migration transaction). */
async function isPostgres(db: Kysely<any>): Promise<boolean> {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
