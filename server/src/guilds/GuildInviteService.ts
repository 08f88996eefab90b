import { randomInt } from 'node:crypto';
import type { Store } from '../storage/Store.ts';
import type { GuildInvitesTable } from '../storage/guildSchema.ts';
import { viewChannel, viewGuild } from './GuildAccess.ts';
import { GuildErrors } from './guildErrors.ts';
import type { GuildEvents } from './GuildEvents.ts';
import { inviteWire, userWire } from './guildWire.ts';
import type { MemberService } from './MemberService.ts';
import { Permission, has } from './permissions.ts';
import type { AuditScope } from '../moderation/auditContext.ts';

const CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Target-user uploads: at most this many IDs per invite (our choice; the spec names no limit). */
export const MAX_TARGET_USERS = 10_000;

export interface InviteInput {
  max_age?: number;
  max_uses?: number;
  temporary?: boolean;
  unique?: boolean;
  role_ids?: string[];
}

/** Guild invites: create (with roles granted on accept and an optional target-user list), read, accept, delete. */
export class GuildInviteService {
  constructor(private readonly store: Store, private readonly events: GuildEvents, private readonly members: MemberService) {}

  async create(userId: string, channelId: string, input: InviteInput, targetUsers?: string[], audit: AuditScope | null = null) {
    const { view, channel } = await viewChannel(this.store, channelId, userId);
    view.requireIn(channel, Permission.CreateInstantInvite);
    const roleIds = [...new Set(input.role_ids ?? [])];
    if (roleIds.length > 0) {
      // Roles granted on accept: only roles the creator could hand out by hand.
      view.require(Permission.ManageRoles);
      for (const id of roleIds) {
        const role = view.roles.find((r) => r.id === id);
        if (!role || id === view.guild.id) throw GuildErrors.unknownRole();
        if (role.managed === 1 || !view.outranksRole(role)) throw GuildErrors.missingPermissions();
      }
    }
    if (targetUsers) this.checkTargetUsers(targetUsers);
    const maxAge = input.max_age ?? 86_400;
    const now = Date.now();
    const row: GuildInvitesTable = {
      code: newCode(),
      guild_id: channel.guild_id,
      channel_id: channel.id,
      inviter_id: userId,
      max_age: maxAge,
      max_uses: input.max_uses ?? 0,
      uses: 0,
      temporary: input.temporary ? 1 : 0,
      role_ids: JSON.stringify(roleIds),
      has_target_users: 0,
      created_at: now,
      expires_at: maxAge === 0 ? null : now + maxAge * 1000,
    };
    await this.store.guilds.transaction((tx) => this.store.guildInvites.create(tx, row, targetUsers));
    const inviter = await this.store.users.get(userId);
    const stored = (await this.store.guildInvites.get(row.code))!;
    const wire = inviteWire(stored, view.guild, channel, inviter, this.rolesOf(stored, view.roles));
    await this.events.publish(
      channel.guild_id,
      'INVITE_CREATE',
      {
        channel_id: channel.id, code: row.code, created_at: new Date(now).toISOString(), guild_id: channel.guild_id,
        ...(inviter ? { inviter: userWire(inviter) } : {}), max_age: row.max_age, max_uses: row.max_uses, temporary: row.temporary === 1, uses: 0,
        expires_at: row.expires_at === null ? null : new Date(Number(row.expires_at)).toISOString(),
      },
      // INVITE_CREATE reaches those who may manage the channel's invites (the public rule).
      { kind: 'permission', bit: Permission.ManageChannels, channel },
      { audit },
    );
    return wire;
  }

  private checkTargetUsers(ids: string[]): void {
    if (ids.length > MAX_TARGET_USERS) throw GuildErrors.invalidForm(['target_users_file'], 'BASE_TYPE_MAX_LENGTH', `At most ${MAX_TARGET_USERS} user IDs`);
    ids.forEach((id, i) => {
      // Twenty digits reach past 2^64: a snowflake is a 64-bit number.
      if (!/^\d{1,20}$/.test(id) || BigInt(id) >= 2n ** 64n) throw GuildErrors.invalidForm(['target_users_file', String(i)], 'NUMBER_TYPE_COERCE', `Line ${i + 2} is not a user ID`);
    });
  }

  private rolesOf(i: GuildInvitesTable, roles: { id: string }[]) {
    const ids = new Set(JSON.parse(i.role_ids) as string[]);
    return (roles as never[]).filter((r: { id: string }) => ids.has(r.id));
  }

  /** Get Channel Invites (MANAGE_CHANNELS): with metadata and the role partials. */
  async channelInvites(userId: string, channelId: string) {
    const { view, channel } = await viewChannel(this.store, channelId, userId);
    view.requireIn(channel, Permission.ManageChannels);
    const rows = (await this.store.guildInvites.ofChannel(channelId)).filter((i) => !expired(i));
    const inviters = await this.store.users.getMany(rows.flatMap((r) => (r.inviter_id ? [r.inviter_id] : [])));
    return rows.map((i) => inviteWire(i, view.guild, channel, i.inviter_id ? inviters.get(i.inviter_id) : undefined, this.rolesOf(i, view.roles)));
  }

