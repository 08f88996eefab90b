import type { Store } from '../storage/Store.ts';
import type { GuildMembersTable } from '../storage/guildSchema.ts';
import { recordBotsRemoved } from './botWebhookEvents.ts';
import { type GuildView, topPosition, viewGuild } from './GuildAccess.ts';
import { GuildErrors } from './guildErrors.ts';
import type { GuildEvents } from './GuildEvents.ts';
import { banWire, memberWire, userWire } from './guildWire.ts';
import { Permission, has, mayDo } from './permissions.ts';
import { imageHash } from './images.ts';
import type { PrimaryGuilds } from './primaryGuild.ts';
import type { AuditScope } from '../moderation/auditContext.ts';

export interface MemberPatch {
  nick?: string | null;
  roles?: string[];
  flags?: number;
  communication_disabled_until?: string | null;
  mute?: boolean;
  deaf?: boolean;
  channel_id?: string | null;
}

/**
 * What Modify Guild Member needs of guild voice (server/src/voice/VoiceStateService.ts, set by
 * startServer): whether the member holds a seat, and the changes to apply to it.
 */
export interface GuildVoiceControl {
  guildSeat(guildId: string, userId: string): unknown;
  memberVoiceFlags(guildId: string, userId: string, flags: { mute: boolean; deaf: boolean }): Promise<void>;
  moveGuildMember(guildId: string, userId: string, toChannelId: string | null): Promise<boolean>;
}

/** Channel types that carry a call (as voice/guildVoice.ts): GUILD_VOICE and GUILD_STAGE_VOICE. */
const VOICE_TYPES = new Set([2, 13]);

/** Guild member flags a moderator may set (BYPASSES_VERIFICATION); the rest are the platform's. */
const EDITABLE_MEMBER_FLAGS = 1 << 2;
const MAX_TIMEOUT_MS = 28 * 86_400_000;

/** Members: reads, role changes, edits (own and others'), kicks, bans and prune. */
export class MemberService {
  /** Guild voice, for `mute`, `deaf` and `channel_id` (unset: no voice, those fields are 40032). */
  voice: GuildVoiceControl | undefined;

  constructor(private readonly store: Store, private readonly events: GuildEvents, private readonly primaryGuilds?: PrimaryGuilds) {}

  async getMember(userId: string, guildId: string, targetId: string) {
    await viewGuild(this.store, guildId, userId);
    const m = await this.store.guildMembers.get(guildId, targetId);
    if (!m) throw GuildErrors.unknownMember();
    return memberWire(m);
  }

  async listMembers(userId: string, guildId: string, opts: { limit: number; after?: string }) {
    await viewGuild(this.store, guildId, userId);
    return (await this.store.guildMembers.list(guildId, opts)).map(memberWire);
  }

  async searchMembers(userId: string, guildId: string, query: string, limit: number) {
    await viewGuild(this.store, guildId, userId);
    return (await this.store.guildMembers.list(guildId, { query, limit })).map(memberWire);
  }

  /** Actor may act on target only from strictly above the target's top role (the owner always; never on the owner). */
  private outranks(v: GuildView, targetRoles: string[], targetId: string): boolean {
    if (targetId === v.guild.owner_id) return v.isOwner;
    return v.isOwner || v.topPosition > topPosition(v.roles, targetRoles);
  }

  async addRole(userId: string, guildId: string, targetId: string, roleId: string, audit: AuditScope | null = null) {
    const { v, target } = await this.roleChange(userId, guildId, targetId, roleId);
    if (target.roles.includes(roleId)) return;
    await this.store.guildMembers.addRole(this.store.database.db, guildId, targetId, roleId);
    await this.memberUpdated(v, targetId, audit);
  }

  async removeRole(userId: string, guildId: string, targetId: string, roleId: string, audit: AuditScope | null = null) {
    const { v, target } = await this.roleChange(userId, guildId, targetId, roleId);
    if (!target.roles.includes(roleId)) return;
    await this.store.guildMembers.removeRole(this.store.database.db, guildId, targetId, roleId);
    await this.memberUpdated(v, targetId, audit);
  }

