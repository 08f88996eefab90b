import type { Store } from '../storage/Store.ts';
import type { GuildChannelsTable, GuildRolesTable } from '../storage/guildSchema.ts';
import { type GuildView, viewChannel, viewGuild } from './GuildAccess.ts';
import { emojiWire } from './EmojiService.ts';
import { GuildErrors } from './guildErrors.ts';
import { imageHash } from './images.ts';
import type { GuildEvents } from './GuildEvents.ts';
import type { PrimaryGuilds } from './primaryGuild.ts';
import { channelWire, guildWire, memberWire, obfuscatedChannelWire, roleWire } from './guildWire.ts';
import { ALL_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, Permission, has, parsePermissions, type Overwrite } from './permissions.ts';
import type { AuditScope } from '../moderation/auditContext.ts';

export const ChannelType = { GuildText: 0, GuildVoice: 2, GuildCategory: 4, GuildAnnouncement: 5 } as const;
const MAX_CHANNELS = 500;
const MAX_ROLES = 250;

/** A voice state as the voice service holds it (GUILD_CREATE drops `guild_id` and `member`). */
export interface GuildCreateVoiceState { channel_id: string | null; user_id: string; guild_id?: string; member?: unknown }

export interface ChannelInput {
  name?: string;
  type?: number;
  topic?: string | null;
  position?: number;
  parent_id?: string | null;
  nsfw?: boolean;
  bitrate?: number;
  user_limit?: number;
  rate_limit_per_user?: number;
  permission_overwrites?: { id: string; type: number; allow?: string; deny?: string }[];
}

export interface RoleInput {
  name?: string;
  permissions?: string;
  color?: number;
  colors?: { primary_color: number; secondary_color?: number | null; tertiary_color?: number | null };
  hoist?: boolean;
  mentionable?: boolean;
  unicode_emoji?: string | null;
}

/**
 * Guilds, their channels and roles: the rules (who may, what is valid) and the dispatches each
 * change causes. Members, bans and prune are in MemberService; invites in GuildInviteService.
 */
export class GuildService {
  constructor(private readonly store: Store, readonly events: GuildEvents, private readonly primaryGuilds?: PrimaryGuilds) {}

  // ---- guilds --------------------------------------------------------------------------------

  /**
   * A new guild owned by `ownerId`: @everyone with the default permissions, a "Text Channels"
   * category with `general` and a "Voice Channels" category with `General`, and the owner as member.
   */
  async createGuild(ownerId: string, input: { name: string; icon?: string | null; features?: string[]; tag?: string | null }) {
    const guild = await this.store.guilds.transaction(async (tx) => {
      const g = await this.store.guilds.create(tx, { name: input.name, ownerId, icon: imageHash(input.icon ?? null), features: input.features ?? [], tag: input.tag ?? null, everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS.toString() });
      const textCat = await this.store.guilds.createChannel(tx, g.id, { type: ChannelType.GuildCategory, name: 'Text Channels', position: 0 });
      const voiceCat = await this.store.guilds.createChannel(tx, g.id, { type: ChannelType.GuildCategory, name: 'Voice Channels', position: 1 });
      const general = await this.store.guilds.createChannel(tx, g.id, { type: ChannelType.GuildText, name: 'general', position: 0, parent_id: textCat.id });
      await this.store.guilds.createChannel(tx, g.id, { type: ChannelType.GuildVoice, name: 'General', position: 0, parent_id: voiceCat.id });
      await this.store.guilds.update(tx, g.id, { system_channel_id: general.id });
      await this.store.guildMembers.add(tx, g.id, ownerId);
      return g;
    });
    this.events.guildAvailable(ownerId, guild.id);
    const roles = await this.store.guilds.roles(guild.id);
    return guildWire((await this.store.guilds.get(guild.id))!, roles);
  }

  async getGuild(userId: string, guildId: string, withCounts: boolean) {
    const v = await viewGuild(this.store, guildId, userId);
    const extra = withCounts ? { approximate_member_count: await this.store.guildMembers.count(guildId), approximate_presence_count: 0 } : {};
    return guildWire(v.guild, v.roles, { ...extra, emojis: await this.emojisOf(guildId) });
  }

