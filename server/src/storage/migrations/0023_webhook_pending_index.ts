import type { Kysely, Migration } from 'kysely';

/**
 * The webhook worker's reads of what is left to send (the claim's `exists` every 250 ms on every
 * node, and each batch) ask for an application's events neither delivered nor skipped. The
 * queue's index (`application_id, delivered_at, id`) held skipped events among them, since they
 * keep `delivered_at` null: an application that records events it is not subscribed to (a busy
 * lobby chat with no lobby webhooks) had each read walk its whole retention of skipped rows to
 * find nothing. With `skipped_at` in the key both are equality terms (`is null`), and the range
 * holds only the events still to send, in id order. (A partial index would hold only those, but
 * SQLite's planner, without statistics, took the wider index beside it.) `if [not] exists`: see
 * 0021.
 */
export const m0023_webhook_pending_index: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('webhook_events_app_to_send').ifNotExists().on('webhook_events').columns(['application_id', 'delivered_at', 'skipped_at', 'id']).execute();
    await db.schema.dropIndex('webhook_events_app_pending').ifExists().execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.createIndex('webhook_events_app_pending').ifNotExists().on('webhook_events').columns(['application_id', 'delivered_at', 'id']).execute();
    await db.schema.dropIndex('webhook_events_app_to_send').ifExists().execute();
  },
};
