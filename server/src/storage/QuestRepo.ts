import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';
import type { QuestEnrollmentsTable, QuestsTable } from './questSchema.ts';

type Db = Kysely<Database> | Transaction<Database>;

export type { QuestEnrollmentsTable, QuestsTable };

/** Quests and their enrollments (migration 0016). */
export class QuestRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  async create(fields: Omit<QuestsTable, 'id' | 'created_at'>): Promise<QuestsTable> {
    const row: QuestsTable = { id: this.ids.next(), ...fields, created_at: Date.now() };
    await this.db.insertInto('quests').values(row).execute();
    return row;
  }

  get(id: string, db: Db = this.db): Promise<QuestsTable | undefined> {
    return db.selectFrom('quests').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** An application's quests, newest first. */
  ofApplication(applicationId: string, limit = 100): Promise<QuestsTable[]> {
    return this.db.selectFrom('quests').selectAll().where('application_id', '=', applicationId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  async setEndsAt(id: string, endsAt: number): Promise<void> {
    await this.db.updateTable('quests').set({ ends_at: endsAt }).where('id', '=', id).execute();
  }

  enrollment(questId: string, userId: string, db: Db = this.db): Promise<QuestEnrollmentsTable | undefined> {
    return db.selectFrom('quest_enrollments').selectAll().where('quest_id', '=', questId).where('user_id', '=', userId).executeTakeFirst();
  }

  /** Inserts the enrollment unless there is one; true when this call made it. */
  async enroll(tx: Db, questId: string, userId: string, at: number): Promise<boolean> {
    const r = await tx.insertInto('quest_enrollments').values({ quest_id: questId, user_id: userId, enrolled_at: at }).onConflict((oc) => oc.columns(['quest_id', 'user_id']).doNothing()).executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /** The user's enrollments among `questIds`. */
  async enrollmentsOf(userId: string, questIds: string[]): Promise<Map<string, QuestEnrollmentsTable>> {
    if (questIds.length === 0) return new Map();
    const rows = await this.db.selectFrom('quest_enrollments').selectAll().where('user_id', '=', userId).where('quest_id', 'in', questIds).execute();
    return new Map(rows.map((r) => [r.quest_id, r]));
  }

  /** Enrollment counts per quest. */
  async counts(questIds: string[]): Promise<Map<string, number>> {
    if (questIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('quest_enrollments')
      .select(['quest_id', (eb) => eb.fn.countAll<string | number>().as('n')])
      .where('quest_id', 'in', questIds)
      .groupBy('quest_id')
      .execute();
    return new Map(rows.map((r) => [r.quest_id, Number(r.n)]));
  }
}
