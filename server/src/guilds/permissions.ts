import { PermissionFlagsBits } from './permissionBits.ts';

/**
 * Guild permissions: the public 64-bit bitfield (serialized as decimal strings on the wire and in
 * storage) and the one computation every route and dispatch uses. The bit values are
 * discord-api-types' (permissionBits.ts, checked against the package by test); the spec names
 * SET_VOICE_CHANNEL_STATUS 1<<48, USE_EXTERNAL_APPS 1<<50, PIN_MESSAGES 1<<51,
 * BYPASS_SLOWMODE 1<<52, CREATE_GUILD_EXPRESSIONS 1<<43 and CREATE_EVENTS 1<<44 (checked by test).
 */
export const Permission = PermissionFlagsBits;
export type PermissionName = keyof typeof PermissionFlagsBits;

/** Every defined bit; a bitfield with any other bit set is refused as input. */
export const ALL_PERMISSIONS: bigint = Object.values(PermissionFlagsBits).reduce((a, b) => a | b, 0n);

/** What @everyone gets in a new guild: talk, read, join voice, invite; no management. */
export const DEFAULT_EVERYONE_PERMISSIONS: bigint = [
  Permission.CreateInstantInvite, Permission.ViewChannel, Permission.SendMessages, Permission.EmbedLinks,
  Permission.AttachFiles, Permission.AddReactions, Permission.UseExternalEmojis, Permission.ReadMessageHistory,
  Permission.Connect, Permission.Speak, Permission.UseVAD, Permission.Stream, Permission.ChangeNickname,
  Permission.UseApplicationCommands, Permission.UseEmbeddedActivities, Permission.SendMessagesInThreads,
  Permission.CreatePublicThreads, Permission.CreatePrivateThreads, Permission.UseExternalStickers,
  Permission.SendVoiceMessages, Permission.SendPolls, Permission.UseExternalApps, Permission.RequestToSpeak,
  Permission.UseSoundboard, Permission.UseExternalSounds, Permission.CreateGuildExpressions, Permission.CreateEvents,
].reduce((a, b) => a | b, 0n);

/** Parses a wire bitfield ("0".."2^64-1" in decimal); undefined when it is not one or sets unknown bits. */
export function parsePermissions(value: string): bigint | undefined {
  if (!/^\d{1,20}$/.test(value)) return undefined;
  const n = BigInt(value);
  if (n >= 1n << 64n || (n & ~ALL_PERMISSIONS) !== 0n) return undefined;
  return n;
}

export function formatPermissions(value: bigint): string {
  return value.toString();
}

export function has(perms: bigint, bit: bigint): boolean {
  return (perms & bit) === bit;
}

export interface Overwrite {
  id: string;
  /** 0 role, 1 member. */
  type: 0 | 1;
  allow: string;
  deny: string;
}

export interface PermissionSubject {
  guildId: string;
  ownerId: string;
  userId: string;
  /** Permissions of the @everyone role (whose ID is the guild's). */
  everyone: bigint;
  /** Permissions of each of the member's other roles. */
  roles: { id: string; permissions: bigint }[];
  /** ms timestamp of a timeout still running, if any. */
  timedOutUntil?: number | null;
  now?: number;
}

/**
 * The guild-level permissions: @everyone, then the member's roles OR-ed in; the owner and any
 * holder of ADMINISTRATOR get every bit.
 */
export function basePermissions(s: PermissionSubject): bigint {
  if (s.userId === s.ownerId) return ALL_PERMISSIONS;
  let perms = s.everyone;
  for (const r of s.roles) perms |= r.permissions;
  if (has(perms, Permission.Administrator)) return ALL_PERMISSIONS;
  return applyTimeout(perms, s);
}

/**
 * The permissions in one channel, in the public order: base, the @everyone overwrite, the role
 * overwrites (all denies, then all allows), the member overwrite; ADMINISTRATOR and ownership
 * override every overwrite. Without VIEW_CHANNEL nothing else in the channel counts, and without
 * SEND_MESSAGES the abilities that only attach to a message are gone too.
 */