  private async roleChange(userId: string, guildId: string, targetId: string, roleId: string) {
    const v = await viewGuild(this.store, guildId, userId);
    const target = await this.store.guildMembers.get(guildId, targetId);
    if (!target) throw GuildErrors.unknownMember();
    const role = v.roles.find((r) => r.id === roleId);
    if (!role || role.id === guildId) throw GuildErrors.unknownRole();
    v.require(Permission.ManageRoles);
    if (role.managed === 1 || !v.outranksRole(role)) throw GuildErrors.missingPermissions();
    return { v, target };
  }

  /** Modify Guild Member: each field needs its own permission; `flags` needs MANAGE_GUILD, MANAGE_ROLES or the three moderation bits. */
  async modifyMember(userId: string, guildId: string, targetId: string, patch: MemberPatch, audit: AuditScope | null = null) {
    const v = await viewGuild(this.store, guildId, userId);
    const target = await this.store.guildMembers.get(guildId, targetId);
    if (!target) throw GuildErrors.unknownMember();
    const perms = v.permissions;
    const self = targetId === userId;
    const set: Partial<GuildMembersTable> = {};
    let roles: string[] | undefined;
    if (patch.nick !== undefined) {
      if (!(has(perms, Permission.ManageNicknames) && (self || this.outranks(v, target.roles, targetId))) && !(self && has(perms, Permission.ChangeNickname))) throw GuildErrors.missingPermissions();
      set.nick = patch.nick === '' ? null : patch.nick;
    }
    if (patch.roles !== undefined) {
      if (!has(perms, Permission.ManageRoles)) throw GuildErrors.missingPermissions();
      const wanted = new Set(patch.roles);
      for (const id of wanted) {
        const role = v.roles.find((r) => r.id === id);
        if (!role || role.id === guildId) throw GuildErrors.unknownRole();
      }
      // Roles that change hands must sit below the caller; managed roles never change by hand.
      const changed = [...wanted].filter((id) => !target.roles.includes(id)).concat(target.roles.filter((id) => !wanted.has(id)));
      for (const id of changed) {
        const role = v.roles.find((r) => r.id === id)!;
        if (role.managed === 1 || !v.outranksRole(role)) throw GuildErrors.missingPermissions();
      }
      roles = [...wanted];
    }
    if (patch.flags !== undefined) {
      const allowed = has(perms, Permission.ManageGuild) || has(perms, Permission.ManageRoles) || has(perms, Permission.ModerateMembers | Permission.KickMembers | Permission.BanMembers);
      if (!allowed) throw GuildErrors.missingPermissions();
      if ((patch.flags & ~EDITABLE_MEMBER_FLAGS) !== 0) throw GuildErrors.invalidForm(['flags'], 'MEMBER_FLAGS_INVALID', 'Only BYPASSES_VERIFICATION may be set');
      set.flags = (target.member.flags & ~EDITABLE_MEMBER_FLAGS) | patch.flags;
    }
    if (patch.communication_disabled_until !== undefined) {
      if (!has(perms, Permission.ModerateMembers) || !this.outranks(v, target.roles, targetId) || self) throw GuildErrors.missingPermissions();
      if (patch.communication_disabled_until === null) set.communication_disabled_until = null;
      else {
        const until = Date.parse(patch.communication_disabled_until);
        if (!Number.isFinite(until) || until > Date.now() + MAX_TIMEOUT_MS) throw GuildErrors.invalidForm(['communication_disabled_until'], 'DATE_INVALID', 'A timeout ends within 28 days');
        set.communication_disabled_until = until;
      }
    }
    if (patch.mute !== undefined && !has(perms, Permission.MuteMembers)) throw GuildErrors.missingPermissions();
    if (patch.deaf !== undefined && !has(perms, Permission.DeafenMembers)) throw GuildErrors.missingPermissions();
    if (patch.channel_id !== undefined && !has(perms, Permission.MoveMembers)) throw GuildErrors.missingPermissions();
    // Server mute, deafen and moves act on a member in voice (the public rule: else 400/40032).
    const voiceChange = patch.mute !== undefined || patch.deaf !== undefined || patch.channel_id !== undefined;
    if (voiceChange && !this.voice?.guildSeat(guildId, targetId)) throw GuildErrors.targetNotInVoice();
    if (patch.channel_id !== undefined && patch.channel_id !== null) {
      // The destination: a voice channel of this guild, where the mover may connect (and move
      // members) and the member may be (view and connect); a full channel does not stop a move.
      const dest = await this.store.guilds.channel(patch.channel_id);
      if (!dest || dest.guild_id !== guildId || !VOICE_TYPES.has(dest.type)) throw GuildErrors.invalidForm(['channel_id'], 'CHANNEL_TYPE_INVALID', 'Not a voice channel of this guild');
      if (!has(v.channelPermissions(dest), Permission.ViewChannel | Permission.Connect | Permission.MoveMembers)) throw GuildErrors.missingPermissions();
      const targetView = await viewGuild(this.store, guildId, targetId);
      if (!has(targetView.channelPermissions(dest), Permission.ViewChannel | Permission.Connect)) throw GuildErrors.missingPermissions();
    }
    if (patch.mute !== undefined) set.mute = patch.mute ? 1 : 0;
    if (patch.deaf !== undefined) set.deaf = patch.deaf ? 1 : 0;
    await this.store.guilds.transaction(async (tx) => {
      await this.store.guildMembers.update(tx, guildId, targetId, set);
      if (roles) await this.store.guildMembers.setRoles(tx, guildId, targetId, roles);
    });
    if (this.voice && (patch.mute !== undefined || patch.deaf !== undefined)) {
      const m = (await this.store.guildMembers.get(guildId, targetId))!;
      await this.voice.memberVoiceFlags(guildId, targetId, { mute: m.member.mute === 1, deaf: m.member.deaf === 1 });
    }
    if (this.voice && patch.channel_id !== undefined) await this.voice.moveGuildMember(guildId, targetId, patch.channel_id);
    return this.memberUpdated(v, targetId, audit);
  }

