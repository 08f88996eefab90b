import type { APIBan, APIChannel, APIGuild, APIGuildMember, APIInvite, APIRole, APIUser, GuildFeature } from 'discord-api-types/v10';
import type { GuildChannelsTable, GuildInvitesTable, GuildRolesTable, GuildsTable } from '../storage/guildSchema.ts';
import type { MemberWithRoles } from '../storage/GuildMemberRepo.ts';
import type { UsersTable } from '../storage/schema.ts';
import type { Overwrite } from './permissions.ts';
import { primaryGuildWire } from './primaryGuildWire.ts';

/**
 * Rows to the public wire shapes (discord-api-types/v10), so what we send is the public payload by
 * construction. Fields we do not model yet carry their public "nothing" value.
 */

const iso = (ms: number | string | null): string | null => (ms === null ? null : new Date(Number(ms)).toISOString());

/**
 * The public User object. `flags` and `primary_guild` are required there (the public OpenAPI
 * document; conformance.test): `flags` is 0 (no account flags here), `primary_guild` null until
 * the user chooses one.
 */
export function userWire(u: UsersTable): APIUser {
  return { id: u.id, username: u.username, global_name: u.global_name, avatar: u.avatar, discriminator: '0', bot: u.is_bot === 1, public_flags: 0, flags: 0, primary_guild: null, ...primaryGuildWire(u) } as unknown as APIUser;
}

export function roleWire(r: GuildRolesTable): APIRole {
  const colors = JSON.parse(r.colors) as APIRole['colors'];
  return {
    id: r.id,
    name: r.name,
    // Deprecated in favour of `colors`, still returned (spec): the gradient's primary colour.
    color: r.color,
    colors,
    hoist: r.hoist === 1,
    icon: r.icon,
    unicode_emoji: r.unicode_emoji,
    position: r.position,
    permissions: r.permissions,
    managed: r.managed === 1,
    mentionable: r.mentionable === 1,
    flags: r.flags,
    ...(r.bot_user_id ? { tags: { bot_id: r.bot_user_id } } : {}),
  } as APIRole;
}

/** The role partial of Get Channel Invites (spec): only these fields. */
export function rolePartialWire(r: GuildRolesTable): Pick<APIRole, 'id' | 'name' | 'position' | 'color' | 'colors' | 'icon' | 'unicode_emoji'> {
  return { id: r.id, name: r.name, position: r.position, color: r.color, colors: JSON.parse(r.colors), icon: r.icon, unicode_emoji: r.unicode_emoji };
}

export function channelWire(c: GuildChannelsTable): APIChannel {
  const base = {
    id: c.id,
    type: c.type,
    guild_id: c.guild_id,
    name: c.name,
    position: c.position,
    parent_id: c.parent_id,
    permission_overwrites: JSON.parse(c.permission_overwrites) as Overwrite[],
    nsfw: c.nsfw === 1,
    flags: c.flags,
    // Nullable and optional (spec, Field changes): null for guild channels not owned by an app.
    application_id: c.application_id,
  };
  if (c.type === 2) return { ...base, bitrate: c.bitrate ?? 64000, user_limit: c.user_limit ?? 0, rtc_region: null, rate_limit_per_user: c.rate_limit_per_user, last_message_id: null } as unknown as APIChannel;
  if (c.type === 4) return base as unknown as APIChannel;
  return { ...base, topic: c.topic, rate_limit_per_user: c.rate_limit_per_user, last_message_id: null } as unknown as APIChannel;
}

/**
 * A channel the recipient cannot view, for sessions that opted into channel obfuscation (spec,
 * Field changes): literal name `___hidden___`, sensitive fields nulled, flag CHANNEL_OBFUSCATED,
 * and one overwrite denying VIEW_CHANNEL to @everyone.
 */
