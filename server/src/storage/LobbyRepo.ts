import { type Kysely, PostgresAdapter, sql, type Transaction } from 'kysely';
import { Limits, type Metadata } from '@social-layer/protocol';
import { type Database, type LobbiesTable, type LobbyMembersTable, type UsersTable, toMs } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';
import { PreparedQuery } from './preparedQuery.ts';

type Db = Kysely<Database> | Transaction<Database>;

export function encodeMetadata(m: Metadata | null | undefined): string | null {
  return m == null ? null : JSON.stringify(m);
}

export function decodeMetadata(text: string | null): Metadata | null {
  return text == null ? null : (JSON.parse(text) as Metadata);
}

export interface MemberUpsert {
  metadata?: Metadata | null;
  flags?: number;
  /** undefined = keep, null = clear (protocols.md 2.6). */
  additionalName?: string | null;
}

/** Every lobby request's reads (storage/preparedQuery.ts). */
const lobbyById = new PreparedQuery(1, (db, id: string) => db.selectFrom('lobbies').selectAll().where('id', '=', id));
const memberIdsOf = new PreparedQuery(1, (db, lobbyId: string) => db.selectFrom('lobby_members').select('user_id').where('lobby_id', '=', lobbyId));
/** A join's reads and its insert (createOrJoin, the lobby-join bench), built once as well. */
const lobbyBySecret = new PreparedQuery(2, (db, applicationId: string, secret: string) =>
  db.selectFrom('lobbies').selectAll().where('application_id', '=', applicationId).where('secret', '=', secret),
);
const memberOf = new PreparedQuery(2, (db, lobbyId: string, userId: string) => db.selectFrom('lobby_members').selectAll().where('lobby_id', '=', lobbyId).where('user_id', '=', userId));
const membersCount = new PreparedQuery(1, (db, lobbyId: string) =>
  db.selectFrom('lobby_members').select((eb) => eb.fn.countAll<string | number>().as('n')).where('lobby_id', '=', lobbyId),
);
const lobbiesOfUserCount = new PreparedQuery(2, (db, userId: string, applicationId: string) =>
  db
    .selectFrom('lobby_members as m')
    .innerJoin('lobbies as l', 'l.id', 'm.lobby_id')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('m.user_id', '=', userId)
    .where('l.application_id', '=', applicationId),
);
const insertMember = new PreparedQuery(6, (db, lobbyId: string, userId: string, metadata: string | null, flags: number, additionalName: string | null, joinedAt: number | string) =>
  db.insertInto('lobby_members').values({ lobby_id: lobbyId, user_id: userId, metadata, flags, additional_name: additionalName, joined_at: joinedAt }),
);
/**
 * Members with the user columns their wire form needs (userToWire), for one lobby. Read as arrays
 * (PreparedQuery.rows): memberWithUser below takes the values in this order.
 */
const withUserColumns = (db: Kysely<Database>, lobbyId: string) =>
  db
    .selectFrom('lobby_members as m')
    .leftJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'm.metadata', 'm.flags', 'm.additional_name', 'm.joined_at'])
    .select(['u.id as u_id', 'u.username', 'u.global_name', 'u.avatar', 'u.is_bot', 'u.is_provisional', 'u.created_at as u_created_at'])
    .select(['u.primary_guild_id', 'u.primary_guild_enabled', 'u.primary_guild_tag', 'u.primary_guild_badge'])
    .where('m.lobby_id', '=', lobbyId);
const membersWithUsersOf = new PreparedQuery(1, (db, lobbyId: string) => withUserColumns(db, lobbyId).orderBy('m.joined_at').orderBy('m.user_id'));
/** The user's lobbies in an application: READY reads them on every Identify. */
const lobbiesOfUser = new PreparedQuery(2, (db, userId: string, applicationId: string) =>
  db.selectFrom('lobbies as l').innerJoin('lobby_members as m', 'm.lobby_id', 'l.id').selectAll('l').where('m.user_id', '=', userId).where('l.application_id', '=', applicationId).orderBy('l.created_at'),
);
const memberWithUserOf = new PreparedQuery(2, (db, lobbyId: string, userId: string) => withUserColumns(db, lobbyId).where('m.user_id', '=', userId));

/** A member and its user, as membersWithUsers and memberWithUser answer them. */
export interface MemberWithUser {
  member: LobbyMembersTable;
  user: UserWireColumns | undefined;
}

/** One row of withUserColumns, its values in the select's order. */
function memberWithUser(lobbyId: string, row: unknown[]): MemberWithUser {
  const [userId, metadata, flags, additionalName, joinedAt, uId, username, globalName, avatar, isBot, isProvisional, uCreatedAt, pgId, pgEnabled, pgTag, pgBadge] = row as [
    string, string | null, number, string | null, number | string,
    string | null, string, string | null, string | null, number, number, number | string,
    string | null, number | null, string | null, string | null,
  ];
  return {
    member: { lobby_id: lobbyId, user_id: userId, metadata, flags, additional_name: additionalName, joined_at: joinedAt },
    user:
      uId == null
        ? undefined
        : {
            id: uId,
            username,
            global_name: globalName,
            avatar,
            is_bot: isBot,
            is_provisional: isProvisional,
            created_at: uCreatedAt,
            primary_guild_id: pgId,
            primary_guild_enabled: pgEnabled,
            primary_guild_tag: pgTag,
            primary_guild_badge: pgBadge,
          },
  };
}

