import type { Kysely, Transaction } from 'kysely';
import { PreparedQuery } from './preparedQuery.ts';
import type { Database, RelationshipsTable, UsersTable } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** `application_id` of platform relationships (across games). */
export const PLATFORM_SCOPE = '0';

// The reads every Identify makes (READY's relationships, the friends told of the new session),
// built once (PreparedQuery): kysely building them each time cost more than running them.
const rowsFor = new PreparedQuery(2, (db, userId: string, applicationId: string) =>
  db.selectFrom('relationships').selectAll().where('user_id', '=', userId).where('application_id', 'in', [PLATFORM_SCOPE, applicationId]).orderBy('since'),
);
const friendSessionsOf = new PreparedQuery(1, (db, userId: string) =>
  db
    .selectFrom('relationships as r')
    .innerJoin('application_players as p', 'p.user_id', 'r.other_id')
    .select(['r.other_id as friendId', 'p.application_id as applicationId'])
    .where('r.user_id', '=', userId)
    .where('r.type', '=', 1)
    .where((eb) => eb.or([eb('r.application_id', '=', PLATFORM_SCOPE), eb('r.application_id', '=', eb.ref('p.application_id'))]))
    .distinct(),
);
/** A block between two users, either way (every DM and invite asks first). */
const blockBetween = new PreparedQuery(2, (db, a: string, b: string) =>
  db
    .selectFrom('relationships')
    .select('user_id')
    .where('application_id', '=', PLATFORM_SCOPE)
    .where('type', '=', 2)
    .where((eb) => eb.or([eb.and([eb('user_id', '=', a), eb('other_id', '=', b)]), eb.and([eb('user_id', '=', b), eb('other_id', '=', a)])]))
    .limit(1),
);
/** A friendship on the platform or in one game (every DM and invite asks next). */
const friendship = new PreparedQuery(3, (db, a: string, b: string, applicationId: string) =>
  db.selectFrom('relationships').select('user_id').where('user_id', '=', a).where('other_id', '=', b).where('type', '=', 1).where('application_id', 'in', [PLATFORM_SCOPE, applicationId]).limit(1),
);
const friendIdsOf = new PreparedQuery(2, (db, userId: string, applicationId: string) =>
  db.selectFrom('relationships').select('other_id').where('user_id', '=', userId).where('type', '=', 1).where('application_id', 'in', [PLATFORM_SCOPE, applicationId]).distinct(),
);

/** A friend of someone, and an application where that friend may have a Gateway session. */
export interface FriendSession {
  friendId: string;
  applicationId: string;
}

/**
 * Relationship rows (one per direction and scope) and the friend-request log behind the spam
 * heuristic. Multi-row changes take a transaction from the caller.
 */
export class RelationshipRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  transaction<T>(fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** Rows held by `userId` about `otherId` in the platform scope and in `applicationId`. */
  between(userId: string, otherId: string, applicationId: string, db: Db = this.db): Promise<RelationshipsTable[]> {
    return db
      .selectFrom('relationships')
      .selectAll()
      .where('user_id', '=', userId)
      .where('other_id', '=', otherId)
      .where('application_id', 'in', [PLATFORM_SCOPE, applicationId])
      .execute();
  }

  /** Every row between two users, both directions, every scope. */
  allBetween(a: string, b: string, db: Db = this.db): Promise<RelationshipsTable[]> {
    return db
      .selectFrom('relationships')
      .selectAll()
      .where((eb) => eb.or([eb.and([eb('user_id', '=', a), eb('other_id', '=', b)]), eb.and([eb('user_id', '=', b), eb('other_id', '=', a)])]))
      .execute();
  }

  /** A user by unique username, case-insensitively (friend requests name users this way). */
  userByUsername(username: string): Promise<UsersTable | undefined> {
    return this.db.selectFrom('users').selectAll().where((eb) => eb(eb.fn('lower', ['username']), '=', username.toLowerCase())).executeTakeFirst();
  }

  /** Every row the user holds that the application can see: platform ones and its own game ones. */
  listFor(userId: string, applicationId: string, db: Db = this.db): Promise<RelationshipsTable[]> {
    return rowsFor.all(this.db, db, userId, applicationId);
  }

  async set(db: Db, row: RelationshipsTable): Promise<void> {
    await this.remove(db, row.user_id, row.other_id, row.application_id);
    await db.insertInto('relationships').values(row).execute();
  }

  async remove(db: Db, userId: string, otherId: string, scope: string): Promise<boolean> {
    const r = await db
      .deleteFrom('relationships')
      .where('user_id', '=', userId)
      .where('other_id', '=', otherId)
      .where('application_id', '=', scope)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Removes every row between the two users, in every scope and both directions. */
  async removeAllBetween(db: Db, a: string, b: string): Promise<void> {
    await db.deleteFrom('relationships').where('user_id', '=', a).where('other_id', '=', b).execute();
    await db.deleteFrom('relationships').where('user_id', '=', b).where('other_id', '=', a).execute();
  }

  /** True when either user blocks the other (blocks are platform-wide). */
  async blockedEitherWay(a: string, b: string, db: Db = this.db): Promise<boolean> {
    return (await blockBetween.first(this.db, db, a, b)) !== undefined;
  }

  /** Friends on the platform, or game friends in `applicationId`. */
  async areFriends(a: string, b: string, applicationId: string, db: Db = this.db): Promise<boolean> {
    return (await friendship.first(this.db, db, a, b, applicationId)) !== undefined;
  }

  /**
   * Where `userId`'s presence must go: each friend, with every application the friend plays in
   * which the friendship counts (all of them for platform friends, the one game for game friends).
   */
  async friendSessions(userId: string): Promise<FriendSession[]> {
    return friendSessionsOf.all(this.db, this.db, userId);
  }

  /** IDs of the user's friends as seen from one application (platform friends and its game friends). */
  async friendIds(userId: string, applicationId: string): Promise<string[]> {
    const rows = await friendIdsOf.all(this.db, this.db, userId, applicationId);
    return rows.map((r) => r.other_id);
  }

  // ---- friend-request log (spam heuristic) ---------------------------------------------------

  async logRequest(db: Db, senderId: string, recipientId: string, applicationId: string, now: number): Promise<void> {
    await db
      .insertInto('friend_request_log')
      .values({ id: this.ids.next(now), sender_id: senderId, recipient_id: recipientId, application_id: applicationId, created_at: now, rejected_at: null })
      .execute();
  }

  async countRequestsSince(senderId: string, since: number, db: Db = this.db): Promise<number> {
    const r = await db
      .selectFrom('friend_request_log')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('sender_id', '=', senderId)
      .where('created_at', '>=', since)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async rejectedSince(senderId: string, recipientId: string, since: number, db: Db = this.db): Promise<boolean> {
    const row = await db
      .selectFrom('friend_request_log')
      .select('id')
      .where('recipient_id', '=', recipientId)
      .where('sender_id', '=', senderId)
      .where('rejected_at', '>=', since)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async markRejected(db: Db, senderId: string, recipientId: string, now: number): Promise<void> {
    await db
      .updateTable('friend_request_log')
      .set({ rejected_at: now })
      .where('sender_id', '=', senderId)
      .where('recipient_id', '=', recipientId)
      .where('rejected_at', 'is', null)
      .execute();
  }

  /** Row count, so tests can prove that a refused request wrote nothing. */
  async countAll(): Promise<number> {
    const r = await this.db.selectFrom('relationships').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
