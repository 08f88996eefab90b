import type { Kysely, Transaction } from 'kysely';
import { hashSecret } from '../auth/secrets.ts';
import {
  type Database,
  type DeviceCodesTable,
  type OAuthAuthorizationsTable,
  type OAuthCodesTable,
  type OidcIssuersTable,
  toMs,
} from './schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * The OAuth2 provider's rows: registered redirect URIs and OIDC issuers per application,
 * authorizations (one per user and application: the "connected games"), authorization codes
 * and device codes. Codes are stored as hashes, like tokens.
 */
export class OAuthRepo {
  constructor(private readonly db: Kysely<Database>) {}

  // ---- application configuration ----

  async redirectUris(applicationId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('oauth_redirect_uris').select('uri').where('application_id', '=', applicationId).execute();
    return rows.map((r) => r.uri);
  }

  async setRedirectUris(applicationId: string, uris: string[]): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('oauth_redirect_uris').where('application_id', '=', applicationId).execute();
      for (const uri of new Set(uris)) await tx.insertInto('oauth_redirect_uris').values({ application_id: applicationId, uri }).execute();
    });
  }

  async oidcIssuers(applicationId: string): Promise<OidcIssuersTable[]> {
    return this.db.selectFrom('oidc_issuers').selectAll().where('application_id', '=', applicationId).execute();
  }

  async setOidcIssuers(applicationId: string, issuers: { issuer: string; audience: string }[]): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('oidc_issuers').where('application_id', '=', applicationId).execute();
      for (const i of issuers) await tx.insertInto('oidc_issuers').values({ application_id: applicationId, issuer: i.issuer, audience: i.audience }).execute();
    });
  }

  // ---- authorizations ----

  async authorization(tx: Db, applicationId: string, userId: string): Promise<OAuthAuthorizationsTable | undefined> {
    return tx.selectFrom('oauth_authorizations').selectAll().where('application_id', '=', applicationId).where('user_id', '=', userId).executeTakeFirst();
  }

  /** Records (or widens) the scopes a user granted an application. */
  async grant(tx: Db, applicationId: string, userId: string, scopes: string[]): Promise<{ created: boolean }> {
    const now = Date.now();
    const existing = await this.authorization(tx, applicationId, userId);
    if (!existing) {
      await tx.insertInto('oauth_authorizations').values({ application_id: applicationId, user_id: userId, scopes: scopes.join(' '), created_at: now, updated_at: now }).execute();
      return { created: true };
    }
    const merged = [...new Set([...existing.scopes.split(' ').filter(Boolean), ...scopes])];
    await tx.updateTable('oauth_authorizations').set({ scopes: merged.join(' '), updated_at: now }).where('application_id', '=', applicationId).where('user_id', '=', userId).execute();
    return { created: false };
  }

  /** Removes the authorization; true when there was one. */
  async removeAuthorization(tx: Db, applicationId: string, userId: string): Promise<boolean> {
    const r = await tx.deleteFrom('oauth_authorizations').where('application_id', '=', applicationId).where('user_id', '=', userId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** How many users have authorized the application (its approximate user install count). */
  async authorizationCount(applicationId: string): Promise<number> {
    const r = await this.db.selectFrom('oauth_authorizations').select((eb) => eb.fn.countAll<string | number>().as('n')).where('application_id', '=', applicationId).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** The applications a user has authorized, newest first (the account page's connected games). */
  async authorizationsOf(userId: string): Promise<(OAuthAuthorizationsTable & { name: string })[]> {
    return this.db
      .selectFrom('oauth_authorizations as a')
      .innerJoin('applications as app', 'app.id', 'a.application_id')
      .selectAll('a')
      .select('app.name as name')
      .where('a.user_id', '=', userId)
      .orderBy('a.created_at', 'desc')
      .execute();
  }

  // ---- codes ----

  async insertCode(tx: Db, code: string, row: Omit<OAuthCodesTable, 'code_hash' | 'used_at' | 'created_at'>): Promise<void> {
    await tx.insertInto('oauth_codes').values({ ...row, code_hash: hashSecret(code), used_at: null, created_at: Date.now() }).execute();
  }

  async findCode(tx: Db, code: string): Promise<OAuthCodesTable | undefined> {
    return tx.selectFrom('oauth_codes').selectAll().where('code_hash', '=', hashSecret(code)).executeTakeFirst();
  }

  /** Marks a code used; false when another request used it first (the update is the arbiter). */
  async useCode(tx: Db, codeHash: string): Promise<boolean> {
    const r = await tx.updateTable('oauth_codes').set({ used_at: Date.now() }).where('code_hash', '=', codeHash).where('used_at', 'is', null).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  // ---- device codes ----

  async insertDeviceCode(tx: Db, deviceCode: string, row: Omit<DeviceCodesTable, 'device_code_hash'>): Promise<void> {
    await tx.insertInto('device_codes').values({ ...row, device_code_hash: hashSecret(deviceCode) }).execute();
  }

  async findDeviceCode(tx: Db, deviceCode: string): Promise<DeviceCodesTable | undefined> {
    return tx.selectFrom('device_codes').selectAll().where('device_code_hash', '=', hashSecret(deviceCode)).executeTakeFirst();
  }

  async findUserCode(tx: Db, userCode: string): Promise<DeviceCodesTable | undefined> {
    return tx.selectFrom('device_codes').selectAll().where('user_code', '=', userCode).executeTakeFirst();
  }

  async updateDeviceCode(tx: Db, hash: string, set: Partial<Pick<DeviceCodesTable, 'status' | 'user_id' | 'last_poll_at' | 'interval_s'>>, expectStatus?: string): Promise<boolean> {
    let q = tx.updateTable('device_codes').set(set).where('device_code_hash', '=', hash);
    if (expectStatus) q = q.where('status', '=', expectStatus);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }
}

export { toMs };
