import { generateKeyPairSync } from 'node:crypto';
import { type Kysely, PostgresAdapter, sql, type Transaction } from 'kysely';
import type { Database, WebhookEventsTable } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';
import type { ApplicationKeysTable, WebhookSettingsTable } from './webhookSchema.ts';
import { PreparedQuery } from './preparedQuery.ts';

type Db = Kysely<Database> | Transaction<Database>;

export type { ApplicationKeysTable, WebhookSettingsTable };

/** Public `event_webhooks_status` values. */
export const WebhookStatus = { Disabled: 1, Enabled: 2, DisabledByPlatform: 3 } as const;

/**
 * record's statement, built once per database (every lobby message, DM and authorization runs it).
 * One statement reads the subscription and inserts: one round trip fewer in every producer's
 * transaction (PostgreSQL). `quotedType` is the type as a JSON string: `types` is the JSON array
 * as saveSettings wrote it, so the quoted name occurs in it exactly when the type is subscribed.
 */
const recordEvent = new PreparedQuery(6, (db, id: string, applicationId: string, type: string, data: string, quotedType: string, now: number) => {
  const notSubscribed = db.getExecutor().adapter instanceof PostgresAdapter ? sql`strpos(s.types, ${quotedType}) = 0` : sql`instr(s.types, ${quotedType}) = 0`;
  const query = sql<{ skipped_at: number | string | null }>`insert into webhook_events (id, application_id, type, data, attempts, delivered_at, skipped_at, created_at)
      select ${id}, ${applicationId}, ${type}, ${data}, 0, null,
        case when s.status = ${WebhookStatus.Disabled} or ${notSubscribed} then cast(${now} as bigint) else null end,
        cast(${now} as bigint)
      from webhook_settings s where s.application_id = ${applicationId}
      returning skipped_at`;
  return { compile: () => query.compile(db) };
});

/**
 * The outbox of webhook events (protocols.md 7) and its delivery state. Events are recorded in
 * the same transaction as the change that causes them, so one is never lost or sent for a
 * change that rolled back. The settings (URL, status, types) and the per-application delivery
 * lease live here too, as does the application's Ed25519 key pair: they are the webhook
 * aggregate's, and the delivery worker reads them together.
 */
export class WebhookEventRepo {
  /**
   * Set by the delivery worker: called after each record() (inside the producer's transaction,
   * before it commits) so a waiting worker looks sooner.
   */
  onRecorded: ((applicationId: string) => void) | null = null;

  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  get dialect(): 'sqlite' | 'postgres' {
    return this.db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
  }

  /**
   * Records an event inside the caller's transaction; the subscription is read in the same
   * statement. An application that never configured a webhook gets no row at all (null): there
   * is nothing to deliver, and turning a webhook on starts from then (saveSettings). Until now
   * each of its lobby messages, DMs and authorizations left a row pending for ever, about half
   * the pages of a lobby message's commit. An event the application will not be sent (its type
   * not subscribed, its webhook switched off) is kept as skipped, for the portal's list, and goes
   * with the delivered ones after the retention (purgeDone). Only a pending row wakes the worker.
   */
  async record(tx: Db, applicationId: string, type: string, data: unknown): Promise<string | null> {
    const id = this.ids.next();
    const [row] = await recordEvent.all(this.db, tx, id, applicationId, type, JSON.stringify(data), JSON.stringify(type), Date.now());
    if (!row) return null;
    if (row.skipped_at == null) this.onRecorded?.(applicationId);
    return id;
  }

  /** Undelivered events, oldest first. */
  async pending(applicationId?: string, limit = 100): Promise<WebhookEventsTable[]> {
    let q = this.db.selectFrom('webhook_events').selectAll().where('delivered_at', 'is', null).where('skipped_at', 'is', null);
    if (applicationId) q = q.where('application_id', '=', applicationId);
    return q.orderBy('created_at').orderBy('id').limit(limit).execute();
  }

