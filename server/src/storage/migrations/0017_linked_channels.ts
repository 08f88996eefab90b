import type { Kysely, Migration } from 'kysely';

/**
 * Linked channels (issue 12): a lobby linked to one guild text channel (one lobby per channel,
 * one channel per lobby), and the pairs of messages the mirror made, so that an edit or delete on
 * either side finds its copy and a copy is never mirrored back. `origin` says which side the
 * message was written on ('lobby' or 'channel'); `edited_at` is the lobby copy's last edit
 * (lobby_messages has no edit column: lobby messages themselves cannot be edited by the SDK).
 */
export const m0017_linked_channels: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('lobby_channel_links')
      .addColumn('lobby_id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('channel_id', 'varchar(20)', (c) => c.notNull().unique())
      .addColumn('guild_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('linked_by', 'varchar(20)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('lobby_message_mirrors')
      .addColumn('lobby_message_id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('channel_message_id', 'varchar(20)', (c) => c.notNull().unique())
      .addColumn('lobby_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('channel_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('guild_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('origin', 'varchar(10)', (c) => c.notNull())
      .addColumn('edited_at', 'bigint')
      .execute();
    await db.schema.createIndex('lobby_message_mirrors_lobby').on('lobby_message_mirrors').columns(['lobby_id']).execute();
  },
};
