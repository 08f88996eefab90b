import type { Kysely } from 'kysely';
import { hashSecret, newSecret } from '../auth/secrets.ts';
import { type Database, toMs } from './schema.ts';

export interface TokenGrant {
  userId: string;
  applicationId: string;
  scopes: string[];
  expiresAt: number;
}

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
    const row = await this.db.selectFrom('access_tokens').selectAll().where('token_hash', '=', hashSecret(token)).executeTakeFirst();
    if (!row) return undefined;
    const expiresAt = toMs(row.expires_at)!;
    if (expiresAt <= now) return undefined;
    return { userId: row.user_id, applicationId: row.application_id, scopes: row.scopes.split(' ').filter(Boolean), expiresAt };
  }
}
