import type { Kysely, Migration } from 'kysely';

/**
 * Application profiles (issue 19): the game profile a provider gave for each linked external
 * identity (UserApplicationProfileHandle). Keyed like external_identities, not by user, so a
 * profile follows its identity through merge, unmerge, unlink and ban without extra steps, and
 * goes with it (cascade) when the identity's row is deleted.
 */
export const m0007_application_profiles: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('application_profiles')
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('auth_type', 'varchar(64)', (c) => c.notNull())
      .addColumn('external_id', 'varchar(256)', (c) => c.notNull())
      /** ExternalIdentityProviderType by name: OIDC, EPIC_ONLINE_SERVICES, STEAM, UNITY, DISCORD_BOT. */
      .addColumn('provider_type', 'varchar(32)', (c) => c.notNull())
      /** The configured issuer (OIDC) or the application (DISCORD_BOT) that vouched for the identity. */
      .addColumn('provider_id', 'varchar(512)')
      /** The user's ID at the provider (an OIDC `sub`, the game's own player ID). */
      .addColumn('provider_issued_user_id', 'varchar(256)', (c) => c.notNull())
      .addColumn('username', 'varchar(256)')
      /** As the provider gives it: an OIDC `picture` claim is a URL. */
      .addColumn('avatar_hash', 'varchar(1024)')
      .addColumn('metadata', 'text')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('application_profiles_pk', ['application_id', 'auth_type', 'external_id'])
      .addForeignKeyConstraint('application_profiles_identity', ['application_id', 'auth_type', 'external_id'], 'external_identities', ['application_id', 'auth_type', 'external_id'], (fk) =>
        fk.onDelete('cascade'),
      )
      .execute();
    // Profiles are read by user (READY, /users/@me), through the identity's user_id, which had no index.
    await db.schema.createIndex('external_identities_user').on('external_identities').columns(['user_id', 'application_id']).execute();
  },
};
