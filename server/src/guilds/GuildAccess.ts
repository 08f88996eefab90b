import type { Store } from '../storage/Store.ts';
import type { GuildChannelsTable, GuildRolesTable, GuildsTable } from '../storage/guildSchema.ts';
import type { MemberRoles, MemberWithRoles } from '../storage/GuildMemberRepo.ts';
import { GuildErrors } from './guildErrors.ts';
import { basePermissions, channelPermissions, has, type Overwrite, type PermissionSubject } from './permissions.ts';

/** One caller inside one guild: the guild, its roles, the caller's member row and permissions. */
export class GuildView {
  constructor(
    readonly guild: GuildsTable,
    readonly roles: GuildRolesTable[],
    readonly member: MemberWithRoles,
  ) {}

  get userId(): string {
    return this.member.member.user_id;
  }

  get isOwner(): boolean {
    return this.guild.owner_id === this.userId;
  }

  subject(): PermissionSubject {
    return subjectOf(this.guild, this.roles, this.member);
  }

  get permissions(): bigint {
    return basePermissions(this.subject());
  }

  channelPermissions(channel: GuildChannelsTable): bigint {
    return channelPermissions(this.subject(), JSON.parse(channel.permission_overwrites) as Overwrite[]);
  }

  /** Throws 50013 unless every bit of `required` is held guild-wide. */
  require(required: bigint): void {
    if (!has(this.permissions, required)) throw GuildErrors.missingPermissions();
  }

  requireIn(channel: GuildChannelsTable, required: bigint): void {
    if (!has(this.channelPermissions(channel), required)) throw GuildErrors.missingPermissions();
  }

  /** Position of the caller's highest role (the owner outranks everyone). */
  get topPosition(): number {
    if (this.isOwner) return Number.MAX_SAFE_INTEGER;
    return topPosition(this.roles, this.member.roles);
  }

  /** The public hierarchy rule: one may only manage roles (and members) strictly below one's own top role. */
  outranksRole(role: GuildRolesTable): boolean {
    return this.isOwner || role.position < this.topPosition;
  }
}

export function topPosition(roles: GuildRolesTable[], memberRoles: string[]): number {
  const held = new Set(memberRoles);
  let top = 0;
  for (const r of roles) if (held.has(r.id) && r.position > top) top = r.position;
  return top;
}

export function subjectOf(guild: GuildsTable, roles: GuildRolesTable[], m: MemberRoles): PermissionSubject {
  const held = new Set(m.roles);
  const everyone = roles.find((r) => r.id === guild.id);
  const own = roles.filter((r) => held.has(r.id)).map((r) => ({ id: r.id, permissions: BigInt(r.permissions) }));
  return subject(guild, everyone ? BigInt(everyone.permissions) : 0n, own, m);
}

/**
 * subjectOf for many members of one guild: every role's bitfield is parsed once, not once per
 * member holding it (GuildEvents filters a whole guild's members per event).
 */
export function subjectsOf(guild: GuildsTable, roles: GuildRolesTable[]): (m: MemberRoles) => PermissionSubject {
  const parsed = new Map(roles.map((r) => [r.id, BigInt(r.permissions)]));
  const everyone = parsed.get(guild.id) ?? 0n;
  return (m) => {
    const own: { id: string; permissions: bigint }[] = [];
    for (const id of m.roles) {
      const permissions = parsed.get(id);
      if (permissions !== undefined && id !== guild.id) own.push({ id, permissions });
    }
    return subject(guild, everyone, own, m);
  };
}

function subject(guild: GuildsTable, everyone: bigint, roles: { id: string; permissions: bigint }[], m: MemberRoles): PermissionSubject {
  return {
    guildId: guild.id,
    ownerId: guild.owner_id,
    userId: m.member.user_id,
    everyone,
    roles,
    timedOutUntil: m.member.communication_disabled_until === null ? null : Number(m.member.communication_disabled_until),
  };
}

/** Loads what a permission check needs, with the public errors: 10004 unknown guild, 50001 not a member. */
export async function viewGuild(store: Store, guildId: string, userId: string): Promise<GuildView> {
  const guild = /^\d{1,20}$/.test(guildId) ? await store.guilds.get(guildId) : undefined;
  if (!guild) throw GuildErrors.unknownGuild();
  const member = await store.guildMembers.get(guildId, userId);
  if (!member) throw GuildErrors.missingAccess();
  return new GuildView(guild, await store.guilds.roles(guildId), member);
}

/** A channel and the caller's view of its guild: 10003 unknown channel, 50001 when not a member or it is hidden. */
export async function viewChannel(store: Store, channelId: string, userId: string): Promise<{ view: GuildView; channel: GuildChannelsTable }> {
  const channel = /^\d{1,20}$/.test(channelId) ? await store.guilds.channel(channelId) : undefined;
  if (!channel) throw GuildErrors.unknownChannel();
  const guild = await store.guilds.get(channel.guild_id);
  const member = guild ? await store.guildMembers.get(guild.id, userId) : undefined;
  if (!guild || !member) throw GuildErrors.missingAccess();
  const view = new GuildView(guild, await store.guilds.roles(guild.id), member);
  if (!has(view.channelPermissions(channel), 1n << 10n)) throw GuildErrors.missingAccess();
  return { view, channel };
}
