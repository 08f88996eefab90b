import type { Kysely, Migration } from 'kysely';

/**
 * Application commands and interactions (issue 13): commands per application (global, or per
 * guild), the interactions users started (state of the first response, the token's hash), and
 * the messages those interactions created (ephemeral ones are kept only here).
 */
export const m0014_interactions: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('application_commands')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('guild_id', 'varchar(20)')
      .addColumn('type', 'integer', (c) => c.notNull())
      .addColumn('name', 'varchar(32)', (c) => c.notNull())
      .addColumn('name_localizations', 'text')
      .addColumn('description', 'varchar(100)', (c) => c.notNull())
      .addColumn('description_localizations', 'text')
      .addColumn('options', 'text', (c) => c.notNull())
      .addColumn('default_member_permissions', 'varchar(20)')
      .addColumn('dm_permission', 'integer')
      .addColumn('nsfw', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('integration_types', 'text', (c) => c.notNull())
      .addColumn('contexts', 'text')
      .addColumn('handler', 'integer')
      .addColumn('version', 'varchar(20)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('application_commands_scope').on('application_commands').columns(['application_id', 'guild_id', 'type']).execute();

    await db.schema
      .createTable('interactions')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('type', 'integer', (c) => c.notNull())
      .addColumn('command_type', 'integer')
      .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('user_application_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('guild_id', 'varchar(20)')
      .addColumn('channel_id', 'varchar(20)')
      .addColumn('message_id', 'varchar(20)')
      .addColumn('authorizing', 'text', (c) => c.notNull())
      .addColumn('user_installed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('forced_ephemeral', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('nonce', 'varchar(64)')
      .addColumn('state', 'varchar(16)', (c) => c.notNull())
      .addColumn('response_type', 'integer')
      .addColumn('response_data', 'text')
      .addColumn('original_message_id', 'varchar(20)')
      .addColumn('followups', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('responded_at', 'bigint')
      .execute();

    // Every node's sweep: pending interactions past the deadline.
    await db.schema.createIndex('interactions_pending').on('interactions').columns(['state', 'created_at']).execute();

    await db.schema
      .createTable('interaction_messages')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('interaction_id', 'varchar(20)', (c) => c.notNull().references('interactions.id').onDelete('cascade'))
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('channel_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('original', 'integer', (c) => c.notNull())
      .addColumn('ephemeral', 'integer', (c) => c.notNull())
      .addColumn('message', 'text')
      .addColumn('poll', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    /** The application's interactions endpoint URL (PING-verified); none: interactions go over the Gateway. */
    await db.schema
      .createTable('interaction_endpoints')
      .addColumn('application_id', 'varchar(20)', (c) => c.primaryKey().references('applications.id').onDelete('cascade'))
      .addColumn('url', 'varchar(2048)', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('interaction_messages_interaction').on('interaction_messages').columns(['interaction_id']).execute();
  },
};
