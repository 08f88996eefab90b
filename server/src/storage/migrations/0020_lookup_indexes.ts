import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Three lookups that read more than they answer (an audit of every first-row read against the
 * schema's keys):
 * - a friend request's spam check asks whether the recipient rejected the sender lately; the
 *   pair's index made it walk every request the pair ever made (nothing deletes that log) to test
 *   `rejected_at`. The index now ends with `rejected_at`, and replaces the pair-only one, whose
 *   reads (the rejection's update) it serves as well;
 * - a friend request by username matches `lower(username)`, which the unique index on `username`
 *   cannot serve: every such request scanned all users. An index on the expression serves it;
 * - a DM's command list finds the application whose bot the other user is by `bot_user_id`,
 *   which had no index: a scan of every application.
 * `if [not] exists`: SQLite runs migrations outside a transaction, so one cut short between its
 * statements must be able to run again.
 */
export const m0020_lookup_indexes: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('friend_request_log_rejections').ifNotExists().on('friend_request_log').columns(['recipient_id', 'sender_id', 'rejected_at']).execute();
    await db.schema.dropIndex('friend_request_log_pair').ifExists().execute();
    await db.schema.createIndex('users_username_lower').ifNotExists().on('users').expression(sql`lower(username)`).execute();
    await db.schema.createIndex('applications_bot_user').ifNotExists().on('applications').column('bot_user_id').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('applications_bot_user').execute();
    await db.schema.dropIndex('users_username_lower').execute();
    await db.schema.createIndex('friend_request_log_pair').on('friend_request_log').columns(['recipient_id', 'sender_id']).execute();
    await db.schema.dropIndex('friend_request_log_rejections').execute();
  },
};
