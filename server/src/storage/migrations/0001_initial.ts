import { type Kysely, type Migration } from 'kysely';

/** Accounts, tokens, lobbies and lobby messages. */
export const m0001_initial: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('applications')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('client_secret_hash', 'varchar(64)', (c) => c.notNull())
      .addColumn('bot_token_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('bot_user_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('public_client', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('flags', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('users')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('username', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('global_name', 'varchar(64)')
      .addColumn('avatar', 'varchar(64)')
      .addColumn('is_provisional', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('is_bot', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('external_identities')
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('auth_type', 'varchar(64)', (c) => c.notNull())
      .addColumn('external_id', 'varchar(256)', (c) => c.notNull())
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('external_identities_pk', ['application_id', 'auth_type', 'external_id'])
      .execute();

    await db.schema
      .createTable('access_tokens')
      .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('scopes', 'varchar(1000)', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('access_tokens_user').on('access_tokens').columns(['user_id', 'application_id']).execute();

    await db.schema
      .createTable('lobbies')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('secret', 'varchar(250)')
      .addColumn('metadata', 'text')
      .addColumn('idle_timeout_seconds', 'integer', (c) => c.notNull())
      .addColumn('idle_since', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('lobbies_app_secret', ['application_id', 'secret'])
      .execute();

    await db.schema
      .createTable('lobby_members')
      .addColumn('lobby_id', 'varchar(20)', (c) => c.notNull().references('lobbies.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('metadata', 'text')
      .addColumn('flags', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('additional_name', 'varchar(80)')
      .addColumn('joined_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('lobby_members_pk', ['lobby_id', 'user_id'])
      .execute();
    await db.schema.createIndex('lobby_members_user').on('lobby_members').column('user_id').execute();

    await db.schema
      .createTable('lobby_messages')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('lobby_id', 'varchar(20)', (c) => c.notNull().references('lobbies.id').onDelete('cascade'))
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('author_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('metadata', 'text')
      .addColumn('moderation_metadata', 'text')
      .addColumn('additional_name', 'varchar(80)')
      .addColumn('flags', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('lobby_messages_lobby_time').on('lobby_messages').columns(['lobby_id', 'created_at']).execute();
  },
};
