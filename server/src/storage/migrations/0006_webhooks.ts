import type { Kysely, Migration } from 'kysely';

/**
 * Webhook delivery (issue 15): each application's Ed25519 key pair (the public half is the
 * `verify_key`), its event-webhook settings with the delivery lease that keeps one node per
 * application at a time, and the delivery state of each outbox row.
 */
export const m0006_webhooks: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('application_keys')
      .addColumn('application_id', 'varchar(20)', (c) => c.primaryKey().references('applications.id').onDelete('cascade'))
      /** 32-byte Ed25519 public key, hex: the application's public `verify_key`. */
      .addColumn('public_key', 'varchar(64)', (c) => c.notNull())
      /** PKCS#8 DER of the private key, hex. */
      .addColumn('private_key', 'varchar(128)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('webhook_settings')
      .addColumn('application_id', 'varchar(20)', (c) => c.primaryKey().references('applications.id').onDelete('cascade'))
      .addColumn('url', 'varchar(2048)')
      /** 1 disabled, 2 enabled, 3 disabled by the platform after sustained failure. */
      .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
      /** JSON array of subscribed event types. */
      .addColumn('types', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('last_error', 'varchar(500)')
      .addColumn('disabled_at', 'bigint')
      /** Delivery lease: the node delivering this application's events, until when (ms). */
      .addColumn('lease_owner', 'varchar(64)')
      .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
      /** The queue waits until then after a failed attempt (backoff with jitter). */
      .addColumn('retry_at', 'bigint', (c) => c.notNull().defaultTo(0))
      /** Start of the current failure streak; null after a success. */
      .addColumn('failing_since', 'bigint')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    const add = (name: string, type: 'bigint' | 'integer' | 'varchar(500)') => db.schema.alterTable('webhook_events').addColumn(name, type).execute();
    await add('last_attempt_at', 'bigint');
    /** HTTP status of the last attempt, 0 when it got none (timeout, refused, reset). */
    await add('last_status', 'integer');
    await add('last_error', 'varchar(500)');
    await add('latency_ms', 'integer');
    /** Set when the event is not delivered by design (its type not subscribed when due). */
    await add('skipped_at', 'bigint');
    await db.schema.createIndex('webhook_events_app_pending').on('webhook_events').columns(['application_id', 'delivered_at', 'id']).execute();
  },
};