export function channelPermissions(s: PermissionSubject, overwrites: readonly Overwrite[]): bigint {
  if (s.userId === s.ownerId) return ALL_PERMISSIONS;
  let base = s.everyone;
  for (const r of s.roles) base |= r.permissions;
  if (has(base, Permission.Administrator)) return ALL_PERMISSIONS;

  let perms = base;
  const everyone = overwrites.find((o) => o.type === 0 && o.id === s.guildId);
  if (everyone) perms = (perms & ~BigInt(everyone.deny)) | BigInt(everyone.allow);
  let allow = 0n;
  let deny = 0n;
  const roleIds = new Set(s.roles.map((r) => r.id));
  for (const o of overwrites) {
    if (o.type === 0 && o.id !== s.guildId && roleIds.has(o.id)) {
      allow |= BigInt(o.allow);
      deny |= BigInt(o.deny);
    }
  }
  perms = (perms & ~deny) | allow;
  const member = overwrites.find((o) => o.type === 1 && o.id === s.userId);
  if (member) perms = (perms & ~BigInt(member.deny)) | BigInt(member.allow);

  if (!has(perms, Permission.ViewChannel)) return 0n;
  if (!has(perms, Permission.SendMessages)) {
    perms &= ~(Permission.SendTTSMessages | Permission.MentionEveryone | Permission.EmbedLinks | Permission.AttachFiles | Permission.SendPolls | Permission.SendVoiceMessages);
  }
  return applyTimeout(perms, s);
}

/**
 * True when every member of the guild can view a channel with these overwrites, without looking
 * at the members: @everyone holds VIEW_CHANNEL (or ADMINISTRATOR) and no overwrite denies it.
 * Roles only add permissions, an allow cannot take VIEW_CHANNEL away, owners and administrators
 * see everything, and a timeout keeps viewing; so the only ways to lose it are a missing base bit
 * or a deny. The common case for a guild's channels, and it spares reading every member's roles
 * for each message (GuildEvents).
 */
export function everyoneViews(everyone: bigint, overwrites: readonly Overwrite[]): boolean {
  if (!has(everyone, Permission.ViewChannel) && !has(everyone, Permission.Administrator)) return false;
  return overwrites.every((o) => (BigInt(o.deny) & Permission.ViewChannel) === 0n);
}

/** A timed-out member keeps only reading (the public rule for communication_disabled_until). */
function applyTimeout(perms: bigint, s: PermissionSubject): bigint {
  if (s.timedOutUntil && s.timedOutUntil > (s.now ?? Date.now())) return perms & (Permission.ViewChannel | Permission.ReadMessageHistory);
  return perms;
}

/**
 * Actions whose permission was split off on 2026-02-23 (spec, Breaking changes 6): the new bit is
 * required, and the old one alone (MANAGE_MESSAGES, MANAGE_GUILD_EXPRESSIONS, MANAGE_EVENTS) no
 * longer suffices. Managing what others created still needs the MANAGE_* bit.
 */
export const ACTION_PERMISSIONS = {
  pinMessage: Permission.PinMessages,
  bypassSlowmode: Permission.BypassSlowmode,
  createEmoji: Permission.CreateGuildExpressions,
  createSticker: Permission.CreateGuildExpressions,
  createScheduledEvent: Permission.CreateEvents,
  manageOthersEmoji: Permission.ManageGuildExpressions,
  manageOthersEvent: Permission.ManageEvents,
  deleteOthersMessage: Permission.ManageMessages,
  setVoiceChannelStatus: Permission.SetVoiceChannelStatus,
  useExternalApps: Permission.UseExternalApps,
  pruneMembers: Permission.KickMembers | Permission.ManageGuild,
} as const;

export type GuildAction = keyof typeof ACTION_PERMISSIONS;

export function mayDo(perms: bigint, action: GuildAction): boolean {
  return has(perms, ACTION_PERMISSIONS[action]);
}

/** Names of the bits in `required` that `perms` lacks, for error messages and tests. */
export function missing(perms: bigint, required: bigint): PermissionName[] {
  return (Object.entries(PermissionFlagsBits) as [PermissionName, bigint][]).filter(([, bit]) => (required & bit) !== 0n && (perms & bit) === 0n).map(([name]) => name);
}
