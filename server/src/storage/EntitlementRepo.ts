import { PostgresAdapter, sql, type Kysely, type Transaction } from 'kysely';
import type { EntitlementsTable } from './commerceSchema.ts';
import type { Database } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';

type Db = Kysely<Database> | Transaction<Database>;
export type { EntitlementsTable };

/** The public list filters of GET /applications/{id}/entitlements. */
export interface EntitlementFilter {
  userId?: string;
  skuIds?: string[];
  guildId?: string;
  before?: string;
  after?: string;
  limit: number;
  /** Entitlements whose `ends_at` has passed (at `now`) are left out. */
  excludeEnded?: boolean;
  excludeDeleted?: boolean;
  now: number;
}

/** What users and guilds own (issue 14). Rows are never removed: a deleted one keeps `deleted` 1. */
export class EntitlementRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  async create(db: Db, fields: Omit<EntitlementsTable, 'id' | 'created_at' | 'consumed' | 'deleted'>, now: number): Promise<EntitlementsTable> {
    const row: EntitlementsTable = { id: this.ids.next(), ...fields, consumed: 0, deleted: 0, created_at: now };
    await db.insertInto('entitlements').values(row).execute();
    return row;
  }

  get(id: string, db: Db = this.db): Promise<EntitlementsTable | undefined> {
    return db.selectFrom('entitlements').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * One application's entitlements by the public filters. `after` pages forward (ascending IDs),
   * otherwise newest first below `before`, as the public API's snowflake pagination does.
   */
  list(applicationId: string, f: EntitlementFilter, db: Db = this.db): Promise<EntitlementsTable[]> {
    let q = db.selectFrom('entitlements').selectAll().where('application_id', '=', applicationId);
    if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
    if (f.guildId !== undefined) q = q.where('guild_id', '=', f.guildId);
    if (f.skuIds !== undefined && f.skuIds.length > 0) q = q.where('sku_id', 'in', f.skuIds);
    if (f.excludeDeleted) q = q.where('deleted', '=', 0);
    if (f.excludeEnded) q = q.where((eb) => eb.or([eb('ends_at', 'is', null), eb('ends_at', '>', f.now)]));
    // IDs compare as numbers: snowflakes of different lengths must not sort as text.
    const id = sql<string>`cast(id as bigint)`;
    if (f.before !== undefined) q = q.where(id, '<', sql<string>`cast(${f.before} as bigint)`);
    if (f.after !== undefined) q = q.where(id, '>', sql<string>`cast(${f.after} as bigint)`);
    return q.orderBy(id, f.after !== undefined && f.before === undefined ? 'asc' : 'desc').limit(f.limit).execute();
  }

  /**
   * Serializes purchases of one SKU by one owner until `tx` ends, so two racing purchases cannot
   * both see "not owned yet". PostgreSQL: a transaction-scoped advisory lock; SQLite: the single
   * writer already runs transactions one at a time.
   */
  async lockOwner(tx: Transaction<Database>, applicationId: string, ownerId: string, skuId: string): Promise<void> {
    if (!(this.db.getExecutor().adapter instanceof PostgresAdapter)) return;
    await sql`select pg_advisory_xact_lock(${sql.lit(PURCHASE_LOCK_SPACE)}, hashtext(${`${applicationId}:${ownerId}:${skuId}`}))`.execute(tx);
  }

  /** Marks a consumable consumed, only if it is not yet: true when this call consumed it. */
  async consume(db: Db, id: string): Promise<boolean> {
    const r = await db.updateTable('entitlements').set({ consumed: 1 }).where('id', '=', id).where('consumed', '=', 0).where('deleted', '=', 0).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async markDeleted(db: Db, id: string): Promise<boolean> {
    const r = await db.updateTable('entitlements').set({ deleted: 1 }).where('id', '=', id).where('deleted', '=', 0).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async setEndsAt(db: Db, id: string, endsAt: number): Promise<void> {
    await db.updateTable('entitlements').set({ ends_at: endsAt }).where('id', '=', id).execute();
  }

  ofSubscription(subscriptionId: string, db: Db = this.db): Promise<EntitlementsTable[]> {
    return db.selectFrom('entitlements').selectAll().where('subscription_id', '=', subscriptionId).orderBy('id').execute();
  }
}

/** First key of the purchase advisory locks (the scheduler's use 14001). */
const PURCHASE_LOCK_SPACE = 14_002;
