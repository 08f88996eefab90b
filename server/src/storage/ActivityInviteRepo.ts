import type { Kysely, Transaction } from 'kysely';
import { PreparedListQuery } from './preparedListQuery.ts';
import type { ActivityInvitesTable, Database } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Invites to a user from an application family (most often one application), for READY: built once. */
const receivedFrom = new PreparedListQuery(2, (db, applicationIds: readonly string[], userId: string, since: number) =>
  db.selectFrom('activity_invites').selectAll().where('recipient_id', '=', userId).where('application_id', 'in', applicationIds).where('created_at', '>=', since).orderBy('created_at', 'desc'),
);

/** Activity invites and join requests (kept apart from DM history: they are not chat messages). */
export class ActivityInviteRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  async insert(db: Db, fields: Omit<ActivityInvitesTable, 'id' | 'created_at' | 'valid'>): Promise<ActivityInvitesTable> {
    const row: ActivityInvitesTable = { ...fields, id: this.ids.next(), valid: 1, created_at: Date.now() };
    await db.insertInto('activity_invites').values(row).execute();
    return row;
  }

  get(id: string): Promise<ActivityInvitesTable | undefined> {
    return this.db.selectFrom('activity_invites').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Invites to the user since `since`, newest first, from the given applications. */
  async received(userId: string, applicationIds: readonly string[], since: number): Promise<ActivityInvitesTable[]> {
    if (applicationIds.length === 0) return [];
    return receivedFrom.all(this.db, this.db, applicationIds, userId, since);
  }

  /** The sender's invites of one type from one application since `since`. */
  sentSince(senderId: string, applicationId: string, type: number, since: number): Promise<ActivityInvitesTable[]> {
    return this.db
      .selectFrom('activity_invites')
      .selectAll()
      .where('sender_id', '=', senderId)
      .where('application_id', '=', applicationId)
      .where('type', '=', type)
      .where('created_at', '>=', since)
      .execute();
  }

  /** Records the validity last announced to the recipient. */
  async setValid(ids: readonly string[], valid: boolean): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('activity_invites').set({ valid: valid ? 1 : 0 }).where('id', 'in', [...ids]).execute();
  }

  async countAll(): Promise<number> {
    const r = await this.db.selectFrom('activity_invites').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