/** The user columns membersWithUsers reads: what userToWire needs, not the account's moderation fields. */
export type UserWireColumns = Omit<UsersTable, 'premium_type' | 'banned_until' | 'restricted_from'>;

export class LobbyRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  /** Runs `fn` in one transaction, so a multi-row change is all-or-nothing. */
  transaction<T>(fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  get(id: string, db: Db = this.db): Promise<LobbiesTable | undefined> {
    return lobbyById.first(this.db, db, id);
  }

  findBySecret(applicationId: string, secret: string, db: Db = this.db): Promise<LobbiesTable | undefined> {
    return lobbyBySecret.first(this.db, db, applicationId, secret);
  }

  async create(
    db: Db,
    fields: { applicationId: string; secret: string | null; metadata: Metadata | null; idleTimeoutSeconds: number },
  ): Promise<LobbiesTable> {
    const row: LobbiesTable = {
      id: this.ids.next(),
      application_id: fields.applicationId,
      secret: fields.secret,
      metadata: encodeMetadata(fields.metadata),
      idle_timeout_seconds: fields.idleTimeoutSeconds,
      idle_since: Date.now(),
      created_at: Date.now(),
    };
    await db.insertInto('lobbies').values(row).execute();
    return row;
  }

  async update(db: Db, id: string, fields: { metadata?: Metadata | null; idleTimeoutSeconds?: number }): Promise<void> {
    const set: Partial<LobbiesTable> = {};
    if (fields.metadata !== undefined) set.metadata = encodeMetadata(fields.metadata);
    if (fields.idleTimeoutSeconds !== undefined) set.idle_timeout_seconds = fields.idleTimeoutSeconds;
    if (Object.keys(set).length > 0) await db.updateTable('lobbies').set(set).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.transaction().execute((tx) => deleteLobbyRows(tx, id));
  }

  /**
   * The idle sweep's delete: only if the lobby's idle clock still says it ran out at `now` and
   * `stillIdle` agrees about its members as they are then; answers those members, or null when
   * nothing was deleted. Checked and deleted in one transaction, the lobby's row locked first on
   * PostgreSQL (SQLite runs one transaction at a time): a join or a connect that committed since
   * the sweep's query (a new member row, the clock stopped) is seen, and one that comes after
   * waits for the delete. Deleted unconditionally, a member who joined meanwhile lost the lobby
   * without a LOBBY_DELETE, since the sweep told the members it had read before.
   */
  async deleteIfIdle(id: string, now: number, stillIdle: (memberIds: string[]) => boolean): Promise<string[] | null> {
    return this.db.transaction().execute(async (tx) => {
      const q = tx.selectFrom('lobbies').select(['idle_since', 'idle_timeout_seconds']).where('id', '=', id);
      const row = await (this.db.getExecutor().adapter instanceof PostgresAdapter ? q.forUpdate() : q).executeTakeFirst();
      if (!row || row.idle_since === null || toMs(row.idle_since)! + row.idle_timeout_seconds * 1000 > now) return null;
      const members = await this.memberIds(id, tx);
      if (!stillIdle(members)) return null;
      await deleteLobbyRows(tx, id);
      return members;
    });
  }

  members(lobbyId: string, db: Db = this.db): Promise<LobbyMembersTable[]> {
    return db.selectFrom('lobby_members').selectAll().where('lobby_id', '=', lobbyId).orderBy('joined_at').orderBy('user_id').execute();
  }

  /** The members' user IDs, in no order: who receives a lobby's dispatches (a plucked column). */
  async memberIds(lobbyId: string, db: Db = this.db): Promise<string[]> {
    return (await memberIdsOf.column(this.db, db, lobbyId)) as string[];
  }

  /**
   * Every member with the user columns its wire form needs (userToWire), in join order, in one
   * query: the costliest read of a join (lobby-join bench). It read the members and then their
   * users by a 100-ID `IN` list; then `u.*` with a rest spread, where better-sqlite3 built each
   * 20-column row property by property and the spread copied it again. Now only those columns,
   * read as arrays (no row objects) and mapped field by field.
   */
  async membersWithUsers(lobbyId: string, db: Db = this.db): Promise<MemberWithUser[]> {
    const rows = await membersWithUsersOf.rows(this.db, db, lobbyId);
    return rows.map((r) => memberWithUser(lobbyId, r));
  }

  /** One member with its user (a connection change tells the lobby of that member alone). */
  async memberWithUser(lobbyId: string, userId: string, db: Db = this.db): Promise<MemberWithUser | undefined> {
    const [row] = await memberWithUserOf.rows(this.db, db, lobbyId, userId);
    return row && memberWithUser(lobbyId, row);
  }

  member(lobbyId: string, userId: string, db: Db = this.db): Promise<LobbyMembersTable | undefined> {
    return memberOf.first(this.db, db, lobbyId, userId);
  }

  async memberCount(lobbyId: string, db: Db = this.db): Promise<number> {
    const r = await membersCount.first(this.db, db, lobbyId);
    return Number(r!.n);
  }

  /**
   * Inserts or updates a member; returns the stored row and whether it is new. `known` is the
   * caller's read of the row in the same transaction (null: known absent), to skip reading it again.
   */
  async upsertMember(db: Db, lobbyId: string, userId: string, change: MemberUpsert, known?: LobbyMembersTable | null): Promise<{ row: LobbyMembersTable; added: boolean }> {
    const existing = known === undefined ? await this.member(lobbyId, userId, db) : (known ?? undefined);
    if (!existing) {
      const row: LobbyMembersTable = {
        lobby_id: lobbyId,
        user_id: userId,
        metadata: encodeMetadata(change.metadata),
        flags: change.flags ?? 0,
        additional_name: change.additionalName ?? null,
        joined_at: Date.now(),
      };
      await insertMember.all(this.db, db, lobbyId, userId, row.metadata, row.flags, row.additional_name, row.joined_at);
      return { row, added: true };
    }
    const row: LobbyMembersTable = {
      ...existing,
      metadata: change.metadata !== undefined ? encodeMetadata(change.metadata) : existing.metadata,
      flags: change.flags ?? existing.flags,
      additional_name: change.additionalName !== undefined ? change.additionalName : existing.additional_name,
    };
    await db
      .updateTable('lobby_members')
      .set({ metadata: row.metadata, flags: row.flags, additional_name: row.additional_name })
      .where('lobby_id', '=', lobbyId)
      .where('user_id', '=', userId)
      .execute();
    return { row, added: false };
  }

  async removeMember(db: Db, lobbyId: string, userId: string): Promise<boolean> {
    const r = await db.deleteFrom('lobby_members').where('lobby_id', '=', lobbyId).where('user_id', '=', userId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Lobbies of one application that the user is a member of. */
  forUser(userId: string, applicationId: string): Promise<LobbiesTable[]> {
    return lobbiesOfUser.all(this.db, this.db, userId, applicationId);
  }

  /** IDs of every lobby (any application) the user is in: for presence changes. */
  async lobbyIdsOfUser(userId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('lobby_members').select('lobby_id').where('user_id', '=', userId).execute();
    return rows.map((r) => r.lobby_id);
  }

  async countForUser(userId: string, applicationId: string, db: Db = this.db): Promise<number> {
    const r = await lobbiesOfUserCount.first(this.db, db, userId, applicationId);
    return Number(r!.n);
  }

  async setIdleSince(lobbyId: string, since: number | null): Promise<void> {
    await this.db.updateTable('lobbies').set({ idle_since: since }).where('id', '=', lobbyId).execute();
  }

  /**
   * Stops the idle clock if it runs: the same as setIdleSince(null), without the write when it is
   * already stopped. Every member's connect asks for it; written unconditionally, a lobby of 100
   * whose players all connect wrote its row 100 times (a new row version each on PostgreSQL) to
   * store null again. (Starting stays unconditional: a start restarts the clock, which unlinking
   * a lobby relies on, as refreshIdleOf says.)
   */
  async stopIdleClock(lobbyId: string): Promise<void> {
    await this.db.updateTable('lobbies').set({ idle_since: null }).where('id', '=', lobbyId).where('idle_since', 'is not', null).execute();
  }

  /**
   * Up to `limit` lobbies whose idle timeout has run out (nobody connected for
   * `idle_timeout_seconds`), longest idle first, linked ones left out (a linked lobby does not
   * time out while it is linked: social-sdk-api.md 6.3). All in SQL, bounded: every idle lobby
   * was read and filtered here before, and the linked ones checked in one `in` list, which past
   * PostgreSQL's 65,535 parameters (a backlog after an outage) failed every round.
   */
  async idleExpired(now: number, limit = 500): Promise<LobbiesTable[]> {
    return this.db
      .selectFrom('lobbies')
      .selectAll()
      .where('idle_since', 'is not', null)
      // The shortest timeout first narrows by the index; the exact test per lobby follows.
      .where('idle_since', '<=', now - Limits.idleTimeoutMinSeconds * 1000)
      .where(sql<boolean>`idle_since + idle_timeout_seconds * 1000 <= ${now}`)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('lobby_channel_links as k').select('k.lobby_id').whereRef('k.lobby_id', '=', 'lobbies.id'))))
      .orderBy('idle_since')
      .limit(limit)
      .execute();
  }
}

/** A lobby and what hangs on it, inside the caller's transaction. */
async function deleteLobbyRows(tx: Transaction<Database>, id: string): Promise<void> {
  await tx.deleteFrom('lobby_messages').where('lobby_id', '=', id).execute();
  await tx.deleteFrom('lobby_members').where('lobby_id', '=', id).execute();
  await tx.deleteFrom('lobbies').where('id', '=', id).execute();
}
