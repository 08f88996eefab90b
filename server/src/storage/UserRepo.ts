import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { User } from '@social-layer/protocol';
import type { Database, UsersTable } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';
import { primaryGuildWire } from '../guilds/primaryGuildWire.ts';
import { PreparedQuery } from './preparedQuery.ts';
import { PreparedListQuery } from './preparedListQuery.ts';

export function userToWire(row: UsersTable): User {
  return {
    id: row.id,
    username: row.username,
    global_name: row.global_name,
    avatar: row.avatar,
    discriminator: '0',
    bot: row.is_bot === 1,
    is_provisional: row.is_provisional === 1,
    // The guild tag the user shows (issue 10), once they have chosen one: guilds/primaryGuildWire.ts.
    ...primaryGuildWire(row),
  };
}

/**
 * Another user as the public Get User answers (the public User object's fields, nothing of ours):
 * the flags, banner, accent colour, decoration and collectibles that this platform has none of
 * are 0 or null, and `primary_guild` is null until the user has chosen one.
 */
export function publicUserWire(row: UsersTable) {
  const { is_provisional: _provisional, ...user } = userToWire(row);
  return {
    ...user,
    public_flags: 0,
    flags: 0,
    banner: null,
    accent_color: null,
    avatar_decoration_data: null,
    collectibles: null,
    primary_guild: user.primary_guild ?? null,
  };
}

/** The most frequent read there is (storage/preparedQuery.ts). */
const byId = new PreparedQuery(1, (db, id: string) => db.selectFrom('users').selectAll().where('id', '=', id));
/** Several users (a page's authors, a message's mentions; most often one, its author). */
const byIds = new PreparedListQuery(0, (db, ids: readonly string[]) => db.selectFrom('users').selectAll().where('id', 'in', ids));

export class UserRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  async get(id: string): Promise<UsersTable | undefined> {
    return byId.first(this.db, this.db, id);
  }

  async getMany(ids: readonly string[]): Promise<Map<string, UsersTable>> {
    const out = new Map<string, UsersTable>();
    if (ids.length === 0) return out;
    const unique = [...new Set(ids)];
    const rows = await byIds.all(this.db, this.db, unique);
    for (const r of rows) out.set(r.id, r);
    return out;
  }

  async setGlobalName(id: string, name: string | null): Promise<void> {
    await this.db.updateTable('users').set({ global_name: name }).where('id', '=', id).execute();
  }

  /**
   * The provisional user behind an external identity of one application, created on first use.
   * The insert races safely: a concurrent creator loses on the primary key and reads the winner.
   */
  async findOrCreateProvisional(
    applicationId: string,
    authType: string,
    externalId: string,
    preferredName: string | undefined,
  ): Promise<{ user: UsersTable; created: boolean }> {
    const existing = await this.findByIdentity(applicationId, authType, externalId);
    if (existing) return { user: existing, created: false };
    const now = Date.now();
    const id = this.ids.next();
    const user: UsersTable = {
      id,
      username: `guest_${randomBytes(6).toString('hex')}`,
      global_name: preferredName ?? null,
      avatar: null,
      is_provisional: 1,
      is_bot: 0,
      created_at: now,
    };
    try {
      await this.db.transaction().execute(async (tx) => {
        await tx.insertInto('users').values(user).execute();
        await tx.insertInto('external_identities').values({
          application_id: applicationId,
          auth_type: authType,
          external_id: externalId,
          user_id: id,
          created_at: now,
        }).execute();
      });
      return { user, created: true };
    } catch (err) {
      const winner = await this.findByIdentity(applicationId, authType, externalId);
      if (winner) return { user: winner, created: false };
      throw err;
    }
  }

  private async findByIdentity(applicationId: string, authType: string, externalId: string): Promise<UsersTable | undefined> {
    return this.db
      .selectFrom('external_identities as e')
      .innerJoin('users as u', 'u.id', 'e.user_id')
      .selectAll('u')
      .where('e.application_id', '=', applicationId)
      .where('e.auth_type', '=', authType)
      .where('e.external_id', '=', externalId)
      .executeTakeFirst();
  }
}
