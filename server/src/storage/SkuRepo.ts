import type { Kysely, Transaction } from 'kysely';
import type { SkusTable } from './commerceSchema.ts';
import type { Database } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';

type Db = Kysely<Database> | Transaction<Database>;
export type { SkusTable };

/** SKUs of applications (issue 14): what a game sells, with its price and billing period. */
export class SkuRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  async create(fields: Omit<SkusTable, 'id' | 'created_at'>, db: Db = this.db): Promise<SkusTable> {
    const row: SkusTable = { id: this.ids.next(), ...fields, created_at: Date.now() };
    await db.insertInto('skus').values(row).execute();
    return row;
  }

  get(id: string, db: Db = this.db): Promise<SkusTable | undefined> {
    return db.selectFrom('skus').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** An application's SKUs, oldest first. */
  ofApplication(applicationId: string, db: Db = this.db): Promise<SkusTable[]> {
    return db.selectFrom('skus').selectAll().where('application_id', '=', applicationId).orderBy('id').execute();
  }

  /** The SUBSCRIPTION_GROUP (type 6) made with a subscription SKU: same application and slug. */
  groupOf(sub: Pick<SkusTable, 'application_id' | 'slug'>, db: Db = this.db): Promise<SkusTable | undefined> {
    return db.selectFrom('skus').selectAll().where('application_id', '=', sub.application_id).where('slug', '=', sub.slug).where('type', '=', 6).executeTakeFirst();
  }

  async slugTaken(applicationId: string, slug: string, db: Db = this.db): Promise<boolean> {
    return (await db.selectFrom('skus').select('id').where('application_id', '=', applicationId).where('slug', '=', slug).executeTakeFirst()) !== undefined;
  }

  /** Whether the application's test-mode checkout is on (off until the portal turns it on). */
  async testMode(applicationId: string, db: Db = this.db): Promise<boolean> {
    const row = await db.selectFrom('commerce_settings').select('test_mode').where('application_id', '=', applicationId).executeTakeFirst();
    return row?.test_mode === 1;
  }

  async setTestMode(applicationId: string, on: boolean, now: number): Promise<void> {
    await this.db
      .insertInto('commerce_settings')
      .values({ application_id: applicationId, test_mode: on ? 1 : 0, updated_at: now })
      .onConflict((oc) => oc.column('application_id').doUpdateSet({ test_mode: on ? 1 : 0, updated_at: now }))
      .execute();
  }

  async update(id: string, set: Partial<Pick<SkusTable, 'name' | 'flags' | 'price'>>, db: Db = this.db): Promise<void> {
    await db.updateTable('skus').set(set).where('id', '=', id).execute();
  }
}