  async modifyGuild(userId: string, guildId: string, patch: { name?: string; icon?: string | null; banner?: string | null; description?: string | null; owner_id?: string; system_channel_id?: string | null; features?: string[]; tag?: string | null; badge?: string | null }, audit: AuditScope | null = null) {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.ManageGuild);
    const set: Record<string, unknown> = {};
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.icon !== undefined) set.icon = imageHash(patch.icon);
    if (patch.banner !== undefined) set.banner = imageHash(patch.banner);
    if (patch.description !== undefined) set.description = patch.description;
    if (patch.owner_id !== undefined) {
      // Ownership moves only by the owner, and only to a member.
      if (!v.isOwner) throw GuildErrors.missingPermissions();
      if (!(await this.store.guildMembers.isMember(guildId, patch.owner_id))) throw GuildErrors.unknownMember();
      set.owner_id = patch.owner_id;
    }
    if (patch.system_channel_id !== undefined) {
      if (patch.system_channel_id !== null) {
        const c = await this.store.guilds.channel(patch.system_channel_id);
        if (!c || c.guild_id !== guildId || c.type !== ChannelType.GuildText) throw GuildErrors.invalidForm(['system_channel_id'], 'CHANNEL_INVALID', 'Not a text channel of this guild');
      }
      set.system_channel_id = patch.system_channel_id;
    }
    if (patch.features !== undefined) {
      // Only the features a guild may toggle itself; the rest are the platform's to grant.
      const current = JSON.parse(v.guild.features) as string[];
      const toggleable = new Set(['ENHANCED_ROLE_COLORS', 'COMMUNITY', 'INVITES_DISABLED', 'DISCOVERABLE']);
      const kept = current.filter((f) => !toggleable.has(f));
      set.features = JSON.stringify([...new Set([...kept, ...patch.features.filter((f) => toggleable.has(f))])]);
    }
    // The guild tag users show as `primary_guild` (1 to 4 characters, checked by the route) and its badge.
    if (patch.tag !== undefined) set.tag = patch.tag;
    if (patch.badge !== undefined) set.badge = imageHash(patch.badge);
    await this.store.guilds.update(this.store.database.db, guildId, set as never);
    const updated = (await this.store.guilds.get(guildId))!;
    if ((patch.tag !== undefined && updated.tag !== v.guild.tag) || (patch.badge !== undefined && (updated.badge ?? null) !== (v.guild.badge ?? null))) {
      await this.primaryGuilds?.guildTagChanged(guildId, updated.tag, updated.badge ?? null);
    }
    const wire = guildWire(updated, v.roles);
    await this.events.publish(guildId, 'GUILD_UPDATE', wire, { kind: 'guild' }, { audit });
    return wire;
  }

  private async emojisOf(guildId: string) {
    return (await this.store.emojis.ofGuild(guildId)).map((e) => emojiWire(e));
  }

  /** GET /users/@me/guilds: partial guilds with `banner`, the caller's `owner` and `permissions`. */
  async userGuilds(userId: string, opts: { before?: string; after?: string; limit?: number; withCounts?: boolean }) {
    const guilds = await this.store.guilds.ofUser(userId, opts);
    const out = [];
    for (const g of guilds) {
      const v = await viewGuild(this.store, g.id, userId);
      out.push({
        id: g.id,
        name: g.name,
        icon: g.icon,
        banner: g.banner,
        owner: g.owner_id === userId,
        permissions: v.permissions.toString(),
        features: JSON.parse(g.features) as string[],
        ...(opts.withCounts ? { approximate_member_count: await this.store.guildMembers.count(g.id), approximate_presence_count: 0 } : {}),
      });
    }
    return out;
  }

  /** The GUILD_CREATE payload for one member's sessions: channels they may see (others obfuscated or left out), roles, members. */
  async guildCreatePayload(guildId: string, userId: string, opts: { members: boolean; obfuscate: boolean; voiceStates?: readonly GuildCreateVoiceState[] }) {
    const v = await viewGuild(this.store, guildId, userId);
    const channels = [];
    const viewable = new Set<string>();
    for (const c of await this.store.guilds.channels(guildId)) {
      if (has(v.channelPermissions(c), Permission.ViewChannel)) {
        channels.push(channelWire(c));
        viewable.add(c.id);
      } else if (opts.obfuscate) channels.push(obfuscatedChannelWire(c));
    }
    // Partial voice states (public shape: no guild_id), only in channels the member can view.
    const voiceStates = (opts.voiceStates ?? [])
      .filter((s) => s.channel_id !== null && viewable.has(s.channel_id))
      .map(({ guild_id: _guild, member: _member, ...rest }) => rest);
    const memberCount = await this.store.guildMembers.count(guildId);
    const members = opts.members ? await this.store.guildMembers.list(guildId, { limit: 1000 }) : [v.member];
    return {
      ...guildWire(v.guild, v.roles, { emojis: await this.emojisOf(guildId) }),
      joined_at: new Date(Number(v.member.member.joined_at)).toISOString(),
      large: memberCount > 50,
      unavailable: false,
      member_count: memberCount,
      voice_states: voiceStates,
      members: members.map(memberWire),
      channels,
      threads: [],
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    };
  }

  // ---- channels ------------------------------------------------------------------------------

  /** Channels in position order; from 2026-11-16 those the caller cannot view are left out (spec). */
  async listChannels(userId: string, guildId: string) {
    const v = await viewGuild(this.store, guildId, userId);
    const rows = await this.store.guilds.channels(guildId);
    return rows.filter((c) => has(v.channelPermissions(c), Permission.ViewChannel)).map(channelWire);
  }

  async getChannel(userId: string, channelId: string) {
    const { channel } = await viewChannel(this.store, channelId, userId);
    return channelWire(channel);
  }

  async createChannel(userId: string, guildId: string, input: ChannelInput & { name: string }, audit: AuditScope | null = null) {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.ManageChannels);
    const existing = await this.store.guilds.channels(guildId);
    if (existing.length >= MAX_CHANNELS) throw GuildErrors.maxChannels();
    const type = input.type ?? ChannelType.GuildText;
    await this.checkParent(guildId, input.parent_id, type, existing);
    const overwrites = input.permission_overwrites ? this.checkOverwrites(v, input.permission_overwrites, await this.store.guilds.roles(guildId)) : undefined;
    const row = await this.store.guilds.createChannel(this.store.database.db, guildId, {
      type,
      name: normalizeChannelName(input.name, type),
      ...(input.position !== undefined ? { position: input.position } : {}),
      parent_id: input.parent_id ?? null,
      topic: input.topic ?? null,
      nsfw: input.nsfw ? 1 : 0,
      ...(input.bitrate !== undefined ? { bitrate: input.bitrate } : {}),
      ...(input.user_limit !== undefined ? { user_limit: input.user_limit } : {}),
      rate_limit_per_user: input.rate_limit_per_user ?? 0,
      ...(overwrites ? { permission_overwrites: JSON.stringify(overwrites) } : {}),
    });
    const wire = channelWire(row);
    await this.events.publish(guildId, 'CHANNEL_CREATE', wire, { kind: 'channel', channel: row, hidden: obfuscatedChannelWire(row) }, { audit });
    return wire;
  }

  async modifyChannel(userId: string, channelId: string, input: ChannelInput, audit: AuditScope | null = null) {
    const { view, channel } = await viewChannel(this.store, channelId, userId);
    view.requireIn(channel, Permission.ManageChannels);
    if (input.type !== undefined && input.type !== channel.type) throw GuildErrors.invalidForm(['type'], 'CHANNEL_TYPE_INVALID', 'The channel type cannot change here');
    const set: Partial<GuildChannelsTable> = {};
    if (input.name !== undefined) set.name = normalizeChannelName(input.name, channel.type);
    if (input.topic !== undefined) set.topic = input.topic;
    if (input.position !== undefined) set.position = input.position;
    if (input.nsfw !== undefined) set.nsfw = input.nsfw ? 1 : 0;
    if (input.bitrate !== undefined) set.bitrate = input.bitrate;
    if (input.user_limit !== undefined) set.user_limit = input.user_limit;
    if (input.rate_limit_per_user !== undefined) set.rate_limit_per_user = input.rate_limit_per_user;
    if (input.parent_id !== undefined) {
      await this.checkParent(channel.guild_id, input.parent_id, channel.type, await this.store.guilds.channels(channel.guild_id));
      set.parent_id = input.parent_id;
    }
    if (input.permission_overwrites !== undefined) {
      view.requireIn(channel, Permission.ManageRoles);
      set.permission_overwrites = JSON.stringify(this.checkOverwrites(view, input.permission_overwrites, view.roles));
    }
    await this.store.guilds.updateChannel(this.store.database.db, channelId, set);
    const row = (await this.store.guilds.channel(channelId))!;
    const wire = channelWire(row);
    // Members who could see it before but no longer can still hear of the change (obfuscated).
    await this.events.publish(row.guild_id, 'CHANNEL_UPDATE', wire, { kind: 'channel', channel: row, hidden: obfuscatedChannelWire(row) }, { audit });
    return wire;
  }

  async deleteChannel(userId: string, channelId: string, audit: AuditScope | null = null) {
    const { view, channel } = await viewChannel(this.store, channelId, userId);
    view.requireIn(channel, Permission.ManageChannels);
    await this.store.guilds.transaction(async (tx) => {
      await this.store.guilds.deleteChannel(tx, channelId);
      if (view.guild.system_channel_id === channelId) await this.store.guilds.update(tx, channel.guild_id, { system_channel_id: null });
    });
    const wire = channelWire(channel);
    await this.events.publish(channel.guild_id, 'CHANNEL_DELETE', wire, { kind: 'channel', channel, hidden: obfuscatedChannelWire(channel) }, { audit });
    return wire;
  }

  /** PATCH /guilds/{id}/channels: positions (and parents) of several channels in one write. */
  async reorderChannels(userId: string, guildId: string, items: { id: string; position?: number | null; parent_id?: string | null; lock_permissions?: boolean | null }[], audit: AuditScope | null = null) {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.ManageChannels);
    const channels = await this.store.guilds.channels(guildId);
    const byId = new Map(channels.map((c) => [c.id, c]));
    for (const [i, item] of items.entries()) {
      const c = byId.get(item.id);
      if (!c) throw GuildErrors.invalidForm([String(i), 'id'], 'CHANNEL_INVALID', 'Unknown channel in this guild');
      if (item.parent_id !== undefined) await this.checkParent(guildId, item.parent_id, c.type, channels, [String(i), 'parent_id']);
    }
    const changed: GuildChannelsTable[] = [];
    await this.store.guilds.transaction(async (tx) => {
      for (const item of items) {
        const c = byId.get(item.id)!;
        const set: Partial<GuildChannelsTable> = {};
        if (item.position !== undefined && item.position !== null) set.position = item.position;
        if (item.parent_id !== undefined) set.parent_id = item.parent_id;
        if (item.lock_permissions && item.parent_id) set.permission_overwrites = byId.get(item.parent_id)!.permission_overwrites;
        await this.store.guilds.updateChannel(tx, c.id, set);
        changed.push({ ...c, ...set });
      }
    });
    for (const row of changed) await this.events.publish(guildId, 'CHANNEL_UPDATE', channelWire(row), { kind: 'channel', channel: row, hidden: obfuscatedChannelWire(row) }, { audit });
  }

  /**
   * Edit Channel Permissions: sets the one overwrite for a role (type 0) or member (type 1), the
   * others kept. `type` left out names a role when the ID is one of the guild's roles, else a
   * member. Needs MANAGE_ROLES in the channel; the CHANNEL_UPDATE it publishes becomes
   * CHANNEL_OVERWRITE_CREATE or _UPDATE in the audit log (moderation/auditTap.ts).
   */
  async setOverwrite(userId: string, channelId: string, overwriteId: string, input: { type?: number | null; allow?: string | null; deny?: string | null }, audit: AuditScope | null = null): Promise<void> {
    const { view, channel } = await viewChannel(this.store, channelId, userId);
    view.requireIn(channel, Permission.ManageRoles);
    const type = input.type ?? (view.roles.some((r) => r.id === overwriteId) ? 0 : 1);
    if (type === 1 && !(await this.store.users.get(overwriteId))) throw GuildErrors.unknownUser();
    const [overwrite] = this.checkOverwrites(view, [{ id: overwriteId, type, allow: input.allow ?? '0', deny: input.deny ?? '0' }], view.roles, () => []);
    const list = (JSON.parse(channel.permission_overwrites) as Overwrite[]).filter((o) => o.id !== overwriteId);
    await this.overwritesChanged(channel, [...list, overwrite!], audit);
  }

  /** Delete Channel Permission: 404 Unknown Overwrite (10009) when the channel has none for that ID, as publicly. */
  async deleteOverwrite(userId: string, channelId: string, overwriteId: string, audit: AuditScope | null = null): Promise<void> {
    const { view, channel } = await viewChannel(this.store, channelId, userId);
    view.requireIn(channel, Permission.ManageRoles);
    const list = JSON.parse(channel.permission_overwrites) as Overwrite[];
    if (!list.some((o) => o.id === overwriteId)) throw GuildErrors.unknownOverwrite();
    await this.overwritesChanged(channel, list.filter((o) => o.id !== overwriteId), audit);
  }

  private async overwritesChanged(channel: GuildChannelsTable, list: Overwrite[], audit: AuditScope | null): Promise<void> {
    await this.store.guilds.updateChannel(this.store.database.db, channel.id, { permission_overwrites: JSON.stringify(list) });
    const row = (await this.store.guilds.channel(channel.id))!;
    await this.events.publish(row.guild_id, 'CHANNEL_UPDATE', channelWire(row), { kind: 'channel', channel: row, hidden: obfuscatedChannelWire(row) }, { audit });
  }

  private async checkParent(guildId: string, parentId: string | null | undefined, type: number, channels: GuildChannelsTable[], path = ['parent_id']): Promise<void> {
    if (parentId === undefined || parentId === null) return;
    const parent = channels.find((c) => c.id === parentId);
    if (!parent || parent.guild_id !== guildId || parent.type !== ChannelType.GuildCategory || type === ChannelType.GuildCategory) {
      throw GuildErrors.invalidForm(path, 'CHANNEL_PARENT_INVALID', 'Not a category channel of this guild');
    }
  }

  /** Overwrites must name roles of this guild or its members, and grant or deny only bits the caller holds. */
  private checkOverwrites(v: GuildView, list: NonNullable<ChannelInput['permission_overwrites']>, roles: GuildRolesTable[], path: (i: number) => string[] = (i) => ['permission_overwrites', String(i)]): Overwrite[] {
    const out: Overwrite[] = [];
    const own = v.permissions;
    list.forEach((o, i) => {
      const allow = parsePermissions(o.allow ?? '0');
      const deny = parsePermissions(o.deny ?? '0');
      if (allow === undefined) throw GuildErrors.invalidForm([...path(i), 'allow'], 'PERMISSIONS_INVALID', 'Invalid permission bitfield');
      if (deny === undefined) throw GuildErrors.invalidForm([...path(i), 'deny'], 'PERMISSIONS_INVALID', 'Invalid permission bitfield');
      if (o.type === 0 && !roles.some((r) => r.id === o.id)) throw GuildErrors.unknownRole();
      if (!has(own, allow | deny)) throw GuildErrors.missingPermissions();
      out.push({ id: o.id, type: o.type as 0 | 1, allow: allow.toString(), deny: deny.toString() });
    });
    return out;
  }

  // ---- roles ---------------------------------------------------------------------------------

  async listRoles(userId: string, guildId: string) {
    const v = await viewGuild(this.store, guildId, userId);
    return v.roles.map(roleWire);
  }

  async getRole(userId: string, guildId: string, roleId: string) {
    const v = await viewGuild(this.store, guildId, userId);
    const role = v.roles.find((r) => r.id === roleId);
    if (!role) throw GuildErrors.unknownRole();
    return roleWire(role);
  }

  async roleMemberCounts(userId: string, guildId: string) {
    await viewGuild(this.store, guildId, userId);
    return this.store.guilds.roleMemberCounts(guildId);
  }

  async createRole(userId: string, guildId: string, input: RoleInput, audit: AuditScope | null = null) {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.ManageRoles);
    if (v.roles.length >= MAX_ROLES) throw GuildErrors.maxRoles();
    const perms = this.checkRolePermissions(v, input.permissions) ?? DEFAULT_EVERYONE_PERMISSIONS & v.permissions;
    const colors = this.checkColors(v, input);
    const row = await this.store.guilds.createRole(this.store.database.db, guildId, {
      name: input.name ?? 'new role',
      permissions: perms.toString(),
      ...(colors ?? {}),
      hoist: input.hoist ? 1 : 0,
      mentionable: input.mentionable ? 1 : 0,
      unicode_emoji: input.unicode_emoji ?? null,
      // A new role goes right above @everyone's level but below the creator's top role.
      position: Math.max(1, Math.min(v.roles.length, v.topPosition)),
    });
    const wire = roleWire(row);
    await this.events.publish(guildId, 'GUILD_ROLE_CREATE', { guild_id: guildId, role: wire }, { kind: 'guild' }, { audit });
    return wire;
  }

  async modifyRole(userId: string, guildId: string, roleId: string, input: RoleInput, audit: AuditScope | null = null) {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.ManageRoles);
    const role = v.roles.find((r) => r.id === roleId);
    if (!role) throw GuildErrors.unknownRole();
    if (role.id !== guildId && !v.outranksRole(role)) throw GuildErrors.missingPermissions();
    const set: Partial<GuildRolesTable> = {};
    if (input.name !== undefined) {
      if (role.id === guildId) throw GuildErrors.invalidForm(['name'], 'ROLE_NAME_INVALID', 'The @everyone role cannot be renamed');
      set.name = input.name;
    }
    const perms = this.checkRolePermissions(v, input.permissions);
    if (perms !== undefined) {
      if (role.managed === 1) throw GuildErrors.missingPermissions();
      set.permissions = perms.toString();
    }
    Object.assign(set, this.checkColors(v, input) ?? {});
    if (input.hoist !== undefined) set.hoist = input.hoist ? 1 : 0;
    if (input.mentionable !== undefined) set.mentionable = input.mentionable ? 1 : 0;
    if (input.unicode_emoji !== undefined) set.unicode_emoji = input.unicode_emoji;
    await this.store.guilds.updateRole(this.store.database.db, roleId, set);
    const wire = roleWire((await this.store.guilds.role(roleId))!);
    await this.events.publish(guildId, 'GUILD_ROLE_UPDATE', { guild_id: guildId, role: wire }, { kind: 'guild' }, { audit });
    return wire;
  }

  async deleteRole(userId: string, guildId: string, roleId: string, audit: AuditScope | null = null) {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.ManageRoles);
    const role = v.roles.find((r) => r.id === roleId);
    if (!role) throw GuildErrors.unknownRole();
    if (role.id === guildId || role.managed === 1 || !v.outranksRole(role)) throw GuildErrors.missingPermissions();
    await this.store.guilds.transaction((tx) => this.store.guilds.deleteRole(tx, roleId));
    await this.events.publish(guildId, 'GUILD_ROLE_DELETE', { guild_id: guildId, role_id: roleId }, { kind: 'guild' }, { audit });
  }

  async reorderRoles(userId: string, guildId: string, items: { id: string; position?: number | null }[], audit: AuditScope | null = null) {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.ManageRoles);
    for (const [i, item] of items.entries()) {
      const role = v.roles.find((r) => r.id === item.id);
      if (!role || role.id === guildId) throw GuildErrors.invalidForm([String(i), 'id'], 'ROLE_INVALID', 'Unknown role in this guild');
      // Neither the role nor its new place may be at or above the caller's top role.
      if (!v.outranksRole(role) || (item.position != null && !v.isOwner && item.position >= v.topPosition)) throw GuildErrors.missingPermissions();
    }
    await this.store.guilds.transaction(async (tx) => {
      for (const item of items) if (item.position != null) await this.store.guilds.updateRole(tx, item.id, { position: item.position });
    });
    const roles = await this.store.guilds.roles(guildId);
    for (const item of items) {
      const r = roles.find((x) => x.id === item.id)!;
      await this.events.publish(guildId, 'GUILD_ROLE_UPDATE', { guild_id: guildId, role: roleWire(r) }, { kind: 'guild' }, { audit });
    }
    return roles.map(roleWire);
  }

  /** A role may only carry bits its creator holds (administrators and the owner hold all). */
  private checkRolePermissions(v: GuildView, value: string | undefined): bigint | undefined {
    if (value === undefined) return undefined;
    const perms = parsePermissions(value);
    if (perms === undefined) throw GuildErrors.invalidForm(['permissions'], 'PERMISSIONS_INVALID', 'Invalid permission bitfield');
    if (!has(v.permissions, perms)) throw GuildErrors.missingPermissions();
    return perms & ALL_PERMISSIONS;
  }

  /** `colors` gradients need the ENHANCED_ROLE_COLORS feature; `color` alone sets a solid colour. */
  private checkColors(v: GuildView, input: RoleInput): { color: number; colors: string } | undefined {
    if (input.colors) {
      const gradient = input.colors.secondary_color != null || input.colors.tertiary_color != null;
      if (gradient && !(JSON.parse(v.guild.features) as string[]).includes('ENHANCED_ROLE_COLORS')) {
        throw GuildErrors.invalidForm(['colors'], 'ROLE_COLORS_NOT_ALLOWED', 'Gradient role colours need the ENHANCED_ROLE_COLORS guild feature');
      }
      const c = { primary_color: input.colors.primary_color, secondary_color: input.colors.secondary_color ?? null, tertiary_color: input.colors.tertiary_color ?? null };
      return { color: c.primary_color, colors: JSON.stringify(c) };
    }
    if (input.color !== undefined) return { color: input.color, colors: JSON.stringify({ primary_color: input.color, secondary_color: null, tertiary_color: null }) };
    return undefined;
  }
}

function normalizeChannelName(name: string, type: number): string {
  // Text channel names are lower-case with dashes for spaces, as the public clients show them.
  return type === ChannelType.GuildText || type === ChannelType.GuildAnnouncement ? name.trim().toLowerCase().replace(/\s+/g, '-') : name.trim();
}