  /** Modify Current Member: `nick` (CHANGE_NICKNAME), and `banner`, `avatar`, `bio` (spec: settable by bots). */
  async modifyCurrentMember(userId: string, guildId: string, patch: { nick?: string | null; banner?: string | null; avatar?: string | null; bio?: string | null }) {
    const v = await viewGuild(this.store, guildId, userId);
    const set: Partial<GuildMembersTable> = {};
    if (patch.nick !== undefined) {
      if (!has(v.permissions, Permission.ChangeNickname) && !has(v.permissions, Permission.ManageNicknames)) throw GuildErrors.missingPermissions();
      set.nick = patch.nick === '' ? null : patch.nick;
    }
    if (patch.banner !== undefined) set.banner = imageHash(patch.banner);
    if (patch.avatar !== undefined) set.avatar = imageHash(patch.avatar);
    if (patch.bio !== undefined) set.bio = patch.bio === '' ? null : patch.bio;
    await this.store.guildMembers.update(this.store.database.db, guildId, userId, set);
    return this.memberUpdated(v, userId);
  }

  private async memberUpdated(v: GuildView, targetId: string, audit: AuditScope | null = null) {
    const m = (await this.store.guildMembers.get(v.guild.id, targetId))!;
    const wire = memberWire(m);
    await this.events.publish(v.guild.id, 'GUILD_MEMBER_UPDATE', { guild_id: v.guild.id, ...wire }, { kind: 'guild' }, { subjectUserId: targetId, audit });
    return wire;
  }

  async kick(userId: string, guildId: string, targetId: string, audit: AuditScope | null = null) {
    const v = await viewGuild(this.store, guildId, userId);
    const target = await this.store.guildMembers.get(guildId, targetId);
    if (!target) throw GuildErrors.unknownMember();
    v.require(Permission.KickMembers);
    if (targetId === userId || !this.outranks(v, target.roles, targetId)) throw GuildErrors.missingPermissions();
    await this.store.guilds.transaction(async (tx) => {
      await this.store.guildMembers.remove(tx, guildId, targetId);
      await recordBotsRemoved(this.store, tx, guildId, [targetId], userId);
    });
    await this.removed(guildId, target.user, audit);
  }

