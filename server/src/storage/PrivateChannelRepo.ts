import { PostgresAdapter, sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';
import { snowflakeLess } from './DirectMessageRepo.ts';

/** Table types of migration 0013_group_dms; they join kysely's Database by module augmentation. */
export interface GroupDmChannelsTable {
  id: string;
  owner_id: string;
  name: string | null;
  application_id: string | null;
  created_at: number | string;
}

export interface GroupDmRecipientsTable {
  channel_id: string;
  user_id: string;
  nick: string | null;
  joined_at: number | string;
}

declare module './schema.ts' {
  interface Database {
    group_dm_channels: GroupDmChannelsTable;
    group_dm_recipients: GroupDmRecipientsTable;
  }
}

type Db = Kysely<Database> | Transaction<Database>;

/** A DM (type 1) or group DM (type 3) channel with everyone in it. */
export interface PrivateChannel {
  id: string;
  type: 1 | 3;
  /** Every participant, the caller included. */
  userIds: string[];
  ownerId: string | null;
  name: string | null;
  applicationId: string | null;
  nicks: Record<string, string>;
}

/**
 * Full accounts' private channels: one-to-one DMs are the `dm_channels` pair rows (shared with
 * the game DMs, so a pair has one DM channel ID), group DMs their own two tables.
 */
export class PrivateChannelRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  async get(id: string, db: Db = this.db): Promise<PrivateChannel | undefined> {
    if (!/^\d{1,20}$/.test(id)) return undefined;
    // One query for DM or group DM: every message operation asks this first, and for a guild
    // channel (the common case) it is the only cost.
    const found = await sql<{ kind: string; user_low: string | null; user_high: string | null; owner_id: string | null; name: string | null; application_id: string | null }>`
      SELECT 'dm' AS kind, user_low, user_high, NULL AS owner_id, NULL AS name, NULL AS application_id FROM dm_channels WHERE id = ${id}
      UNION ALL
      SELECT 'group' AS kind, NULL, NULL, owner_id, name, application_id FROM group_dm_channels WHERE id = ${id}`.execute(db);
    const g = found.rows[0];
    if (!g) return undefined;
    if (g.kind === 'dm') return { id, type: 1, userIds: [g.user_low!, g.user_high!], ownerId: null, name: null, applicationId: null, nicks: {} };
    const rs = await db.selectFrom('group_dm_recipients').selectAll().where('channel_id', '=', id).orderBy('joined_at').orderBy('user_id').execute();
    const nicks: Record<string, string> = {};
    for (const r of rs) if (r.nick) nicks[r.user_id] = r.nick;
    return { id, type: 3, userIds: rs.map((r) => r.user_id), ownerId: g.owner_id!, name: g.name, applicationId: g.application_id, nicks };
  }

  /** The pair's DM channel, made on first use (the same row the game DMs use). */
  async openDm(a: string, b: string): Promise<PrivateChannel> {
    const [low, high] = snowflakeLess(a, b) ? [a, b] : [b, a];
    const find = () => this.db.selectFrom('dm_channels').selectAll().where('user_low', '=', low).where('user_high', '=', high).executeTakeFirst();
    if (!(await find())) {
      // Two opens at once: the loser takes the winner's row instead of failing on the unique pair.
      await this.db.insertInto('dm_channels').values({ id: this.ids.next(), user_low: low, user_high: high, created_at: Date.now() }).onConflict((oc) => oc.columns(['user_low', 'user_high']).doNothing()).execute();
    }
    return (await this.get((await find())!.id))!;
  }

  async createGroup(ownerId: string, userIds: string[], opts: { applicationId?: string | null; nicks?: Record<string, string>; name?: string | null } = {}): Promise<PrivateChannel> {
    const id = this.ids.next();
    const now = Date.now();
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('group_dm_channels').values({ id, owner_id: ownerId, name: opts.name ?? null, application_id: opts.applicationId ?? null, created_at: now }).execute();
      await tx.insertInto('group_dm_recipients').values(userIds.map((u, i) => ({ channel_id: id, user_id: u, nick: opts.nicks?.[u] ?? null, joined_at: now + i }))).execute();
    });
    return (await this.get(id))!;
  }

  async rename(id: string, name: string | null): Promise<void> {
    await this.db.updateTable('group_dm_channels').set({ name }).where('id', '=', id).execute();
  }

  async setOwner(id: string, ownerId: string): Promise<void> {
    await this.db.updateTable('group_dm_channels').set({ owner_id: ownerId }).where('id', '=', id).execute();
  }

  /** PostgreSQL runs transactions side by side: group changes lock the group row first (SQLite runs one at a time). */
  private get postgres(): boolean {
    return this.db.getExecutor().adapter instanceof PostgresAdapter;
  }

  /** The group row, locked for the rest of the transaction on PostgreSQL; undefined when it is gone. */
  private async lockGroup(tx: Transaction<Database>, id: string): Promise<{ owner_id: string } | undefined> {
    const q = tx.selectFrom('group_dm_channels').select('owner_id').where('id', '=', id);
    return (this.postgres ? q.forUpdate() : q).executeTakeFirst();
  }

  /**
   * Adds a recipient under the group's lock, so concurrent adds count one at a time and never
   * pass `max`; the same user added twice at once is inserted once (ON CONFLICT DO NOTHING).
   */
  async addRecipient(id: string, userId: string, nick: string | null, max: number): Promise<'added' | 'present' | 'full' | 'gone'> {
    return this.db.transaction().execute(async (tx) => {
      if (!(await this.lockGroup(tx, id))) return 'gone';
      const inAlready = await tx.selectFrom('group_dm_recipients').select('user_id').where('channel_id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      if (inAlready) return 'present';
      const n = await tx.selectFrom('group_dm_recipients').select((eb) => eb.fn.countAll<string | number>().as('n')).where('channel_id', '=', id).executeTakeFirstOrThrow();
      if (Number(n.n) >= max) return 'full';
      const r = await tx.insertInto('group_dm_recipients').values({ channel_id: id, user_id: userId, nick, joined_at: Date.now() })
        .onConflict((oc) => oc.columns(['channel_id', 'user_id']).doNothing()).executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0 ? 'added' : 'present';
    });
  }

  /**
   * Removes a recipient in one transaction under the group's lock: the next member (by join
   * order) becomes owner when the owner goes, and the group goes with its last one (its messages
   * stay in channel_messages, unreachable). `removed` is false when the user was not in it.
   */
  async removeRecipient(id: string, userId: string): Promise<{ removed: boolean; rest: string[] }> {
    return this.db.transaction().execute(async (tx) => {
      const g = await this.lockGroup(tx, id);
      if (!g) return { removed: false, rest: [] };
      const del = await tx.deleteFrom('group_dm_recipients').where('channel_id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      const rest = (await tx.selectFrom('group_dm_recipients').select('user_id').where('channel_id', '=', id).orderBy('joined_at').orderBy('user_id').execute()).map((r) => r.user_id);
      if (rest.length === 0) await tx.deleteFrom('group_dm_channels').where('id', '=', id).execute();
      else if (g.owner_id === userId) await tx.updateTable('group_dm_channels').set({ owner_id: rest[0]! }).where('id', '=', id).execute();
      return { removed: Number(del.numDeletedRows) > 0, rest };
    });
  }

  /** The user's DM and group DM channels that hold messages or were opened, newest first. */
  async ofUser(userId: string): Promise<PrivateChannel[]> {
    const dms = await this.db.selectFrom('dm_channels').select('id').where((eb) => eb.or([eb('user_low', '=', userId), eb('user_high', '=', userId)])).execute();
    const groups = await this.db.selectFrom('group_dm_recipients').select('channel_id as id').where('user_id', '=', userId).execute();
    const all = await Promise.all([...dms, ...groups].map((r) => this.get(r.id)));
    return all.filter((c): c is PrivateChannel => c !== undefined).sort((x, y) => (snowflakeLess(x.id, y.id) ? 1 : -1));
  }
}
