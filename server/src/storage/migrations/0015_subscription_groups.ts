import { type Kysely, type Migration, sql } from 'kysely';
import { SnowflakeGenerator } from '../Snowflake.ts';

/**
 * SUBSCRIPTION_GROUP SKUs (issue 14): every SUBSCRIPTION SKU (type 5) has a system-made group SKU
 * (type 6) with the same name and slug, as the public API lists them. The slug stays unique per
 * application among the SKUs people make; a group shares its subscription's slug, unique among
 * groups. Subscription SKUs made before this migration get their group here.
 */
export const m0015_subscription_groups: Migration = {
  async up(db: Kysely<any>) {
    // Written to run again safely (the storage test re-runs it to check the backfill).
    await db.schema.dropIndex('skus_app_slug').ifExists().execute();
    await db.schema.dropIndex('skus_group_slug').ifExists().execute();
    await db.schema.createIndex('skus_app_slug').on('skus').columns(['application_id', 'slug']).unique().where(sql<boolean>`type <> 6`).execute();
    await db.schema.createIndex('skus_group_slug').on('skus').columns(['application_id', 'slug']).unique().where(sql<boolean>`type = 6`).execute();

    const ids = new SnowflakeGenerator();
    const subs = await db.selectFrom('skus').selectAll().where('type', '=', 5).execute();
    for (const s of subs) {
      const group = await db.selectFrom('skus').select('id').where('application_id', '=', s.application_id).where('slug', '=', s.slug).where('type', '=', 6).executeTakeFirst();
      if (group) continue;
      await db
        .insertInto('skus')
        // Flags without AVAILABLE (1<<2): a group is never sold on its own.
        .values({ id: ids.next(), application_id: s.application_id, type: 6, name: s.name, slug: s.slug, flags: Number(s.flags) & ~4, price: s.price, billing_period_days: null, created_at: Date.now() })
        .execute();
    }
  },
};
