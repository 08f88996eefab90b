import { type Kysely, type Migration } from 'kysely';

/**
 * Full accounts and the OAuth2 provider: passwords, browser sessions, authorizations (the
 * "connected games"), codes, refresh tokens, device codes, ID-token signing keys, registered
 * redirect URIs and OIDC issuers per application, and the outbox of webhook events.
 */
export const m0003_accounts: Migration = {
  async up(db: Kysely<any>) {
    // Added columns need defaults: SQLite cannot add a NOT NULL column without one.
    await db.schema.alterTable('users').addColumn('premium_type', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    /** Null: not banned. A ban with no end is stored as the largest safe integer. */
    await db.schema.alterTable('users').addColumn('banned_until', 'bigint').execute();
    /** On the restricted provisional account a ban creates: the banned user it was split from. */
    await db.schema.alterTable('users').addColumn('restricted_from', 'varchar(20)').execute();
    await db.schema.alterTable('applications').addColumn('parent_id', 'varchar(20)').execute();
    /** Privileged scopes the application was approved for (space-separated), e.g. identify.premium. */
    await db.schema.alterTable('applications').addColumn('approved_scopes', 'varchar(1000)', (c) => c.notNull().defaultTo('')).execute();
    /** Access tokens from a code or a refresh carry the hash of their refresh token, so a refresh retires the pair. */
    await db.schema.alterTable('access_tokens').addColumn('refresh_hash', 'varchar(64)').execute();

    await db.schema
      .createTable('accounts')
      .addColumn('user_id', 'varchar(20)', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('login', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('email', 'varchar(254)')
      .addColumn('password_hash', 'varchar(256)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('web_sessions')
      .addColumn('id_hash', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('csrf', 'varchar(64)', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('oauth_redirect_uris')
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('uri', 'varchar(512)', (c) => c.notNull())
      .addPrimaryKeyConstraint('oauth_redirect_uris_pk', ['application_id', 'uri'])
      .execute();

    await db.schema
      .createTable('oidc_issuers')
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('issuer', 'varchar(512)', (c) => c.notNull())
      .addColumn('audience', 'varchar(256)', (c) => c.notNull())
      .addPrimaryKeyConstraint('oidc_issuers_pk', ['application_id', 'issuer'])
      .execute();

    await db.schema
      .createTable('oauth_authorizations')
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('scopes', 'varchar(1000)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('oauth_authorizations_pk', ['application_id', 'user_id'])
      .execute();
    await db.schema.createIndex('oauth_authorizations_user').on('oauth_authorizations').column('user_id').execute();

    await db.schema
      .createTable('oauth_codes')
      .addColumn('code_hash', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('redirect_uri', 'varchar(512)')
      .addColumn('scopes', 'varchar(1000)', (c) => c.notNull())
      .addColumn('code_challenge', 'varchar(128)')
      .addColumn('nonce', 'varchar(256)')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('refresh_tokens')
      .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('scopes', 'varchar(1000)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('refresh_tokens_user').on('refresh_tokens').columns(['user_id', 'application_id']).execute();

    await db.schema
      .createTable('device_codes')
      .addColumn('device_code_hash', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_code', 'varchar(16)', (c) => c.notNull().unique())
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('scopes', 'varchar(1000)', (c) => c.notNull())
      .addColumn('user_id', 'varchar(20)', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('interval_s', 'integer', (c) => c.notNull())
      .addColumn('last_poll_at', 'bigint')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('signing_keys')
      .addColumn('kid', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('alg', 'varchar(16)', (c) => c.notNull())
      .addColumn('private_pem', 'text', (c) => c.notNull())
      .addColumn('public_jwk', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('webhook_events')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('type', 'varchar(64)', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('delivered_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_events_pending').on('webhook_events').columns(['delivered_at', 'created_at']).execute();
  },
};
