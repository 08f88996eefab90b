import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';
import type { ActivityInstancesTable, ActivityParticipantsTable, ActivitySettingsTable } from './activitySchema.ts';

export type { ActivityInstancesTable, ActivityParticipantsTable, ActivitySettingsTable };

/** Activity settings, instances and participants (migration 0018). */
export class ActivityRepo {
  /** `postgres`: row locks (FOR UPDATE / FOR SHARE) order leaving and joining; SQLite has one writer. */
  constructor(private readonly db: Kysely<Database>, readonly ids: SnowflakeGenerator, private readonly postgres = false) {}

  settings(applicationId: string): Promise<ActivitySettingsTable | undefined> {
    return this.db.selectFrom('activity_settings').selectAll().where('application_id', '=', applicationId).executeTakeFirst();
  }

  async putSettings(row: ActivitySettingsTable): Promise<void> {
    const { application_id, ...rest } = row;
    await this.db.insertInto('activity_settings').values(row).onConflict((oc) => oc.column('application_id').doUpdateSet(rest)).execute();
  }

  instance(id: string): Promise<ActivityInstancesTable | undefined> {
    return this.db.selectFrom('activity_instances').selectAll().where('id', '=', id).executeTakeFirst();
  }

  instanceAt(applicationId: string, locationId: string): Promise<ActivityInstancesTable | undefined> {
    return this.db.selectFrom('activity_instances').selectAll().where('application_id', '=', applicationId).where('location_id', '=', locationId).executeTakeFirst();
  }

  /** Inserts the instance unless the location has one already (two launches at once: one wins, both join it). */
  async createInstance(row: ActivityInstancesTable): Promise<ActivityInstancesTable> {
    await this.db.insertInto('activity_instances').values(row).onConflict((oc) => oc.columns(['application_id', 'location_id']).doNothing()).execute();
    return (await this.instanceAt(row.application_id, row.location_id))!;
  }

  /**
   * The user leaves; the instance ends if nobody is left (security review M4). One transaction
   * under the instance's row lock (PostgreSQL FOR UPDATE; SQLite transactions are serialized),
   * and the delete is itself conditional (`WHERE NOT EXISTS (participants)`): a launch or join
   * that got in first keeps the instance; one that comes after finds it gone (joinIfExists) and
   * makes a new one. Counting first and deleting after, unconditionally, lost such a join.
   * Returns whether the instance ended.
   */
  async leaveAndEndIfEmpty(instanceId: string, userId: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      if (this.postgres) await tx.selectFrom('activity_instances').select('id').where('id', '=', instanceId).forUpdate().execute();
      await tx.deleteFrom('activity_participants').where('instance_id', '=', instanceId).where('user_id', '=', userId).execute();
      const r = await tx
        .deleteFrom('activity_instances')
        .where('id', '=', instanceId)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('activity_participants').select('activity_participants.instance_id').where('activity_participants.instance_id', '=', instanceId))))
        .executeTakeFirst();
      return Number(r.numDeletedRows ?? 0n) > 0;
    });
  }

  /**
   * Joins only while the instance exists, under a shared lock on its row (PostgreSQL FOR SHARE:
   * a concurrent last leave waits for it, or it waits for the leave and finds the row gone).
   * 'gone': the instance ended meanwhile; the caller makes a new one.
   */
  async joinIfExists(instanceId: string, userId: string, at: number): Promise<'joined' | 'already' | 'gone'> {
    return this.db.transaction().execute(async (tx) => {
      const q = tx.selectFrom('activity_instances').select('id').where('id', '=', instanceId);
      if (!(await (this.postgres ? q.forShare() : q).executeTakeFirst())) return 'gone';
      const r = await tx.insertInto('activity_participants').values({ instance_id: instanceId, user_id: userId, joined_at: at }).onConflict((oc) => oc.columns(['instance_id', 'user_id']).doNothing()).executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0 ? 'joined' : 'already';
    });
  }

  /** True when this call added the participant. */
  async join(instanceId: string, userId: string, at: number): Promise<boolean> {
    const r = await this.db.insertInto('activity_participants').values({ instance_id: instanceId, user_id: userId, joined_at: at }).onConflict((oc) => oc.columns(['instance_id', 'user_id']).doNothing()).executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async leave(instanceId: string, userId: string): Promise<boolean> {
    const r = await this.db.deleteFrom('activity_participants').where('instance_id', '=', instanceId).where('user_id', '=', userId).executeTakeFirst();
    return Number(r.numDeletedRows ?? 0n) > 0;
  }

  /** The instances the user is in (the web app's Gateway session ending takes them out of all). */
  instancesOf(userId: string): Promise<ActivityInstancesTable[]> {
    return this.db.selectFrom('activity_instances').innerJoin('activity_participants', 'activity_participants.instance_id', 'activity_instances.id').selectAll('activity_instances').where('activity_participants.user_id', '=', userId).orderBy('activity_instances.id').execute();
  }

  participants(instanceId: string): Promise<ActivityParticipantsTable[]> {
    return this.db.selectFrom('activity_participants').selectAll().where('instance_id', '=', instanceId).orderBy('joined_at').orderBy('user_id').execute();
  }
}
