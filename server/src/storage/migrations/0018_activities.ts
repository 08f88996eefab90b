import type { Kysely, Migration } from 'kysely';

/**
 * Embedded apps (issue 17): an application's activity settings (enabled, URL mappings, supported
 * platforms, orientation), and activity instances, one per launch location while anyone is in
 * it, with their participants. Mappings and platforms are JSON text: they are read and written
 * whole, never queried by part.
 */
export const m0018_activities: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('activity_settings')
      .addColumn('application_id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('url_mappings', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('supported_platforms', 'text', (c) => c.notNull().defaultTo('["web"]'))
      .addColumn('orientation', 'varchar(16)', (c) => c.notNull().defaultTo('unlocked'))
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('activity_instances')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('launch_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('location_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('location_kind', 'varchar(4)', (c) => c.notNull())
      .addColumn('guild_id', 'varchar(20)')
      .addColumn('channel_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    // One live instance per application and launch location: a second launch joins it.
    await db.schema.createIndex('activity_instances_location').on('activity_instances').columns(['application_id', 'location_id']).unique().execute();
    await db.schema
      .createTable('activity_participants')
      .addColumn('instance_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('joined_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('activity_participants_pk', ['instance_id', 'user_id'])
      .execute();
    await db.schema.createIndex('activity_participants_user').on('activity_participants').columns(['user_id']).execute();
  },
};
