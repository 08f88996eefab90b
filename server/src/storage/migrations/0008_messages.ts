import { type Kysely, type Migration } from 'kysely';

/**
 * Messages in guild text channels (issue 11), with their reactions and a nonce ledger for
 * `enforce_nonce`. `channel_id` has no foreign key to guild_channels so that DM and group-DM
 * channels of full accounts can share the table once they exist (server/README.md, Messages);
 * `guild_id` is null there. JSON lists (mentions, embeds, components, attachments, the reply
 * reference and forward snapshots) are TEXT. Pins are two columns on the message.
 */
export const m0008_messages: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('channel_messages')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('channel_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('guild_id', 'varchar(20)')
      .addColumn('author_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('application_id', 'varchar(20)')
      .addColumn('type', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('flags', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('tts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('nonce', 'varchar(25)')
      .addColumn('mention_everyone', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('mentions', 'text', (c) => c.notNull())
      .addColumn('mention_roles', 'text', (c) => c.notNull())
      .addColumn('embeds', 'text', (c) => c.notNull())
      .addColumn('components', 'text', (c) => c.notNull())
      .addColumn('attachments', 'text', (c) => c.notNull())
      .addColumn('message_reference', 'text')
      .addColumn('message_snapshots', 'text')
      .addColumn('interaction_metadata', 'text')
      .addColumn('pinned_at', 'bigint')
      .addColumn('edited_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    // History pages walk one channel by ID; slowmode looks up an author's last message in a channel.
    await db.schema.createIndex('channel_messages_channel').on('channel_messages').columns(['channel_id', 'id']).execute();
    await db.schema.createIndex('channel_messages_author').on('channel_messages').columns(['channel_id', 'author_id', 'id']).execute();
    await db.schema.createIndex('channel_messages_pins').on('channel_messages').columns(['channel_id', 'pinned_at']).execute();

    await db.schema
      .createTable('channel_message_reactions')
      .addColumn('message_id', 'varchar(20)', (c) => c.notNull().references('channel_messages.id').onDelete('cascade'))
      // `name:id` for custom emoji, the character(s) for Unicode emoji.
      .addColumn('emoji_key', 'varchar(120)', (c) => c.notNull())
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull())
      // 0 normal, 1 burst (super reaction).
      .addColumn('type', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('emoji_id', 'varchar(20)')
      .addColumn('emoji_name', 'varchar(100)', (c) => c.notNull())
      .addColumn('animated', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('channel_message_reactions_pk', ['message_id', 'emoji_key', 'user_id', 'type'])
      .execute();

    // One row per (author, nonce): the primary key makes two concurrent enforce_nonce sends create one message.
    await db.schema
      .createTable('channel_message_nonces')
      .addColumn('author_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('nonce', 'varchar(25)', (c) => c.notNull())
      .addColumn('message_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('channel_message_nonces_pk', ['author_id', 'nonce'])
      .execute();
  },
};