  async get(id: string): Promise<WebhookEventsTable | undefined> {
    return this.db.selectFrom('webhook_events').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The most recent events of an application, newest first (the portal's delivery list). */
  async recent(applicationId: string, limit = 50): Promise<WebhookEventsTable[]> {
    return this.db.selectFrom('webhook_events').selectAll().where('application_id', '=', applicationId).orderBy('id', 'desc').limit(limit).execute();
  }

  /** The next events to send for one application, in order. */
  async nextBatch(applicationId: string, limit: number): Promise<WebhookEventsTable[]> {
    return this.db
      .selectFrom('webhook_events')
      .selectAll()
      .where('application_id', '=', applicationId)
      .where('delivered_at', 'is', null)
      .where('skipped_at', 'is', null)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /**
   * The next events to send for one application, stamped (`last_attempt_at = stamp`, see
   * stampBatch) in the same statement: one round trip instead of a read and an update, which
   * counts on PostgreSQL when the queue is short. `exclude`: events answered 2xx whose recording
   * has not committed yet. Returned in id order.
   */
  async takeBatch(applicationId: string, limit: number, stamp: number, exclude: readonly string[] = []): Promise<WebhookEventsTable[]> {
    const rows = await this.db
      .updateTable('webhook_events')
      .set({ last_attempt_at: stamp })
      .where('id', 'in', (eb) => {
        let q = eb
          .selectFrom('webhook_events')
          .select('id')
          .where('application_id', '=', applicationId)
          .where('delivered_at', 'is', null)
          .where('skipped_at', 'is', null);
        // Answered 2xx, their recording not yet committed: neither restamped nor sent again.
        if (exclude.length > 0) q = q.where('id', 'not in', [...exclude]);
        return q.orderBy('id').limit(limit);
      })
      .returningAll()
      .execute();
    // Snowflake strings of one length sort as numbers; lengths differ only across decades.
    return rows.sort((a, b) => (a.id.length - b.id.length) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async markDelivered(id: string, result: { status?: number; latencyMs?: number } = {}): Promise<void> {
    const now = Date.now();
    await this.db
      .updateTable('webhook_events')
      .set((eb) => ({ delivered_at: now, last_attempt_at: now, last_status: result.status ?? null, latency_ms: result.latencyMs ?? null, last_error: null, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', id)
      .execute();
  }

  /**
   * Stamps a batch about to be sent (`last_attempt_at`), so its 2xx answers are recorded only
   * if nothing requeued the event meanwhile ("send again" and replay clear the stamp).
   */
  async stampBatch(ids: string[], stamp: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('webhook_events').set({ last_attempt_at: stamp }).where('id', 'in', ids).where('delivered_at', 'is', null).execute();
  }

  /**
   * Several 2xx answers recorded in one statement (one commit): on PostgreSQL a commit costs
   * milliseconds, and the worker sends the next event while the previous answers are recorded.
   * Only rows still carrying the batch's stamp are marked: an event requeued while its answer
   * was being recorded stays pending and is sent again.
   */
  async markDeliveredMany(results: { id: string; status: number; latencyMs: number }[], stamp: number): Promise<void> {
    if (results.length === 0) return;
    const now = Date.now();
    const byStatus = new Map<number, { id: string; latencyMs: number }[]>();
    for (const r of results) byStatus.set(r.status, [...(byStatus.get(r.status) ?? []), r]);
    for (const [status, group] of byStatus) {
      const latency = sql<number>`case ${sql.join(group.map((g) => sql`when id = ${g.id} then ${sql.lit(Math.round(g.latencyMs))}`), sql` `)} end`;
      await this.db
        .updateTable('webhook_events')
        .set((eb) => ({ delivered_at: now, last_attempt_at: now, last_status: status, latency_ms: latency, last_error: null, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', group.map((g) => g.id))
        .where('last_attempt_at', '=', stamp)
        .execute();
    }
  }

  async markFailed(id: string, result: { status: number; error: string; latencyMs: number }): Promise<void> {
    await this.db
      .updateTable('webhook_events')
      .set((eb) => ({ last_attempt_at: Date.now(), last_status: result.status, last_error: result.error.slice(0, 500), latency_ms: result.latencyMs, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', id)
      .execute();
  }

  async markSkipped(id: string): Promise<void> {
    await this.db.updateTable('webhook_events').set({ skipped_at: Date.now() }).where('id', '=', id).execute();
  }

  /**
   * Sends events again (the portal's "send again", the CLI's replay): they become pending with
   * their original ids, so receivers that already have them can drop them.
   */
  async requeue(applicationId: string, filter: { id?: string; since?: number }): Promise<number> {
    let q = this.db.updateTable('webhook_events').set({ delivered_at: null, skipped_at: null, last_attempt_at: null }).where('application_id', '=', applicationId);
    if (filter.id !== undefined) q = q.where('id', '=', filter.id);
    if (filter.since !== undefined) q = q.where('created_at', '>=', filter.since);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** Delivered and skipped events older than `before` are dropped; pending ones stay. */
  async purgeDone(before: number): Promise<number> {
    const r = await this.db
      .deleteFrom('webhook_events')
      .where('created_at', '<', before)
      .where((eb) => eb.or([eb('delivered_at', 'is not', null), eb('skipped_at', 'is not', null)]))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  // --- settings ---

  async settings(applicationId: string): Promise<WebhookSettingsTable | undefined> {
    return this.db.selectFrom('webhook_settings').selectAll().where('application_id', '=', applicationId).executeTakeFirst();
  }

  /**
   * Saves the public fields. Going from disabled (or never set) to enabled starts from now:
   * events recorded while the application had no webhook are skipped, not sent late. Going from
   * "disabled by the platform" back to enabled keeps the backlog, so nothing is lost.
   */
  async saveSettings(applicationId: string, fields: { url: string | null; status: number; types: string[] }): Promise<void> {
    const now = Date.now();
    await this.db.transaction().execute(async (tx) => {
      const before = await tx.selectFrom('webhook_settings').select('status').where('application_id', '=', applicationId).executeTakeFirst();
      if (fields.status === WebhookStatus.Enabled && (before?.status ?? WebhookStatus.Disabled) === WebhookStatus.Disabled) {
        await tx.updateTable('webhook_events').set({ skipped_at: now }).where('application_id', '=', applicationId).where('delivered_at', 'is', null).where('skipped_at', 'is', null).execute();
      }
      const values = { url: fields.url, status: fields.status, types: JSON.stringify(fields.types), updated_at: now };
      const clear = fields.status === WebhookStatus.Enabled ? { last_error: null, disabled_at: null, failing_since: null, retry_at: 0 } : {};
      await tx
        .insertInto('webhook_settings')
        .values({ application_id: applicationId, ...values, last_error: null, disabled_at: null, failing_since: null, retry_at: 0, lease_owner: null, lease_until: 0 })
        .onConflict((oc) => oc.column('application_id').doUpdateSet({ ...values, ...clear }))
        .execute();
    });
  }

  /**
   * Claims up to `limit` applications whose queue is due and whose lease is free, for `owner`
   * until `until`. On PostgreSQL the rows are locked with FOR UPDATE SKIP LOCKED, so two nodes
   * never claim the same application; on SQLite the transaction is the single writer's.
   */
  async claimApplications(owner: string, now: number, until: number, limit: number, exclude: readonly string[] = []): Promise<WebhookSettingsTable[]> {
    const postgres = this.dialect === 'postgres';
    return this.db.transaction().execute(async (tx) => {
      let q = tx
        .selectFrom('webhook_settings as s')
        .select('s.application_id')
        .where('s.status', '=', WebhookStatus.Enabled)
        .where('s.url', 'is not', null)
        .where('s.lease_until', '<', now)
        .where('s.retry_at', '<=', now)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('webhook_events as e')
              .select(sql`1`.as('one'))
              .whereRef('e.application_id', '=', 's.application_id')
              .where('e.delivered_at', 'is', null)
              .where('e.skipped_at', 'is', null),
          ),
        )
        .orderBy('s.lease_until')
        .limit(limit);
      // The caller's own running deliveries: never a second loop over the same queue.
      if (exclude.length > 0) q = q.where('s.application_id', 'not in', [...exclude]);
      if (postgres) q = q.forUpdate().skipLocked();
      const ids = (await q.execute()).map((r) => r.application_id);
      if (ids.length === 0) return [];
      await tx.updateTable('webhook_settings').set({ lease_owner: owner, lease_until: until }).where('application_id', 'in', ids).execute();
      return tx.selectFrom('webhook_settings').selectAll().where('application_id', 'in', ids).execute();
    });
  }

  /** Extends a lease this owner holds; false when it was lost (expired and taken by another node). */
  async renewLease(applicationId: string, owner: string, until: number): Promise<boolean> {
    const r = await this.db.updateTable('webhook_settings').set({ lease_until: until }).where('application_id', '=', applicationId).where('lease_owner', '=', owner).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async releaseLease(applicationId: string, owner: string): Promise<void> {
    await this.db.updateTable('webhook_settings').set({ lease_owner: null, lease_until: 0 }).where('application_id', '=', applicationId).where('lease_owner', '=', owner).execute();
  }

  /** Every lease, whoever held it: only for the single SQLite writer at start (its holder died). */
  async releaseAllLeases(): Promise<void> {
    await this.db.updateTable('webhook_settings').set({ lease_owner: null, lease_until: 0 }).where('lease_until', '>', 0).execute();
  }

  /** A success clears the failure streak. */
  async clearFailure(applicationId: string): Promise<void> {
    await this.db.updateTable('webhook_settings').set({ failing_since: null, retry_at: 0 }).where('application_id', '=', applicationId).where('failing_since', 'is not', null).execute();
  }

  /** A failure: the queue waits until `retryAt`; the streak's start is kept. Returns the streak's start. */
  async recordFailure(applicationId: string, now: number, retryAt: number, error: string): Promise<number> {
    await this.db
      .updateTable('webhook_settings')
      .set((eb) => ({ retry_at: retryAt, last_error: error.slice(0, 500), failing_since: eb.fn.coalesce('failing_since', sql<number>`${now}`) }))
      .where('application_id', '=', applicationId)
      .execute();
    const row = await this.db.selectFrom('webhook_settings').select('failing_since').where('application_id', '=', applicationId).executeTakeFirst();
    return Number(row?.failing_since ?? now);
  }

  /** Sustained failure: status 3 with the last error, shown in the portal; the backlog stays. */
  async disableByPlatform(applicationId: string, error: string): Promise<void> {
    await this.db
      .updateTable('webhook_settings')
      .set({ status: WebhookStatus.DisabledByPlatform, last_error: error.slice(0, 500), disabled_at: Date.now(), lease_owner: null, lease_until: 0 })
      .where('application_id', '=', applicationId)
      .execute();
  }

  // --- keys ---

  /**
   * The application's Ed25519 key pair, made on first use (two nodes racing keep the first).
   * The public half, hex, is the application's `verify_key`.
   */
  async keyPair(applicationId: string): Promise<ApplicationKeysTable> {
    const found = await this.db.selectFrom('application_keys').selectAll().where('application_id', '=', applicationId).executeTakeFirst();
    if (found) return found;
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const spki = publicKey.export({ format: 'der', type: 'spki' });
    await this.db
      .insertInto('application_keys')
      .values({
        application_id: applicationId,
        // The raw key is the last 32 bytes of its SPKI encoding.
        public_key: spki.subarray(spki.length - 32).toString('hex'),
        private_key: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('hex'),
        created_at: Date.now(),
      })
      .onConflict((oc) => oc.column('application_id').doNothing())
      .execute();
    return this.db.selectFrom('application_keys').selectAll().where('application_id', '=', applicationId).executeTakeFirstOrThrow();
  }

  /** The public `verify_key` (hex) of an application. */
  async verifyKey(applicationId: string): Promise<string> {
    return (await this.keyPair(applicationId)).public_key;
  }
}
