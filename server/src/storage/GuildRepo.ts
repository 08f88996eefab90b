import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';
import type { GuildChannelsTable, GuildRolesTable, GuildsTable } from './guildSchema.ts';
import './guildSchema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';
import { PreparedQuery } from './preparedQuery.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Identify's guild list: the member rows' guild IDs by the user index (a member row's guild exists: cascade). */
const guildIdsOfUser = new PreparedQuery(1, (db, userId: string) => db.selectFrom('guild_members').select('guild_id').where('user_id', '=', userId));

// A guild, a channel and a guild's roles: every guild request reads them (permissions), built once.
const guildById = new PreparedQuery(1, (db, id: string) => db.selectFrom('guilds').selectAll().where('id', '=', id));
const channelById = new PreparedQuery(1, (db, id: string) => db.selectFrom('guild_channels').selectAll().where('id', '=', id));
const rolesOfGuild = new PreparedQuery(1, (db, guildId: string) =>
  db.selectFrom('guild_roles').selectAll().where('guild_id', '=', guildId).orderBy('position').orderBy(sqlLength('id')).orderBy('id'),
);

/** Guilds with their channels and roles (the members live in GuildMemberRepo). */
export class GuildRepo {
  constructor(private readonly db: Kysely<Database>, readonly ids: SnowflakeGenerator) {}

  /** Runs `fn` in one transaction, so a multi-row change is all-or-nothing. */
  transaction<T>(fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  get(id: string, db: Db = this.db): Promise<GuildsTable | undefined> {
    return guildById.first(this.db, db, id);
  }

  /** Creates the guild and its `@everyone` role, whose ID is the guild's (the public convention). */
  async create(
    db: Db,
    fields: { name: string; ownerId: string; icon?: string | null; features?: string[]; tag?: string | null; everyonePermissions: string },
  ): Promise<GuildsTable> {
    const now = Date.now();
    const row: GuildsTable = {
      id: this.ids.next(),
      name: fields.name,
      icon: fields.icon ?? null,
      banner: null,
      description: null,
      owner_id: fields.ownerId,
      features: JSON.stringify(fields.features ?? []),
      tag: fields.tag ?? null,
      system_channel_id: null,
      created_at: now,
    };
    await db.insertInto('guilds').values(row).execute();
    await db.insertInto('guild_roles').values(roleRow(row.id, row.id, { name: '@everyone', permissions: fields.everyonePermissions, position: 0 }, now)).execute();
    return row;
  }

  async update(db: Db, id: string, set: Partial<Omit<GuildsTable, 'id' | 'created_at'>>): Promise<void> {
    if (Object.keys(set).length > 0) await db.updateTable('guilds').set(set).where('id', '=', id).execute();
  }

  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom('guild_invites').where('guild_id', '=', id).execute();
    await db.deleteFrom('guild_member_roles').where('guild_id', '=', id).execute();
    await db.deleteFrom('guild_members').where('guild_id', '=', id).execute();
    await db.deleteFrom('guild_roles').where('guild_id', '=', id).execute();
    await db.deleteFrom('guild_channels').where('guild_id', '=', id).execute();
    await db.deleteFrom('guilds').where('id', '=', id).execute();
  }

