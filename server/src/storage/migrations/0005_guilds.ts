import { type Kysely, type Migration } from 'kysely';

/**
 * Guilds (issue 10): guilds, their channels, roles, members (with their roles), bans, invites
 * (with target users), and emojis of guilds and of applications. Permission bitfields are stored
 * as decimal strings: they exceed 2^53 and both dialects compare them as text only for equality.
 * JSON lists (features, permission overwrites, role colours, invite role IDs) are TEXT.
 */
export const m0005_guilds: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('guilds')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('icon', 'varchar(64)')
      .addColumn('banner', 'varchar(64)')
      .addColumn('description', 'varchar(300)')
      .addColumn('owner_id', 'varchar(20)', (c) => c.notNull().references('users.id'))
      .addColumn('features', 'text', (c) => c.notNull())
      .addColumn('tag', 'varchar(4)')
      .addColumn('system_channel_id', 'varchar(20)')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('guild_channels')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('guild_id', 'varchar(20)', (c) => c.notNull().references('guilds.id').onDelete('cascade'))
      .addColumn('type', 'integer', (c) => c.notNull())
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('parent_id', 'varchar(20)')
      .addColumn('topic', 'varchar(1024)')
      .addColumn('nsfw', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('bitrate', 'integer')
      .addColumn('user_limit', 'integer')
      .addColumn('rate_limit_per_user', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('permission_overwrites', 'text', (c) => c.notNull())
      .addColumn('application_id', 'varchar(20)')
      .addColumn('flags', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'varchar(500)')
      .addColumn('voice_start_time', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('guild_channels_guild').on('guild_channels').columns(['guild_id', 'position']).execute();

    await db.schema
      .createTable('guild_roles')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('guild_id', 'varchar(20)', (c) => c.notNull().references('guilds.id').onDelete('cascade'))
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('permissions', 'varchar(20)', (c) => c.notNull())
      .addColumn('color', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('colors', 'text', (c) => c.notNull())
      .addColumn('icon', 'varchar(64)')
      .addColumn('unicode_emoji', 'varchar(32)')
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('hoist', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('managed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('mentionable', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('bot_user_id', 'varchar(20)')
      .addColumn('flags', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('guild_roles_guild').on('guild_roles').columns(['guild_id', 'position']).execute();

    await db.schema
      .createTable('guild_members')
      .addColumn('guild_id', 'varchar(20)', (c) => c.notNull().references('guilds.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('nick', 'varchar(32)')
      .addColumn('avatar', 'varchar(64)')
      .addColumn('banner', 'varchar(64)')
      .addColumn('bio', 'varchar(190)')
      .addColumn('flags', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('communication_disabled_until', 'bigint')
      .addColumn('joined_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('guild_members_pk', ['guild_id', 'user_id'])
      .execute();
    await db.schema.createIndex('guild_members_user').on('guild_members').column('user_id').execute();

    await db.schema
      .createTable('guild_member_roles')
      .addColumn('guild_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('role_id', 'varchar(20)', (c) => c.notNull().references('guild_roles.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('guild_member_roles_pk', ['guild_id', 'user_id', 'role_id'])
      .addForeignKeyConstraint('guild_member_roles_member', ['guild_id', 'user_id'], 'guild_members', ['guild_id', 'user_id'], (c) => c.onDelete('cascade'))
      .execute();
    await db.schema.createIndex('guild_member_roles_role').on('guild_member_roles').column('role_id').execute();

    await db.schema
      .createTable('guild_bans')
      .addColumn('guild_id', 'varchar(20)', (c) => c.notNull().references('guilds.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('reason', 'varchar(512)')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('guild_bans_pk', ['guild_id', 'user_id'])
      .execute();

    await db.schema
      .createTable('guild_invites')
      .addColumn('code', 'varchar(16)', (c) => c.primaryKey())
      .addColumn('guild_id', 'varchar(20)', (c) => c.notNull().references('guilds.id').onDelete('cascade'))
      .addColumn('channel_id', 'varchar(20)', (c) => c.notNull().references('guild_channels.id').onDelete('cascade'))
      .addColumn('inviter_id', 'varchar(20)', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('max_age', 'integer', (c) => c.notNull())
      .addColumn('max_uses', 'integer', (c) => c.notNull())
      .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('temporary', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('role_ids', 'text', (c) => c.notNull())
      .addColumn('has_target_users', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint')
      .execute();
    await db.schema.createIndex('guild_invites_channel').on('guild_invites').column('channel_id').execute();

    await db.schema
      .createTable('guild_invite_target_users')
      .addColumn('code', 'varchar(16)', (c) => c.notNull().references('guild_invites.code').onDelete('cascade'))
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull())
      .addPrimaryKeyConstraint('guild_invite_target_users_pk', ['code', 'user_id'])
      .execute();

    // Guild emojis have a guild; application emojis (managed with the bot token) an application.
    await db.schema
      .createTable('emojis')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('guild_id', 'varchar(20)', (c) => c.references('guilds.id').onDelete('cascade'))
      .addColumn('application_id', 'varchar(20)', (c) => c.references('applications.id').onDelete('cascade'))
      .addColumn('name', 'varchar(32)', (c) => c.notNull())
      .addColumn('animated', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('creator_id', 'varchar(20)')
      // The image as a data URI (≤ 256 KiB) until the attachment store exists; served at /emojis/{id}.
      .addColumn('image', 'text', (c) => c.notNull())
      .addColumn('roles', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    // When an operator approved the application's privileged intents (needed at 10,000 users;
    // the approval lapses after a year): `apps approve-intents`.
    await db.schema.alterTable('applications').addColumn('privileged_intents_approved_at', 'bigint').execute();

    await db.schema.createIndex('emojis_guild').on('emojis').column('guild_id').execute();
    await db.schema.createIndex('emojis_application').on('emojis').column('application_id').execute();
  },
};
