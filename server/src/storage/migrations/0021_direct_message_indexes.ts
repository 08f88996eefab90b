import type { Kysely, Migration } from 'kysely';

/**
 * Two reads of direct messages by their people, which only the channel's index served, so each
 * scanned the whole table (every DM of every user):
 * - whether the recipient ever wrote to the sender (the messaging policy's "they wrote first",
 *   on a DM send path that gets that far): `author_id = ? and recipient_id = ?`, one row;
 * - a user's conversation summaries: `author_id = ? or recipient_id = ?`, each side from its own
 *   index (SQLite's multi-index OR, PostgreSQL's bitmap OR).
 * `if not exists`: SQLite runs migrations outside a transaction, so one cut short between the
 * two statements must be able to run again.
 */
export const m0021_direct_message_indexes: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('direct_messages_author_recipient').ifNotExists().on('direct_messages').columns(['author_id', 'recipient_id']).execute();
    await db.schema.createIndex('direct_messages_recipient').ifNotExists().on('direct_messages').column('recipient_id').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('direct_messages_recipient').ifExists().execute();
    await db.schema.dropIndex('direct_messages_author_recipient').ifExists().execute();
  },
};
