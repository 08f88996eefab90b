import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';
import type { GuildInvitesTable } from './guildSchema.ts';
import './guildSchema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Guild invites and the target users an invite is limited to. */
export class GuildInviteRepo {
  constructor(private readonly db: Kysely<Database>) {}

  get(code: string, db: Db = this.db): Promise<GuildInvitesTable | undefined> {
    return db.selectFrom('guild_invites').selectAll().where('code', '=', code).executeTakeFirst();
  }

  ofChannel(channelId: string, db: Db = this.db): Promise<GuildInvitesTable[]> {
    return db.selectFrom('guild_invites').selectAll().where('channel_id', '=', channelId).orderBy('created_at').execute();
  }

  ofGuild(guildId: string, db: Db = this.db): Promise<GuildInvitesTable[]> {
    return db.selectFrom('guild_invites').selectAll().where('guild_id', '=', guildId).orderBy('created_at').execute();
  }

  async create(db: Db, row: GuildInvitesTable, targetUsers?: string[]): Promise<void> {
    await db.insertInto('guild_invites').values(row).execute();
    if (targetUsers) await this.setTargetUsers(db, row.code, targetUsers);
  }

  /** Counts one use; false when the invite was used up meanwhile (a concurrent accept). */
  async use(db: Db, code: string): Promise<boolean> {
    const r = await db
      .updateTable('guild_invites')
      .set((eb) => ({ uses: eb('uses', '+', 1) }))
      .where('code', '=', code)
      .where((eb) => eb.or([eb('max_uses', '=', 0), eb('uses', '<', eb.ref('max_uses'))]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async delete(db: Db, code: string): Promise<void> {
    await db.deleteFrom('guild_invites').where('code', '=', code).execute();
  }

  async targetUsers(code: string, db: Db = this.db): Promise<string[]> {
    const rows = await db.selectFrom('guild_invite_target_users').select('user_id').where('code', '=', code).execute();
    return rows.map((r) => r.user_id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
  }

  async isTarget(code: string, userId: string, db: Db = this.db): Promise<boolean> {
    return Boolean(await db.selectFrom('guild_invite_target_users').select('user_id').where('code', '=', code).where('user_id', '=', userId).executeTakeFirst());
  }

  async setTargetUsers(db: Db, code: string, userIds: string[]): Promise<void> {
    await db.deleteFrom('guild_invite_target_users').where('code', '=', code).execute();
    const unique = [...new Set(userIds)];
    // Chunks keep each insert under SQLite's bound-parameter limit.
    for (let i = 0; i < unique.length; i += 400) {
      await db.insertInto('guild_invite_target_users').values(unique.slice(i, i + 400).map((user_id) => ({ code, user_id }))).execute();
    }
    await db.updateTable('guild_invites').set({ has_target_users: unique.length > 0 ? 1 : 0 }).where('code', '=', code).execute();
  }
}
