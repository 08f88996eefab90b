import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';
import type { ApplicationCommandsTable, InteractionMessagesTable, InteractionsTable } from './interactionSchema.ts';
import './interactionSchema.ts';

type Db = Kysely<Database> | Transaction<Database>;

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Application commands, interactions and the messages interactions made (migration 0014). Built
 * from the store's database by `interactionRepo()`, not a `Store` field, so Store.ts stays other
 * slices' file.
 */
export class InteractionRepo {
  constructor(readonly db: Kysely<Database>, readonly ids: SnowflakeGenerator) {}

  transaction<T>(fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  // ---- commands ----

  /** Commands of one scope: the application's global ones (guildId null) or one guild's. */
  commands(applicationId: string, guildId: string | null, db: Db = this.db): Promise<ApplicationCommandsTable[]> {
    let q = db.selectFrom('application_commands').selectAll().where('application_id', '=', applicationId);
    q = guildId === null ? q.where('guild_id', 'is', null) : q.where('guild_id', '=', guildId);
    return q.orderBy('id').execute();
  }

  command(id: string, db: Db = this.db): Promise<ApplicationCommandsTable | undefined> {
    return db.selectFrom('application_commands').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insertCommand(db: Db, row: ApplicationCommandsTable): Promise<void> {
    await db.insertInto('application_commands').values(row).execute();
  }

  async updateCommand(db: Db, id: string, row: Omit<ApplicationCommandsTable, 'id' | 'application_id' | 'guild_id' | 'created_at'>): Promise<void> {
    await db.updateTable('application_commands').set(row).where('id', '=', id).execute();
  }

  async deleteCommand(db: Db, id: string): Promise<boolean> {
    const r = await db.deleteFrom('application_commands').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** The commands a user may see in a guild channel: the global ones and the guild's, of these applications. */
  commandsFor(applicationIds: string[], guildId: string | null): Promise<ApplicationCommandsTable[]> {
    if (applicationIds.length === 0) return Promise.resolve([]);
    let q = this.db.selectFrom('application_commands').selectAll().where('application_id', 'in', applicationIds);
    q = guildId === null ? q.where('guild_id', 'is', null) : q.where((eb) => eb.or([eb('guild_id', 'is', null), eb('guild_id', '=', guildId)]));
    return q.orderBy('id').execute();
  }

  // ---- interactions ----

  async insertInteraction(row: InteractionsTable): Promise<void> {
    await this.db.insertInto('interactions').values(row).execute();
  }

  interaction(id: string): Promise<InteractionsTable | undefined> {
    return this.db.selectFrom('interactions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byToken(token: string): Promise<InteractionsTable | undefined> {
    return this.db.selectFrom('interactions').selectAll().where('token_hash', '=', hashToken(token)).executeTakeFirst();
  }

  /**
   * The first response, at most once: only a pending interaction moves (a conditional update, so
   * two racing callbacks, or a callback racing the deadline, cannot both win).
   */
  async respond(db: Db, id: string, set: { response_type: number; response_data: string | null; now: number }): Promise<boolean> {
    const r = await db
      .updateTable('interactions')
      .set({ state: 'responded', response_type: set.response_type, response_data: set.response_data, responded_at: set.now })
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Pending interactions made before `before` (ms), oldest first, at most `limit`. */
  pendingBefore(before: number, limit = 500): Promise<InteractionsTable[]> {
    return this.db.selectFrom('interactions').selectAll().where('state', '=', 'pending').where('created_at', '<', before).orderBy('created_at').limit(limit).execute();
  }

  /** The 3-second deadline passed: pending becomes failed (no-op once answered). */
  async fail(id: string): Promise<boolean> {
    const r = await this.db.updateTable('interactions').set({ state: 'failed' }).where('id', '=', id).where('state', '=', 'pending').executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async setOriginal(db: Db, id: string, messageId: string): Promise<void> {
    await db.updateTable('interactions').set({ original_message_id: messageId }).where('id', '=', id).execute();
  }

  /** Counts one more follow-up if fewer than `max` exist; false when the cap is reached. */
  async addFollowup(db: Db, id: string, max: number | null): Promise<boolean> {
    let q = db.updateTable('interactions').set((eb) => ({ followups: eb('followups', '+', 1) })).where('id', '=', id);
    if (max !== null) q = q.where('followups', '<', max);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  // ---- interactions endpoint ----

  async endpoint(applicationId: string): Promise<string | null> {
    return (await this.db.selectFrom('interaction_endpoints').select('url').where('application_id', '=', applicationId).executeTakeFirst())?.url ?? null;
  }

  async setEndpoint(applicationId: string, url: string | null): Promise<void> {
    await this.db.deleteFrom('interaction_endpoints').where('application_id', '=', applicationId).execute();
    if (url) await this.db.insertInto('interaction_endpoints').values({ application_id: applicationId, url, updated_at: Date.now() }).execute();
  }

  // ---- messages made by interactions ----

  async insertMessage(db: Db, row: InteractionMessagesTable): Promise<void> {
    await db.insertInto('interaction_messages').values(row).execute();
  }

  message(id: string): Promise<InteractionMessagesTable | undefined> {
    return this.db.selectFrom('interaction_messages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async updateMessage(id: string, set: Partial<Pick<InteractionMessagesTable, 'message' | 'poll'>>): Promise<void> {
    await this.db.updateTable('interaction_messages').set(set).where('id', '=', id).execute();
  }

  async deleteMessage(id: string): Promise<void> {
    await this.db.deleteFrom('interaction_messages').where('id', '=', id).execute();
  }
}

const repos = new WeakMap<object, InteractionRepo>();
export function interactionRepo(db: Kysely<Database>, ids: SnowflakeGenerator): InteractionRepo {
  let r = repos.get(db);
  if (!r) repos.set(db, (r = new InteractionRepo(db, ids)));
  return r;
}
