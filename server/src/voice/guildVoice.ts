import { ApiErrorCode } from '@social-layer/protocol';
import { GuildView } from '../guilds/GuildAccess.ts';
import { memberWire, type GuildMemberWire } from '../guilds/guildWire.ts';
import { has, Permission } from '../guilds/permissions.ts';
import type { GuildChannelsTable } from '../storage/guildSchema.ts';
import type { Store } from '../storage/Store.ts';

/** Channel types that carry a call: GUILD_VOICE (2) and GUILD_STAGE_VOICE (13). */
const VOICE_CHANNEL_TYPES = new Set([2, 13]);

export type GuildVoiceCheck =
  | { ok: true; channel: GuildChannelsTable; member: GuildMemberWire; canSpeak: boolean; canMove: boolean }
  | { ok: false; code: number };

/**
 * Whether a user may join a guild voice channel, by the public rules: the channel is a voice
 * channel of that guild (else 10003), the user is a member (else 50001) who can view it (50001)
 * and holds CONNECT there (50013). SPEAK decides `suppress`: without it the user joins and
 * hears, and the relay drops what they send. MOVE_MEMBERS there lets one into a full channel
 * (`user_limit`, checked by the caller, which knows who is in the call).
 */
export async function checkGuildVoice(store: Store, guildId: string, channelId: string, userId: string): Promise<GuildVoiceCheck> {
  const channel = await store.guilds.channel(channelId);
  if (!channel || channel.guild_id !== guildId || !VOICE_CHANNEL_TYPES.has(channel.type)) return { ok: false, code: ApiErrorCode.UnknownChannel };
  const guild = await store.guilds.get(guildId);
  const member = guild ? await store.guildMembers.get(guildId, userId) : undefined;
  if (!guild || !member) return { ok: false, code: ApiErrorCode.MissingAccess };
  const view = new GuildView(guild, await store.guilds.roles(guildId), member);
  const perms = view.channelPermissions(channel);
  if (!has(perms, Permission.ViewChannel)) return { ok: false, code: ApiErrorCode.MissingAccess };
  if (!has(perms, Permission.Connect)) return { ok: false, code: ApiErrorCode.MissingPermissions };
  return { ok: true, channel, member: memberWire(member), canSpeak: has(perms, Permission.Speak), canMove: has(perms, Permission.MoveMembers) };
}

/** The guild a voice channel belongs to, when `channelId` names one (the SDK's lobby-style op 4). */
export async function guildOfVoiceChannel(store: Store, channelId: string): Promise<string | undefined> {
  const channel = await store.guilds.channel(channelId);
  return channel && VOICE_CHANNEL_TYPES.has(channel.type) ? channel.guild_id : undefined;
}
