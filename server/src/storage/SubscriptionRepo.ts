import { PostgresAdapter, sql, type Kysely, type Transaction } from 'kysely';
import type { SubscriptionsTable } from './commerceSchema.ts';
import type { Database } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';

type Db = Kysely<Database> | Transaction<Database>;
export type { SubscriptionsTable };

/**
 * Subscriptions and their billing periods (issue 14). Every state change goes through
 * `commerce/subscriptionMachine.ts`; this repository only reads and writes rows, and `claim`
 * gives the scheduler a row no other node is working on.
 */
export class SubscriptionRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  get dialect(): 'sqlite' | 'postgres' {
    return this.db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
  }

  nextId(): string {
    return this.ids.next();
  }

  async insert(db: Db, row: SubscriptionsTable): Promise<void> {
    await db.insertInto('subscriptions').values(row).execute();
  }

  get(id: string, db: Db = this.db): Promise<SubscriptionsTable | undefined> {
    return db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async update(db: Db, id: string, set: Partial<Omit<SubscriptionsTable, 'id' | 'application_id' | 'user_id' | 'sku_id' | 'created_at'>>): Promise<void> {
    await db.updateTable('subscriptions').set(set).where('id', '=', id).execute();
  }

  /** Removes a subscription (the state machine's delete); its entitlements keep their rows, marked deleted. */
  async remove(db: Db, id: string): Promise<void> {
    await db.deleteFrom('subscriptions').where('id', '=', id).execute();
  }

  /** Subscriptions of one SKU (optionally one user's), with snowflake pagination. */
  list(skuId: string, f: { userId?: string; before?: string; after?: string; limit: number }, db: Db = this.db): Promise<SubscriptionsTable[]> {
    let q = db.selectFrom('subscriptions').selectAll().where('sku_id', '=', skuId);
    if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
    const id = sql<string>`cast(id as bigint)`;
    if (f.before !== undefined) q = q.where(id, '<', sql<string>`cast(${f.before} as bigint)`);
    if (f.after !== undefined) q = q.where(id, '>', sql<string>`cast(${f.after} as bigint)`);
    return q.orderBy(id, f.after !== undefined && f.before === undefined ? 'asc' : 'desc').limit(f.limit).execute();
  }

  /** A user's subscriptions, newest first; one application's when given. */
  ofUser(userId: string, applicationId?: string, db: Db = this.db): Promise<SubscriptionsTable[]> {
    let q = db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId);
    if (applicationId !== undefined) q = q.where('application_id', '=', applicationId);
    return q.orderBy(sql`cast(id as bigint)`, 'desc').limit(200).execute();
  }

  /** IDs of subscriptions whose period has ended by `now` and that are not over yet. */
  async due(now: number, statuses: readonly number[], limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('subscriptions')
      .select('id')
      .where('status', 'in', [...statuses])
      .where('current_period_end', '<=', now)
      .orderBy('current_period_end')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Reads one subscription for a change inside `tx`, or undefined when another node holds it.
   * On PostgreSQL a transaction-scoped advisory lock on the subscription's ID (released at
   * commit or rollback, or when a crashed node's connection drops) makes the holder the only
   * one; on SQLite the transaction is the single writer's.
   */
  async claim(tx: Transaction<Database>, id: string): Promise<SubscriptionsTable | undefined> {
    if (this.dialect === 'postgres') {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${sql.lit(LOCK_SPACE)}, hashtext(${id})) as locked`.execute(tx);
      if (!rows[0]?.locked) return undefined;
    }
    return this.get(id, tx);
  }
}

/** First key of the two-key advisory lock: keeps the scheduler's locks apart from any other use. */
const LOCK_SPACE = 14_001;