export const CHANNEL_OBFUSCATED = 1 << 17;
export function obfuscatedChannelWire(c: GuildChannelsTable): APIChannel {
  return {
    id: c.id,
    type: c.type,
    guild_id: c.guild_id,
    name: '___hidden___',
    position: c.position,
    parent_id: c.parent_id,
    topic: null,
    nsfw: false,
    last_message_id: null,
    rate_limit_per_user: 0,
    flags: c.flags | CHANNEL_OBFUSCATED,
    application_id: null,
    permission_overwrites: [{ id: c.guild_id, type: 0, allow: '0', deny: (1n << 10n).toString() }],
  } as unknown as APIChannel;
}

export type GuildMemberWire = APIGuildMember & { bio: string | null; guild_id?: string };

export function memberWire(m: MemberWithRoles): GuildMemberWire {
  return {
    user: userWire(m.user),
    nick: m.member.nick,
    avatar: m.member.avatar,
    banner: m.member.banner,
    bio: m.member.bio,
    roles: m.roles,
    joined_at: iso(m.member.joined_at)!,
    premium_since: null,
    // Server deafen and mute (Modify Guild Member), which hold in every voice channel of the guild.
    deaf: m.member.deaf === 1,
    mute: m.member.mute === 1,
    flags: m.member.flags,
    pending: false,
    communication_disabled_until: m.member.communication_disabled_until && Number(m.member.communication_disabled_until) > Date.now() ? iso(m.member.communication_disabled_until) : null,
  } as GuildMemberWire;
}

export function guildWire(g: GuildsTable, roles: GuildRolesTable[], extra: Partial<APIGuild> = {}): APIGuild & { tag: string | null } {
  return {
    id: g.id,
    name: g.name,
    icon: g.icon,
    splash: null,
    discovery_splash: null,
    banner: g.banner,
    description: g.description,
    owner_id: g.owner_id,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    roles: roles.map(roleWire),
    emojis: [],
    stickers: [],
    features: JSON.parse(g.features) as GuildFeature[],
    mfa_level: 0,
    application_id: null,
    system_channel_id: g.system_channel_id,
    system_channel_flags: 0,
    rules_channel_id: null,
    vanity_url_code: null,
    premium_tier: Number(g.premium_tier ?? 0) as APIGuild['premium_tier'],
    premium_subscription_count: 0,
    preferred_locale: 'en-US',
    public_updates_channel_id: null,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    hub_type: null,
    safety_alerts_channel_id: null,
    incidents_data: null,
    max_members: 250000,
    // Required by the public Guild object (its OpenAPI document; conformance.test), with the
    // values of a guild that uses none of them.
    region: 'deprecated',
    home_header: null,
    widget_enabled: false,
    widget_channel_id: null,
    max_presences: null,
    max_video_channel_users: 25,
    max_stage_video_channel_users: 50,
    nsfw: false,
    // The guild tag users can show as `primary_guild` (1 to 4 characters).
    tag: g.tag,
    // The tag's badge (image hash), for the same display.
    badge: g.badge ?? null,
    ...extra,
  } as APIGuild & { tag: string | null; badge: string | null };
}

export function inviteWire(i: GuildInvitesTable, guild: GuildsTable, channel: GuildChannelsTable, inviter: UsersTable | undefined, roles?: GuildRolesTable[]): APIInvite & Record<string, unknown> {
  return {
    type: 0,
    code: i.code,
    guild_id: guild.id,
    guild: { id: guild.id, name: guild.name, icon: guild.icon, splash: null, banner: guild.banner, description: guild.description, features: JSON.parse(guild.features), verification_level: 0, vanity_url_code: null, nsfw_level: 0, nsfw: false, premium_subscription_count: 0 },
    channel: { id: channel.id, name: channel.name, type: channel.type },
    ...(inviter ? { inviter: userWire(inviter) } : {}),
    expires_at: iso(i.expires_at),
    // Invite metadata (the public "with metadata" shape for the routes that list invites).
    uses: i.uses,
    max_uses: i.max_uses,
    max_age: i.max_age,
    temporary: i.temporary === 1,
    created_at: iso(i.created_at),
    ...(roles ? { roles: roles.map(rolePartialWire) } : {}),
    flags: 0,
  } as unknown as APIInvite & Record<string, unknown>;
}

export function banWire(reason: string | null, user: UsersTable): APIBan {
  return { reason, user: userWire(user) };
}
