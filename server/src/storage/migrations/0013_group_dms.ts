import type { Kysely, Migration } from 'kysely';

/**
 * Group DM channels of full accounts (issue 11, channel type 3): the channel and its recipients.
 * One-to-one DM channels (type 1) need no table of their own: they are `dm_channels` (one per
 * pair of users, migration 0002), whose ID the game DMs already use; their public-shape messages
 * live in `channel_messages` with `guild_id` null, as group DM messages do.
 */
export const m0013_group_dms: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('group_dm_channels')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('owner_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('name', 'varchar(100)')
      /** The application that created it with access tokens (gdm.join); null when a user made it. */
      .addColumn('application_id', 'varchar(20)')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('group_dm_recipients')
      .addColumn('channel_id', 'varchar(20)', (c) => c.notNull().references('group_dm_channels.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('nick', 'varchar(32)')
      .addColumn('joined_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('group_dm_recipients_pk', ['channel_id', 'user_id'])
      .execute();
    await db.schema.createIndex('group_dm_recipients_user').on('group_dm_recipients').columns(['user_id']).execute();
  },
};
