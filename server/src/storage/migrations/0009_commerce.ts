import type { Kysely, Migration } from 'kysely';

/**
 * Commerce (issue 14): SKUs per application, entitlements (what a user or guild owns) and
 * subscriptions with their billing period, which the subscription scheduler advances.
 */
export const m0009_commerce: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('skus')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      /** DURABLE 2, CONSUMABLE 3, SUBSCRIPTION 5, SUBSCRIPTION_GROUP 6. */
      .addColumn('type', 'integer', (c) => c.notNull())
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('slug', 'varchar(120)', (c) => c.notNull())
      /** Public SKU flags: AVAILABLE 1<<2, USER_SUBSCRIPTION 1<<8. */
      .addColumn('flags', 'integer', (c) => c.notNull())
      /** Price in the smallest currency unit (cents). */
      .addColumn('price', 'integer', (c) => c.notNull())
      /** Subscriptions only: the billing period in days. */
      .addColumn('billing_period_days', 'integer')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('skus_app').on('skus').columns(['application_id', 'id']).execute();
    await db.schema.createIndex('skus_app_slug').on('skus').columns(['application_id', 'slug']).unique().execute();

    await db.schema
      .createTable('subscriptions')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('sku_id', 'varchar(20)', (c) => c.notNull().references('skus.id').onDelete('cascade'))
      /** JSON array of SKU IDs the subscription renews to; empty once canceled. */
      .addColumn('renewal_sku_ids', 'text', (c) => c.notNull())
      /** ACTIVE 0 (ours), INACTIVE 1, ENDING 2 (spec). */
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('canceled_at', 'bigint')
      .addColumn('current_period_start', 'bigint', (c) => c.notNull())
      .addColumn('current_period_end', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // The scheduler's query: due subscriptions that are not over.
    await db.schema.createIndex('subscriptions_due').on('subscriptions').columns(['status', 'current_period_end']).execute();
    await db.schema.createIndex('subscriptions_sku_user').on('subscriptions').columns(['sku_id', 'user_id', 'id']).execute();

    await db.schema
      .createTable('entitlements')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('sku_id', 'varchar(20)', (c) => c.notNull().references('skus.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(20)')
      .addColumn('guild_id', 'varchar(20)')
      /** Public entitlement type: PURCHASE 1, TEST_MODE_PURCHASE 4, APPLICATION_SUBSCRIPTION 8, ... */
      .addColumn('type', 'integer', (c) => c.notNull())
      .addColumn('starts_at', 'bigint')
      .addColumn('ends_at', 'bigint')
      .addColumn('consumed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
      /** Set on entitlements a developer made through the API (only those may be deleted). */
      .addColumn('test', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('subscription_id', 'varchar(20)', (c) => c.references('subscriptions.id').onDelete('set null'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('entitlements_app').on('entitlements').columns(['application_id', 'id']).execute();
    await db.schema.createIndex('entitlements_user').on('entitlements').columns(['application_id', 'user_id', 'id']).execute();

    /** Per application: whether the test-mode checkout is on (the portal's toggle). */
    await db.schema
      .createTable('commerce_settings')
      .addColumn('application_id', 'varchar(20)', (c) => c.primaryKey().references('applications.id').onDelete('cascade'))
      .addColumn('test_mode', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