  async guildInvites(userId: string, guildId: string) {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.ManageGuild);
    const rows = (await this.store.guildInvites.ofGuild(guildId)).filter((i) => !expired(i));
    const channels = new Map((await this.store.guilds.channels(guildId)).map((c) => [c.id, c]));
    const inviters = await this.store.users.getMany(rows.flatMap((r) => (r.inviter_id ? [r.inviter_id] : [])));
    return rows.map((i) => inviteWire(i, v.guild, channels.get(i.channel_id)!, i.inviter_id ? inviters.get(i.inviter_id) : undefined, this.rolesOf(i, v.roles)));
  }

  /** Get Invite: anyone with a token may look an invite up by its code (that is what a link is for). */
  async get(code: string, withCounts: boolean) {
    const { invite, guild, channel } = await this.load(code);
    const inviter = invite.inviter_id ? await this.store.users.get(invite.inviter_id) : undefined;
    const wire = inviteWire(invite, guild, channel, inviter);
    if (withCounts) Object.assign(wire, { approximate_member_count: await this.store.guildMembers.count(guild.id), approximate_presence_count: 0 });
    return wire;
  }

  private async load(code: string) {
    const invite = /^[A-Za-z0-9-]{1,16}$/.test(code) ? await this.store.guildInvites.get(code) : undefined;
    if (!invite || expired(invite) || (invite.max_uses > 0 && invite.uses >= invite.max_uses)) throw GuildErrors.unknownInvite();
    const guild = await this.store.guilds.get(invite.guild_id);
    const channel = await this.store.guilds.channel(invite.channel_id);
    if (!guild || !channel) throw GuildErrors.unknownInvite();
    return { invite, guild, channel };
  }

  /**
   * Accept (POST /invites/{code}): joins the guild with the invite's roles. An invite limited to
   * target users is unknown (10006) to everyone else, as if it did not exist for them.
   */
  async accept(userId: string, code: string) {
    const { invite, guild, channel } = await this.load(code);
    if (invite.has_target_users === 1 && !(await this.store.guildInvites.isTarget(code, userId))) throw GuildErrors.unknownInvite();
    if (await this.store.guildMembers.ban(guild.id, userId)) throw GuildErrors.bannedFromGuild();
    const alreadyMember = await this.store.guildMembers.isMember(guild.id, userId);
    if (!alreadyMember && !(await this.store.guildInvites.use(this.store.database.db, code))) throw GuildErrors.unknownInvite();
    // Roles deleted since the invite was made are skipped.
    const roles = new Set((await this.store.guilds.roles(guild.id)).map((r) => r.id));
    await this.members.join(guild.id, userId, (JSON.parse(invite.role_ids) as string[]).filter((r) => roles.has(r)));
    const inviter = invite.inviter_id ? await this.store.users.get(invite.inviter_id) : undefined;
    return inviteWire((await this.store.guildInvites.get(code)) ?? invite, guild, channel, inviter);
  }

  async delete(userId: string, code: string, audit: AuditScope | null = null) {
    const invite = /^[A-Za-z0-9-]{1,16}$/.test(code) ? await this.store.guildInvites.get(code) : undefined;
    if (!invite) throw GuildErrors.unknownInvite();
    const { view, channel } = await viewChannel(this.store, invite.channel_id, userId);
    if (!has(view.channelPermissions(channel), Permission.ManageChannels) && !has(view.permissions, Permission.ManageGuild)) throw GuildErrors.missingPermissions();
    await this.store.guildInvites.delete(this.store.database.db, code);
    await this.events.publish(invite.guild_id, 'INVITE_DELETE', { channel_id: invite.channel_id, guild_id: invite.guild_id, code }, { kind: 'permission', bit: Permission.ManageChannels, channel }, { audit });
    const inviter = invite.inviter_id ? await this.store.users.get(invite.inviter_id) : undefined;
    return inviteWire(invite, view.guild, channel, inviter);
  }

  /** Get Target Users: a CSV whose only header is `user_id`, one ID per line (spec). */
  async targetUsersCsv(userId: string, code: string): Promise<string> {
    await this.manageable(userId, code);
    const ids = await this.store.guildInvites.targetUsers(code);
    return ['user_id', ...ids].join('\n') + '\n';
  }

  async updateTargetUsers(userId: string, code: string, ids: string[]): Promise<void> {
    await this.manageable(userId, code);
    this.checkTargetUsers(ids);
    await this.store.guilds.transaction((tx) => this.store.guildInvites.setTargetUsers(tx, code, ids));
  }

  /** Target-user uploads are applied in the request, so the job is always complete when asked. */
  async targetUsersJobStatus(userId: string, code: string) {
    const invite = await this.manageable(userId, code);
    const total = (await this.store.guildInvites.targetUsers(code)).length;
    return { status: 2, total_users: total, processed_users: total, created_at: new Date(Number(invite.created_at)).toISOString(), completed_at: new Date(Number(invite.created_at)).toISOString(), error_message: null };
  }

  private async manageable(userId: string, code: string): Promise<GuildInvitesTable> {
    const invite = /^[A-Za-z0-9-]{1,16}$/.test(code) ? await this.store.guildInvites.get(code) : undefined;
    if (!invite) throw GuildErrors.unknownInvite();
    const { view, channel } = await viewChannel(this.store, invite.channel_id, userId);
    if (invite.inviter_id !== userId && !has(view.channelPermissions(channel), Permission.ManageChannels) && !has(view.permissions, Permission.ManageGuild)) throw GuildErrors.missingPermissions();
    return invite;
  }
}

/** Parses an uploaded target-users CSV: header `user_id` (optional), one ID per line. */
export function parseTargetUsersCsv(text: string): string[] {
  const lines = text.split(/\r?\n/).map((l) => l.trim().replace(/,$/, '')).filter((l) => l !== '');
  if (lines[0]?.toLowerCase() === 'user_id' || lines[0]?.toLowerCase() === 'users') lines.shift();
  return lines;
}

function expired(i: GuildInvitesTable): boolean {
  return i.expires_at !== null && Number(i.expires_at) <= Date.now();
}

function newCode(): string {
  let s = '';
  for (let i = 0; i < 10; i++) s += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return s;
}
