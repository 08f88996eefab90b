import type { Kysely, Transaction } from 'kysely';
import { hashSecret, newSecret } from '../auth/secrets.ts';
import { type Database, toMs } from './schema.ts';
import { PreparedQuery } from './preparedQuery.ts';

export interface TokenGrant {
  userId: string;
  applicationId: string;
  scopes: string[];
  expiresAt: number;
}

type Db = Kysely<Database> | Transaction<Database>;

export interface IssuedPair {
  accessToken: string;
  refreshToken: string;
}

/** Every authenticated request's first read (storage/preparedQuery.ts). */
const byHash = new PreparedQuery(1, (db, hash: string) => db.selectFrom('access_tokens').selectAll().where('token_hash', '=', hash));

export class TokenRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async issue(userId: string, applicationId: string, scopes: string[], ttlSeconds: number): Promise<string> {
    const token = newSecret();
    const now = Date.now();
    await this.db.insertInto('access_tokens').values({
      token_hash: hashSecret(token),
      user_id: userId,
      application_id: applicationId,
      scopes: scopes.join(' '),
      expires_at: now + ttlSeconds * 1000,
      created_at: now,
    }).execute();
    return token;
  }

  /** The grant behind a live token; expired and unknown tokens both give undefined. */
  async resolve(token: string, now = Date.now()): Promise<TokenGrant | undefined> {
    const row = await byHash.first(this.db, this.db, hashSecret(token));
    if (!row) return undefined;
    const expiresAt = toMs(row.expires_at)!;
    if (expiresAt <= now) return undefined;
    return { userId: row.user_id, applicationId: row.application_id, scopes: row.scopes.split(' ').filter(Boolean), expiresAt };
  }

  /**
   * An access token with its refresh token (OAuth2 grants). Both are 256-bit random and stored
   * only as hashes; the access row names its refresh token so a refresh retires the pair.
   */
  async issuePair(tx: Db, userId: string, applicationId: string, grantedScopes: string[], accessScopes: string[], ttlSeconds: number): Promise<IssuedPair> {
    const accessToken = newSecret();
    const refreshToken = newSecret();
    const now = Date.now();
    const refreshHash = hashSecret(refreshToken);
    // The refresh token keeps the scopes as granted; the access token carries their expansion.
    await tx.insertInto('refresh_tokens').values({ token_hash: refreshHash, user_id: userId, application_id: applicationId, scopes: grantedScopes.join(' '), created_at: now }).execute();
    await tx.insertInto('access_tokens').values({
      token_hash: hashSecret(accessToken),
      user_id: userId,
      application_id: applicationId,
      scopes: accessScopes.join(' '),
      expires_at: now + ttlSeconds * 1000,
      created_at: now,
      refresh_hash: refreshHash,
    }).execute();
    return { accessToken, refreshToken };
  }

  /** An access token without a refresh token, inside a transaction (child tokens, client credentials). */
  async issueIn(tx: Db, userId: string, applicationId: string, scopes: string[], ttlSeconds: number): Promise<string> {
    const token = newSecret();
    const now = Date.now();
    await tx.insertInto('access_tokens').values({
      token_hash: hashSecret(token),
      user_id: userId,
      application_id: applicationId,
      scopes: scopes.join(' '),
      expires_at: now + ttlSeconds * 1000,
      created_at: now,
    }).execute();
    return token;
  }

  /** The refresh token's grant, or undefined when it was never issued or has been deleted. */
  async findRefresh(tx: Db, refreshToken: string): Promise<{ hash: string; userId: string; applicationId: string; scopes: string[] } | undefined> {
    const row = await tx.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', hashSecret(refreshToken)).executeTakeFirst();
    return row && { hash: row.token_hash, userId: row.user_id, applicationId: row.application_id, scopes: row.scopes.split(' ').filter(Boolean) };
  }

  /** Retires a refresh token and the access token issued with it (the old pair of a refresh). */
  async retirePair(tx: Db, refreshHash: string): Promise<void> {
    await tx.deleteFrom('access_tokens').where('refresh_hash', '=', refreshHash).execute();
    await tx.deleteFrom('refresh_tokens').where('token_hash', '=', refreshHash).execute();
  }

  /** Deletes every access and refresh token of a user, for one application or all of them. */
  async revokeAll(tx: Db, userId: string, applicationId?: string): Promise<void> {
    let a = tx.deleteFrom('access_tokens').where('user_id', '=', userId);
    let r = tx.deleteFrom('refresh_tokens').where('user_id', '=', userId);
    if (applicationId !== undefined) {
      a = a.where('application_id', '=', applicationId);
      r = r.where('application_id', '=', applicationId);
    }
    await a.execute();
    await r.execute();
  }

  /** Like resolve, by hash, for callers that already hold one; includes the row's user and app. */
  async resolveIn(tx: Db, token: string, now = Date.now()): Promise<TokenGrant | undefined> {
    const row = await tx.selectFrom('access_tokens').selectAll().where('token_hash', '=', hashSecret(token)).executeTakeFirst();
    if (!row || toMs(row.expires_at)! <= now) return undefined;
    return { userId: row.user_id, applicationId: row.application_id, scopes: row.scopes.split(' ').filter(Boolean), expiresAt: toMs(row.expires_at)! };
  }
}
