import type { Kysely, Migration } from 'kysely';

/**
 * Issue 10's last guild pieces:
 * - `primary_guild` on users (the guild tag a user shows beside their name): the chosen guild,
 *   whether it is shown (null when the system cleared it: the user left, or the guild dropped its
 *   tag), and the tag and badge copied from the guild so every user object can be written
 *   without a join; a guild that changes its tag rewrites its wearers' copies.
 * - `guilds.badge`: the tag's badge (an image hash, like icons).
 * - `oauth_codes.guild_id`: a `bot` authorization that also asked for user scopes returns a code
 *   (the public "advanced bot authorization"); its token response carries the guild.
 * - `guild_members.mute` / `deaf`: server mute and deafen (Modify Guild Member), kept on the member
 *   as the public member object's `mute`/`deaf` are, so they hold when the member rejoins voice.
 *   (Added to this migration before it reached any release: nothing had run it outside tests.)
 */
export const m0011_primary_guild: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('guilds').addColumn('badge', 'varchar(64)').execute();
    await db.schema.alterTable('users').addColumn('primary_guild_id', 'varchar(20)').execute();
    await db.schema.alterTable('users').addColumn('primary_guild_enabled', 'integer').execute();
    await db.schema.alterTable('users').addColumn('primary_guild_tag', 'varchar(4)').execute();
    await db.schema.alterTable('users').addColumn('primary_guild_badge', 'varchar(64)').execute();
    await db.schema.createIndex('users_primary_guild').on('users').column('primary_guild_id').execute();
    await db.schema.alterTable('oauth_codes').addColumn('guild_id', 'varchar(20)').execute();
    await db.schema.alterTable('guild_members').addColumn('mute', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('guild_members').addColumn('deaf', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
};
