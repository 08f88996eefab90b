import type { Kysely, Transaction } from 'kysely';
import type { Database, WebhookEventsTable } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * The outbox of webhook events (protocols.md 7). Events are recorded in the same transaction as
 * the change that causes them, so one is never lost or sent for a change that rolled back;
 * signing and delivery read the undelivered rows (a later slice).
 */
export class WebhookEventRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  async record(tx: Db, applicationId: string, type: string, data: unknown): Promise<string> {
    const id = this.ids.next();
    await tx.insertInto('webhook_events').values({ id, application_id: applicationId, type, data: JSON.stringify(data), attempts: 0, delivered_at: null, created_at: Date.now() }).execute();
    return id;
  }

  /** Undelivered events, oldest first. */
  async pending(applicationId?: string, limit = 100): Promise<WebhookEventsTable[]> {
    let q = this.db.selectFrom('webhook_events').selectAll().where('delivered_at', 'is', null);
    if (applicationId) q = q.where('application_id', '=', applicationId);
    return q.orderBy('created_at').orderBy('id').limit(limit).execute();
  }

  async markDelivered(id: string): Promise<void> {
    await this.db.updateTable('webhook_events').set({ delivered_at: Date.now() }).where('id', '=', id).execute();
  }
}
