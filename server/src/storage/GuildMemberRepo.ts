import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database, UsersTable } from './schema.ts';
import type { GuildBansTable, GuildMembersTable } from './guildSchema.ts';
import './guildSchema.ts';
import { PreparedQuery } from './preparedQuery.ts';

type Db = Kysely<Database> | Transaction<Database>;

// A member with their user and role IDs: every guild request's permission check reads them, so
// both are built once (PreparedQuery) rather than by kysely on each call.
const memberWithUser = new PreparedQuery(2, (db, guildId: string, userId: string) =>
  db
    .selectFrom('guild_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .selectAll('m')
    .select(['u.username', 'u.global_name', 'u.avatar as user_avatar', 'u.is_bot', 'u.is_provisional', 'u.created_at as user_created_at', ...PRIMARY_GUILD_COLUMNS])
    .where('m.guild_id', '=', guildId)
    .where('m.user_id', '=', userId),
);
const roleIdsOfMember = new PreparedQuery(2, (db, guildId: string, userId: string) =>
  db.selectFrom('guild_member_roles').select('role_id').where('guild_id', '=', guildId).where('user_id', '=', userId),
);

/** A member row with its role IDs (the `@everyone` role is implied, never listed). */
export interface MemberWithRoles {
  member: GuildMembersTable;
  roles: string[];
  user: UsersTable;
}

/** What a permission check needs of a member: the ID, the timeout, the role IDs. */
export interface MemberRoles {
  member: Pick<GuildMembersTable, 'user_id' | 'communication_disabled_until'>;
  roles: string[];
}

/** Guild members, their roles, and bans. */
export class GuildMemberRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async get(guildId: string, userId: string, db: Db = this.db): Promise<MemberWithRoles | undefined> {
    const row = await memberWithUser.first(this.db, db, guildId, userId);
    if (!row) return undefined;
    const roles = await roleIdsOfMember.all(this.db, db, guildId, userId);
    return { member: memberOf(row), user: userOf(row), roles: roles.map((r) => r.role_id) };
  }

  isMember(guildId: string, userId: string, db: Db = this.db): Promise<boolean> {
    return db.selectFrom('guild_members').select('user_id').where('guild_id', '=', guildId).where('user_id', '=', userId).executeTakeFirst().then(Boolean);
  }

  /**
   * Members in user-ID order after `after`, or those whose username, global name or nick starts
   * with `query` (case-insensitive), or exactly `userIds`.
   */
  async list(guildId: string, opts: { after?: string; limit: number; query?: string; userIds?: string[] }, db: Db = this.db): Promise<MemberWithRoles[]> {
    let q = db
      .selectFrom('guild_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .selectAll('m')
      .select(['u.username', 'u.global_name', 'u.avatar as user_avatar', 'u.is_bot', 'u.is_provisional', 'u.created_at as user_created_at', ...PRIMARY_GUILD_COLUMNS])
      .where('m.guild_id', '=', guildId);
    if (opts.after && opts.after !== '0') {
      const a = opts.after;
      q = q.where((eb) => eb.or([eb(eb.fn('length', ['m.user_id']), '>', a.length), eb.and([eb(eb.fn('length', ['m.user_id']), '=', a.length), eb('m.user_id', '>', a)])]));
    }
    if (opts.userIds) q = opts.userIds.length === 0 ? q.where('m.user_id', '=', '-') : q.where('m.user_id', 'in', opts.userIds);
    if (opts.query) {
      // A prefix compare without LIKE, so `_` and `%` in a query are plain characters.
      const q0 = opts.query.toLowerCase();
      const n = q0.length;
      const prefixOf = (col: 'u.username' | 'u.global_name' | 'm.nick') => sql`substr(lower(${sql.ref(col)}), 1, ${n}) = ${q0}`;
      q = q.where(sql<boolean>`(${prefixOf('u.username')} or ${prefixOf('u.global_name')} or ${prefixOf('m.nick')})`);
    }
    const rows = await q.orderBy((eb) => eb.fn('length', ['m.user_id'])).orderBy('m.user_id').limit(opts.limit).execute();
    if (rows.length === 0) return [];
    const roleRows = await db.selectFrom('guild_member_roles').select(['user_id', 'role_id']).where('guild_id', '=', guildId).where('user_id', 'in', rows.map((r) => r.user_id)).execute();
    const byUser = new Map<string, string[]>();
    for (const r of roleRows) (byUser.get(r.user_id) ?? byUser.set(r.user_id, []).get(r.user_id)!).push(r.role_id);
    return rows.map((r) => ({ member: memberOf(r), user: userOf(r), roles: byUser.get(r.user_id) ?? [] }));
  }

  /**
   * Every member with what a permission check needs (GuildEvents' audience filter): two reads by
   * guild ID, no user rows, no `IN` list. `list` with no limit read each member's user too, and
   * then their roles by a list of every member's ID, which kysely builds node by node.
   */
  async permissionRows(guildId: string, db: Db = this.db): Promise<MemberRoles[]> {
    const members = await db.selectFrom('guild_members').select(['user_id', 'communication_disabled_until']).where('guild_id', '=', guildId).execute();
    const roleRows = await db.selectFrom('guild_member_roles').select(['user_id', 'role_id']).where('guild_id', '=', guildId).execute();
    const byUser = new Map<string, string[]>();
    for (const r of roleRows) (byUser.get(r.user_id) ?? byUser.set(r.user_id, []).get(r.user_id)!).push(r.role_id);
    return members.map((m) => ({ member: m, roles: byUser.get(m.user_id) ?? [] }));
  }

  /** How many guilds `userId` is a member of (for a bot user: the guilds its application is in). */
  async guildCountOf(userId: string): Promise<number> {
    const r = await this.db.selectFrom('guild_members').select((eb) => eb.fn.countAll<string | number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async count(guildId: string, db: Db = this.db): Promise<number> {
    const r = await db.selectFrom('guild_members').select((eb) => eb.fn.countAll<string | number>().as('n')).where('guild_id', '=', guildId).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async userIds(guildId: string, db: Db = this.db): Promise<string[]> {
    return (await db.selectFrom('guild_members').select('user_id').where('guild_id', '=', guildId).execute()).map((r) => r.user_id);
  }

  async add(db: Db, guildId: string, userId: string, roles: string[] = [], fields: Partial<GuildMembersTable> = {}): Promise<void> {
    await db
      .insertInto('guild_members')
      .values({
        guild_id: guildId,
        user_id: userId,
        nick: fields.nick ?? null,
        avatar: null,
        banner: null,
        bio: null,
        flags: fields.flags ?? 0,
        communication_disabled_until: null,
        joined_at: fields.joined_at ?? Date.now(),
      })
      .execute();
    for (const roleId of new Set(roles)) await db.insertInto('guild_member_roles').values({ guild_id: guildId, user_id: userId, role_id: roleId }).execute();
  }

  async update(db: Db, guildId: string, userId: string, set: Partial<Omit<GuildMembersTable, 'guild_id' | 'user_id' | 'joined_at'>>): Promise<void> {
    if (Object.keys(set).length > 0) await db.updateTable('guild_members').set(set).where('guild_id', '=', guildId).where('user_id', '=', userId).execute();
  }

  async setRoles(db: Db, guildId: string, userId: string, roles: string[]): Promise<void> {
    await db.deleteFrom('guild_member_roles').where('guild_id', '=', guildId).where('user_id', '=', userId).execute();
    for (const roleId of new Set(roles)) await db.insertInto('guild_member_roles').values({ guild_id: guildId, user_id: userId, role_id: roleId }).execute();
  }

  async addRole(db: Db, guildId: string, userId: string, roleId: string): Promise<void> {
    const has = await db.selectFrom('guild_member_roles').select('role_id').where('guild_id', '=', guildId).where('user_id', '=', userId).where('role_id', '=', roleId).executeTakeFirst();
    if (!has) await db.insertInto('guild_member_roles').values({ guild_id: guildId, user_id: userId, role_id: roleId }).execute();
  }

  async removeRole(db: Db, guildId: string, userId: string, roleId: string): Promise<void> {
    await db.deleteFrom('guild_member_roles').where('guild_id', '=', guildId).where('user_id', '=', userId).where('role_id', '=', roleId).execute();
  }

  async remove(db: Db, guildId: string, userId: string): Promise<void> {
    await db.deleteFrom('guild_member_roles').where('guild_id', '=', guildId).where('user_id', '=', userId).execute();
    await db.deleteFrom('guild_members').where('guild_id', '=', guildId).where('user_id', '=', userId).execute();
  }

  /**
   * Prune candidates: members who joined more than `days` days ago and hold no role except
   * those in `includeRoles` (we keep no per-guild activity record, so tenure stands in for it).
   */
  async pruneCandidates(guildId: string, days: number, includeRoles: string[], excludeUserIds: string[], db: Db = this.db): Promise<string[]> {
    const cutoff = Date.now() - days * 86_400_000;
    const members = await db.selectFrom('guild_members').select('user_id').where('guild_id', '=', guildId).where('joined_at', '<', cutoff).execute();
    if (members.length === 0) return [];
    const roleRows = await db.selectFrom('guild_member_roles').select(['user_id', 'role_id']).where('guild_id', '=', guildId).execute();
    const allowed = new Set(includeRoles);
    const blocked = new Set(roleRows.filter((r) => !allowed.has(r.role_id)).map((r) => r.user_id));
    const excluded = new Set(excludeUserIds);
    return members.map((m) => m.user_id).filter((id) => !blocked.has(id) && !excluded.has(id));
  }

  // ---- bans ----------------------------------------------------------------------------------

  ban(guildId: string, userId: string, db: Db = this.db): Promise<GuildBansTable | undefined> {
    return db.selectFrom('guild_bans').selectAll().where('guild_id', '=', guildId).where('user_id', '=', userId).executeTakeFirst();
  }

  bans(guildId: string, opts: { limit: number; after?: string }, db: Db = this.db): Promise<GuildBansTable[]> {
    let q = db.selectFrom('guild_bans').selectAll().where('guild_id', '=', guildId);
    if (opts.after) q = q.where('user_id', '>', opts.after);
    return q.orderBy('user_id').limit(opts.limit).execute();
  }

  async addBan(db: Db, guildId: string, userId: string, reason: string | null): Promise<void> {
    if (await this.ban(guildId, userId, db)) return;
    await db.insertInto('guild_bans').values({ guild_id: guildId, user_id: userId, reason, created_at: Date.now() }).execute();
  }

  async removeBan(db: Db, guildId: string, userId: string): Promise<void> {
    await db.deleteFrom('guild_bans').where('guild_id', '=', guildId).where('user_id', '=', userId).execute();
  }
}

type JoinedRow = GuildMembersTable & { username: string; global_name: string | null; user_avatar: string | null; is_bot: number; is_provisional: number; user_created_at: number | string };

function memberOf(r: JoinedRow): GuildMembersTable {
  return {
    guild_id: r.guild_id,
    user_id: r.user_id,
    nick: r.nick,
    avatar: r.avatar,
    banner: r.banner,
    bio: r.bio,
    flags: r.flags,
    communication_disabled_until: r.communication_disabled_until,
    joined_at: r.joined_at,
    mute: r.mute ?? 0,
    deaf: r.deaf ?? 0,
  };
}

function userOf(r: JoinedRow): UsersTable {
  const pg = r as JoinedRow & Pick<UsersTable, 'primary_guild_id' | 'primary_guild_enabled' | 'primary_guild_tag' | 'primary_guild_badge'>;
  return {
    id: r.user_id, username: r.username, global_name: r.global_name, avatar: r.user_avatar, is_bot: r.is_bot, is_provisional: r.is_provisional, created_at: r.user_created_at,
    // The member's user object carries its `primary_guild` too (migration 0011).
    primary_guild_id: pg.primary_guild_id, primary_guild_enabled: pg.primary_guild_enabled, primary_guild_tag: pg.primary_guild_tag, primary_guild_badge: pg.primary_guild_badge,
  };
}

/** The user columns of `primary_guild` (guilds/primaryGuildWire.ts), selected with each member. */
const PRIMARY_GUILD_COLUMNS = ['u.primary_guild_id', 'u.primary_guild_enabled', 'u.primary_guild_tag', 'u.primary_guild_badge'] as const;
