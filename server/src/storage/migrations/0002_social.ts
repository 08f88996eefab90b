import { type Kysely, type Migration } from 'kysely';

/** Relationships, friend-request history, direct messages, activity invites and presence settings. */
export const m0002_social: Migration = {
  async up(db: Kysely<any>) {
    // One row per direction and scope: `application_id` '0' is the platform relationship (across
    // games), any other value a game relationship in that application. Both users hold a row
    // (Friend/Friend, PendingOutgoing/PendingIncoming); a block is held only by the blocker.
    await db.schema
      .createTable('relationships')
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('other_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('type', 'integer', (c) => c.notNull())
      .addColumn('is_spam', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('since', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('relationships_pk', ['user_id', 'other_id', 'application_id'])
      .execute();
    await db.schema.createIndex('relationships_other').on('relationships').columns(['other_id', 'user_id']).execute();

    // Every friend request ever sent, for the spam heuristic (rate, and re-sends after a reject).
    await db.schema
      .createTable('friend_request_log')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('sender_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('recipient_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('rejected_at', 'bigint')
      .execute();
    await db.schema.createIndex('friend_request_log_sender').on('friend_request_log').columns(['sender_id', 'created_at']).execute();
    await db.schema.createIndex('friend_request_log_pair').on('friend_request_log').columns(['recipient_id', 'sender_id']).execute();

    // One DM channel per pair of users; `user_low` < `user_high` as snowflakes.
    await db.schema
      .createTable('dm_channels')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('user_low', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('user_high', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('dm_channels_pair', ['user_low', 'user_high'])
      .execute();

    await db.schema
      .createTable('direct_messages')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('channel_id', 'varchar(20)', (c) => c.notNull().references('dm_channels.id').onDelete('cascade'))
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('author_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('recipient_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('metadata', 'text')
      .addColumn('moderation_metadata', 'text')
      .addColumn('flags', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('edited_at', 'bigint')
      .execute();
    await db.schema.createIndex('direct_messages_channel_time').on('direct_messages').columns(['channel_id', 'created_at']).execute();

    await db.schema
      .createTable('activity_invites')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('sender_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('recipient_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('channel_id', 'varchar(20)', (c) => c.notNull().references('dm_channels.id').onDelete('cascade'))
      .addColumn('type', 'integer', (c) => c.notNull())
      .addColumn('party_id', 'varchar(128)', (c) => c.notNull())
      .addColumn('session_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('cover_image', 'varchar(300)')
      .addColumn('valid', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('activity_invites_recipient').on('activity_invites').columns(['recipient_id', 'created_at']).execute();
    await db.schema.createIndex('activity_invites_sender').on('activity_invites').columns(['sender_id', 'created_at']).execute();

    // Social settings of an application: the invite cover image uploaded for it and the web
    // game's launch URL for invite deep links.
    await db.schema
      .createTable('application_social_settings')
      .addColumn('application_id', 'varchar(20)', (c) => c.primaryKey().references('applications.id').onDelete('cascade'))
      .addColumn('cover_image', 'varchar(300)')
      .addColumn('launch_url', 'varchar(512)')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    // Who has played which game: the friends-list groups put those who played before first.
    await db.schema
      .createTable('application_players')
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('application_players_pk', ['application_id', 'user_id'])
      .execute();
    await db.schema.createIndex('application_players_user').on('application_players').column('user_id').execute();

    // The status a user chose (SetOnlineStatus); it outlives sessions, activities do not.
    await db.schema
      .createTable('user_presence_settings')
      .addColumn('user_id', 'varchar(20)', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
