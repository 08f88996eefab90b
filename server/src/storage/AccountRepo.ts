import type { Kysely, Transaction } from 'kysely';
import { hashSecret, newSecret } from '../auth/secrets.ts';
import { type AccountsTable, type Database, type UsersTable, toMs } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';

type Db = Kysely<Database> | Transaction<Database>;

export interface WebSession {
  userId: string;
  csrf: string;
  expiresAt: number;
}

/** Full platform accounts (sign-in names and password hashes) and their browser sessions. */
export class AccountRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  /** Creates the user and its credentials in one transaction; undefined when the name is taken. */
  async create(input: { login: string; displayName: string | null; email: string | null; passwordHash: string }): Promise<UsersTable | undefined> {
    const login = input.login.toLowerCase();
    const now = Date.now();
    const user: UsersTable = {
      id: this.ids.next(),
      username: login,
      global_name: input.displayName,
      avatar: null,
      is_provisional: 0,
      is_bot: 0,
      created_at: now,
    };
    try {
      await this.db.transaction().execute(async (tx) => {
        await tx.insertInto('users').values(user).execute();
        await tx.insertInto('accounts').values({ user_id: user.id, login, email: input.email, password_hash: input.passwordHash, created_at: now }).execute();
      });
      return user;
    } catch (err) {
      // A unique violation on the name (users.username or accounts.login) means it is taken.
      if (await this.findByLogin(login)) return undefined;
      if (await this.db.selectFrom('users').select('id').where('username', '=', login).executeTakeFirst()) return undefined;
      throw err;
    }
  }

  async findByLogin(login: string): Promise<AccountsTable | undefined> {
    return this.db.selectFrom('accounts').selectAll().where('login', '=', login.toLowerCase()).executeTakeFirst();
  }

  async get(userId: string): Promise<AccountsTable | undefined> {
    return this.db.selectFrom('accounts').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }

  /** A new browser session; returns the cookie value (only its hash is stored). */
  async openSession(userId: string, ttlMs: number): Promise<{ cookie: string; csrf: string }> {
    const cookie = newSecret();
    const csrf = newSecret();
    const now = Date.now();
    await this.db.insertInto('web_sessions').values({ id_hash: hashSecret(cookie), user_id: userId, csrf, expires_at: now + ttlMs, created_at: now }).execute();
    return { cookie, csrf };
  }

  async session(cookie: string, now = Date.now()): Promise<WebSession | undefined> {
    const row = await this.db.selectFrom('web_sessions').selectAll().where('id_hash', '=', hashSecret(cookie)).executeTakeFirst();
    if (!row || toMs(row.expires_at)! <= now) return undefined;
    return { userId: row.user_id, csrf: row.csrf, expiresAt: toMs(row.expires_at)! };
  }

  async closeSession(cookie: string): Promise<void> {
    await this.db.deleteFrom('web_sessions').where('id_hash', '=', hashSecret(cookie)).execute();
  }

  /** Ends every browser session of a user (a ban). */
  async closeSessionsOf(tx: Db, userId: string): Promise<void> {
    await tx.deleteFrom('web_sessions').where('user_id', '=', userId).execute();
  }
}