  /**
   * The IDs of the guilds a user is in, in ID order (numeric: shorter first), at most `limit`.
   * Identify needs only these; ordering in the query made SQLite build a temporary B-tree, the
   * costliest of Identify's statements (about 73 µs inside a request).
   */
  async idsOfUser(userId: string, limit: number): Promise<string[]> {
    const ids = (await guildIdsOfUser.all(this.db, this.db, userId)).map((r) => r.guild_id);
    return ids.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)).slice(0, limit);
  }

  /** The guilds a user is a member of, in ID order, with paging by ID as the public route does. */
  ofUser(userId: string, opts: { before?: string; after?: string; limit?: number } = {}, db: Db = this.db): Promise<GuildsTable[]> {
    let q = db.selectFrom('guilds as g').innerJoin('guild_members as m', 'm.guild_id', 'g.id').selectAll('g').where('m.user_id', '=', userId);
    // Snowflakes compare as numbers only when their lengths match; varchar order needs both.
    if (opts.after) q = q.where((eb) => eb.or([eb(eb.fn('length', ['g.id']), '>', opts.after!.length), eb.and([eb(eb.fn('length', ['g.id']), '=', opts.after!.length), eb('g.id', '>', opts.after!)])]));
    if (opts.before) q = q.where((eb) => eb.or([eb(eb.fn('length', ['g.id']), '<', opts.before!.length), eb.and([eb(eb.fn('length', ['g.id']), '=', opts.before!.length), eb('g.id', '<', opts.before!)])]));
    return q.orderBy(sqlLength('g.id')).orderBy('g.id').limit(opts.limit ?? 200).execute();
  }

  // ---- channels ------------------------------------------------------------------------------

  channel(id: string, db: Db = this.db): Promise<GuildChannelsTable | undefined> {
    return channelById.first(this.db, db, id);
  }

  /** A guild's channels in `position` order (ties by ID), as clients sort them. */
  channels(guildId: string, db: Db = this.db): Promise<GuildChannelsTable[]> {
    return db.selectFrom('guild_channels').selectAll().where('guild_id', '=', guildId).orderBy('position').orderBy(sqlLength('id')).orderBy('id').execute();
  }

  async createChannel(
    db: Db,
    guildId: string,
    fields: Partial<Omit<GuildChannelsTable, 'id' | 'guild_id' | 'created_at'>> & { type: number; name: string },
  ): Promise<GuildChannelsTable> {
    const existing = await this.channels(guildId, db);
    const row: GuildChannelsTable = {
      id: this.ids.next(),
      guild_id: guildId,
      type: fields.type,
      name: fields.name,
      position: fields.position ?? existing.filter((c) => c.type === fields.type).length,
      parent_id: fields.parent_id ?? null,
      topic: fields.topic ?? null,
      nsfw: fields.nsfw ?? 0,
      bitrate: fields.bitrate ?? (fields.type === 2 ? 64000 : null),
      user_limit: fields.user_limit ?? (fields.type === 2 ? 0 : null),
      rate_limit_per_user: fields.rate_limit_per_user ?? 0,
      permission_overwrites: fields.permission_overwrites ?? '[]',
      application_id: fields.application_id ?? null,
      flags: fields.flags ?? 0,
      status: null,
      voice_start_time: null,
      created_at: Date.now(),
    };
    await db.insertInto('guild_channels').values(row).execute();
    return row;
  }

  async updateChannel(db: Db, id: string, set: Partial<Omit<GuildChannelsTable, 'id' | 'guild_id' | 'created_at'>>): Promise<void> {
    if (Object.keys(set).length > 0) await db.updateTable('guild_channels').set(set).where('id', '=', id).execute();
  }

  async deleteChannel(db: Db, id: string): Promise<void> {
    // Children of a deleted category stay, without a parent (the public behaviour).
    await db.updateTable('guild_channels').set({ parent_id: null }).where('parent_id', '=', id).execute();
    await db.deleteFrom('guild_invites').where('channel_id', '=', id).execute();
    await db.deleteFrom('guild_channels').where('id', '=', id).execute();
  }

  // ---- roles ---------------------------------------------------------------------------------

  role(id: string, db: Db = this.db): Promise<GuildRolesTable | undefined> {
    return db.selectFrom('guild_roles').selectAll().where('id', '=', id).executeTakeFirst();
  }

  roles(guildId: string, db: Db = this.db): Promise<GuildRolesTable[]> {
    return rolesOfGuild.all(this.db, db, guildId);
  }

  async createRole(db: Db, guildId: string, fields: Partial<Omit<GuildRolesTable, 'id' | 'guild_id' | 'created_at'>> & { name: string; permissions: string }): Promise<GuildRolesTable> {
    const existing = await this.roles(guildId, db);
    const position = fields.position ?? existing.length;
    const row = roleRow(this.ids.next(), guildId, { ...fields, position }, Date.now());
    await db.insertInto('guild_roles').values(row).execute();
    return row;
  }

  async updateRole(db: Db, id: string, set: Partial<Omit<GuildRolesTable, 'id' | 'guild_id' | 'created_at'>>): Promise<void> {
    if (Object.keys(set).length > 0) await db.updateTable('guild_roles').set(set).where('id', '=', id).execute();
  }

  async deleteRole(db: Db, id: string): Promise<void> {
    await db.deleteFrom('guild_member_roles').where('role_id', '=', id).execute();
    await db.deleteFrom('guild_roles').where('id', '=', id).execute();
  }

  /** Members per role (the `@everyone` role is left out, as the public route does). */
  async roleMemberCounts(guildId: string, db: Db = this.db): Promise<Record<string, number>> {
    const rows = await db
      .selectFrom('guild_member_roles')
      .select(['role_id', (eb) => eb.fn.countAll<string | number>().as('n')])
      .where('guild_id', '=', guildId)
      .groupBy('role_id')
      .execute();
    const out: Record<string, number> = {};
    for (const r of await this.roles(guildId, db)) if (r.id !== guildId) out[r.id] = 0;
    for (const r of rows) out[r.role_id] = Number(r.n);
    return out;
  }

  botRole(guildId: string, botUserId: string, db: Db = this.db): Promise<GuildRolesTable | undefined> {
    return db.selectFrom('guild_roles').selectAll().where('guild_id', '=', guildId).where('bot_user_id', '=', botUserId).executeTakeFirst();
  }
}

function sqlLength(column: string) {
  // Kysely needs an expression to order by a function; both dialects spell it length().
  return (eb: any) => eb.fn('length', [column]);
}

function roleRow(id: string, guildId: string, f: Partial<GuildRolesTable> & { name: string; permissions: string; position: number }, now: number): GuildRolesTable {
  return {
    id,
    guild_id: guildId,
    name: f.name,
    permissions: f.permissions,
    color: f.color ?? 0,
    colors: f.colors ?? JSON.stringify({ primary_color: f.color ?? 0, secondary_color: null, tertiary_color: null }),
    icon: f.icon ?? null,
    unicode_emoji: f.unicode_emoji ?? null,
    position: f.position,
    hoist: f.hoist ?? 0,
    managed: f.managed ?? 0,
    mentionable: f.mentionable ?? 0,
    bot_user_id: f.bot_user_id ?? null,
    flags: f.flags ?? 0,
    created_at: now,
  };
}
