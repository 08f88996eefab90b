import type { Kysely, Migration } from 'kysely';

/**
 * The developer portal's channel obfuscation toggle (issue 10): 1 makes every bot session of the
 * application get obfuscated channels, as Identify capability 1<<15 does for one session.
 */
export const m0010_obfuscation_toggle: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('applications').addColumn('channel_obfuscation', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
};