  /** Leaving a guild (DELETE /users/@me/guilds/{id}); the owner cannot leave. */
  async leave(userId: string, guildId: string) {
    const v = await viewGuild(this.store, guildId, userId);
    if (v.isOwner) throw GuildErrors.invalidForm(['guild_id'], 'GUILD_OWNER_CANNOT_LEAVE', 'The owner cannot leave the guild');
    await this.store.guilds.transaction(async (tx) => {
      await this.store.guildMembers.remove(tx, guildId, userId);
      await recordBotsRemoved(this.store, tx, guildId, [userId], userId);
    });
    await this.removed(guildId, v.member.user);
  }

  private async removed(guildId: string, user: Parameters<typeof userWire>[0], audit: AuditScope | null = null) {
    // A user who wore this guild's tag no longer can (primary_guild cleared by the system).
    await this.primaryGuilds?.memberGone(guildId, user.id);
    await this.events.publish(guildId, 'GUILD_MEMBER_REMOVE', { guild_id: guildId, user: userWire(user) }, { kind: 'guild' }, { audit });
    this.events.toUser(user.id, 'GUILD_DELETE', { id: guildId });
  }

  async ban(userId: string, guildId: string, targetId: string, reason: string | null, audit: AuditScope | null = null) {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.BanMembers);
    const user = await this.store.users.get(targetId);
    if (!user) throw GuildErrors.unknownUser();
    const target = await this.store.guildMembers.get(guildId, targetId);
    if (targetId === userId || (target && !this.outranks(v, target.roles, targetId)) || targetId === v.guild.owner_id) throw GuildErrors.missingPermissions();
    await this.banOne(userId, guildId, user, target !== undefined, reason, audit);
  }

  /**
   * Bulk Guild Ban: up to 200 users (the route checks the count), BAN_MEMBERS and MANAGE_GUILD.
   * Each is banned as by the single route; those that cannot be (unknown users, the caller, the
   * owner, members at or above the caller, and users already banned) are `failed_users`. None
   * banned is 500000, as publicly. One GUILD_BAN_ADD (and audit entry) per ban.
   */
  async bulkBan(userId: string, guildId: string, targetIds: string[], reason: string | null, audit: AuditScope | null = null): Promise<{ banned_users: string[]; failed_users: string[] }> {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.BanMembers | Permission.ManageGuild);
    const users = await this.store.users.getMany(targetIds);
    const banned: string[] = [];
    const failed: string[] = [];
    for (const id of targetIds) {
      const user = users.get(id);
      const target = user ? await this.store.guildMembers.get(guildId, id) : undefined;
      const bannable = user && id !== userId && id !== v.guild.owner_id && (!target || this.outranks(v, target.roles, id)) && !(await this.store.guildMembers.ban(guildId, id));
      if (!bannable) {
        failed.push(id);
        continue;
      }
      await this.banOne(userId, guildId, user, target !== undefined, reason, audit);
      banned.push(id);
    }
    if (banned.length === 0) throw GuildErrors.failedToBanUsers();
    return { banned_users: banned, failed_users: failed };
  }

  /** The ban itself, once the caller may: the member removed, the ban stored, GUILD_BAN_ADD (and GUILD_MEMBER_REMOVE). */
  private async banOne(userId: string, guildId: string, user: Parameters<typeof userWire>[0], member: boolean, reason: string | null, audit: AuditScope | null): Promise<void> {
    const targetId = user.id;
    await this.store.guilds.transaction(async (tx) => {
      if (member) await this.store.guildMembers.remove(tx, guildId, targetId);
      await this.store.guildMembers.addBan(tx, guildId, targetId, reason);
      if (member) await recordBotsRemoved(this.store, tx, guildId, [targetId], userId);
    });
    await this.events.publish(guildId, 'GUILD_BAN_ADD', { guild_id: guildId, user: userWire(user) }, { kind: 'permission', bit: Permission.BanMembers }, { audit });
    if (member) await this.removed(guildId, user, audit);
  }

  async unban(userId: string, guildId: string, targetId: string, audit: AuditScope | null = null) {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.BanMembers);
    const ban = await this.store.guildMembers.ban(guildId, targetId);
    if (!ban) throw GuildErrors.unknownBan();
    await this.store.guildMembers.removeBan(this.store.database.db, guildId, targetId);
    const user = await this.store.users.get(targetId);
    if (user) await this.events.publish(guildId, 'GUILD_BAN_REMOVE', { guild_id: guildId, user: userWire(user) }, { kind: 'permission', bit: Permission.BanMembers }, { audit });
  }

  async bans(userId: string, guildId: string, opts: { limit: number; after?: string }) {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.BanMembers);
    const rows = await this.store.guildMembers.bans(guildId, opts);
    const users = await this.store.users.getMany(rows.map((r) => r.user_id));
    return rows.filter((r) => users.has(r.user_id)).map((r) => banWire(r.reason, users.get(r.user_id)!));
  }

  async getBan(userId: string, guildId: string, targetId: string) {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.BanMembers);
    const ban = await this.store.guildMembers.ban(guildId, targetId);
    const user = ban ? await this.store.users.get(targetId) : undefined;
    if (!ban || !user) throw GuildErrors.unknownBan();
    return banWire(ban.reason, user);
  }

  /** Get Guild Prune Count and Begin Guild Prune: both need MANAGE_GUILD besides KICK_MEMBERS (spec). */
  async pruneCount(userId: string, guildId: string, days: number, includeRoles: string[]) {
    const { candidates } = await this.pruneCandidates(userId, guildId, days, includeRoles);
    return { pruned: candidates.length };
  }

  async beginPrune(userId: string, guildId: string, days: number, includeRoles: string[], computeCount: boolean, audit: AuditScope | null = null) {
    const { v, candidates } = await this.pruneCandidates(userId, guildId, days, includeRoles);
    const users = await this.store.users.getMany(candidates);
    await this.store.guilds.transaction(async (tx) => {
      for (const id of candidates) await this.store.guildMembers.remove(tx, guildId, id);
      await recordBotsRemoved(this.store, tx, guildId, candidates, userId);
    });
    for (const id of candidates) if (users.has(id)) await this.removed(v.guild.id, users.get(id)!, audit);
    return { pruned: computeCount ? candidates.length : null };
  }

  private async pruneCandidates(userId: string, guildId: string, days: number, includeRoles: string[]) {
    const v = await viewGuild(this.store, guildId, userId);
    if (!mayDo(v.permissions, 'pruneMembers')) throw GuildErrors.missingPermissions();
    for (const id of includeRoles) if (!v.roles.some((r) => r.id === id)) throw GuildErrors.unknownRole();
    // Members the caller could not kick are never pruned: the owner and anyone at or above them.
    const all = await this.store.guildMembers.pruneCandidates(guildId, days, includeRoles, [v.guild.owner_id, userId]);
    const candidates: string[] = [];
    for (const id of all) {
      const m = await this.store.guildMembers.get(guildId, id);
      if (m && this.outranks(v, m.roles, id)) candidates.push(id);
    }
    return { v, candidates };
  }

  /**
   * Add Guild Member: a bot adds the user whose `guilds.join` token it holds (the route checks the
   * token). The bot needs CREATE_INSTANT_INVITE, and each optional field its own permission
   * (`nick` MANAGE_NICKNAMES, `roles` MANAGE_ROLES below its top role, `mute` MUTE_MEMBERS, `deaf`
   * DEAFEN_MEMBERS, `flags` as Modify Guild Member). Returns the new member, or null when the user already was one (nothing
   * changes then, as publicly); a banned user is 40007.
   */
  async addWithToken(userId: string, guildId: string, targetId: string, input: { nick?: string | null; roles?: string[] | null; mute?: boolean | null; deaf?: boolean | null; flags?: number | null }) {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.CreateInstantInvite);
    if (await this.store.guildMembers.isMember(guildId, targetId)) return null;
    if (await this.store.guildMembers.ban(guildId, targetId)) throw GuildErrors.bannedFromGuild();
    const roles = [...new Set(input.roles ?? [])];
    if (input.nick != null) v.require(Permission.ManageNicknames);
    if (roles.length > 0) {
      v.require(Permission.ManageRoles);
      for (const id of roles) {
        const role = v.roles.find((r) => r.id === id);
        if (!role || role.id === guildId) throw GuildErrors.unknownRole();
        if (role.managed === 1 || !v.outranksRole(role)) throw GuildErrors.missingPermissions();
      }
    }
    if (input.mute != null) v.require(Permission.MuteMembers);
    if (input.deaf != null) v.require(Permission.DeafenMembers);
    // `flags` as Modify Guild Member takes them: BYPASSES_VERIFICATION only, by a moderator.
    if (input.flags != null && input.flags !== 0) {
      const p = v.permissions;
      if (!(has(p, Permission.ManageGuild) || has(p, Permission.ManageRoles) || has(p, Permission.ModerateMembers | Permission.KickMembers | Permission.BanMembers))) throw GuildErrors.missingPermissions();
      if ((input.flags & ~EDITABLE_MEMBER_FLAGS) !== 0) throw GuildErrors.invalidForm(['flags'], 'MEMBER_FLAGS_INVALID', 'Only BYPASSES_VERIFICATION may be set');
    }
    await this.store.guilds.transaction(async (tx) => {
      await this.store.guildMembers.add(tx, guildId, targetId, roles, { ...(input.nick ? { nick: input.nick } : {}), ...(input.flags ? { flags: input.flags } : {}) });
      await this.store.guildMembers.update(tx, guildId, targetId, { ...(input.mute != null ? { mute: input.mute ? 1 : 0 } : {}), ...(input.deaf != null ? { deaf: input.deaf ? 1 : 0 } : {}) });
    });
    const wire = memberWire((await this.store.guildMembers.get(guildId, targetId))!);
    await this.events.publish(guildId, 'GUILD_MEMBER_ADD', { guild_id: guildId, ...wire }, { kind: 'guild' }, { subjectUserId: targetId });
    this.events.guildAvailable(targetId, guildId);
    return wire;
  }

  /**
   * Adds a user to the guild (invite accepted, bot installed); a banned user is refused with 40007.
   * Returns false when they were already a member.
   */
  async join(guildId: string, joinerId: string, roles: string[] = []): Promise<boolean> {
    if (await this.store.guildMembers.ban(guildId, joinerId)) throw GuildErrors.bannedFromGuild();
    if (await this.store.guildMembers.isMember(guildId, joinerId)) {
      if (roles.length === 0) return false;
      const current = (await this.store.guildMembers.get(guildId, joinerId))!;
      const extra = roles.filter((r) => !current.roles.includes(r));
      if (extra.length === 0) return false;
      await this.store.guilds.transaction(async (tx) => {
        for (const r of extra) await this.store.guildMembers.addRole(tx, guildId, joinerId, r);
      });
      const m = (await this.store.guildMembers.get(guildId, joinerId))!;
      await this.events.publish(guildId, 'GUILD_MEMBER_UPDATE', { guild_id: guildId, ...memberWire(m) }, { kind: 'guild' }, { subjectUserId: joinerId });
      return false;
    }
    await this.store.guilds.transaction((tx) => this.store.guildMembers.add(tx, guildId, joinerId, roles));
    const m = (await this.store.guildMembers.get(guildId, joinerId))!;
    await this.events.publish(guildId, 'GUILD_MEMBER_ADD', { guild_id: guildId, ...memberWire(m) }, { kind: 'guild' }, { subjectUserId: joinerId });
    this.events.guildAvailable(joinerId, guildId);
    return true;
  }
}

