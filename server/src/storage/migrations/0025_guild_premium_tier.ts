import type { Kysely, Migration } from 'kysely';

/**
 * A guild's boost level (`premium_tier`, 0 to 3), set by an operator: it raises the guild's
 * attachment size limit (messages/attachmentLimits.ts) and shows in the guild object.
 */
export const m0025_guild_premium_tier: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('guilds').addColumn('premium_tier', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('guilds').dropColumn('premium_tier').execute();
  },
};
