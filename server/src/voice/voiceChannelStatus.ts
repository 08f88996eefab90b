import type { EventBus } from '../events/EventBus.ts';
import { viewChannel } from '../guilds/GuildAccess.ts';
import { GuildEvents } from '../guilds/GuildEvents.ts';
import { GuildErrors } from '../guilds/guildErrors.ts';
import { Permission } from '../guilds/permissions.ts';
import type { Logger } from '../log/Logger.ts';
import { AuditAction, auditLogFor } from '../moderation/AuditLog.ts';
import type { Store } from '../storage/Store.ts';
import type { VoiceStateService } from './VoiceStateService.ts';

const VOICE_TYPES = new Set([2, 13]);

/**
 * PUT /channels/{id}/voice-status (spec): up to 500 characters (the route's schema), null or ''
 * clears it. Needs SET_VOICE_CHANNEL_STATUS; MANAGE_CHANNELS too unless the caller is connected
 * to the channel's call (`connected`, from the voice state service of this node, which holds the
 * call). Dispatches VOICE_CHANNEL_STATUS_UPDATE to those who can view the channel and records
 * VOICE_CHANNEL_STATUS_UPDATE (192, `options.status`) or _DELETE (193) in the audit log.
 */
export async function setVoiceChannelStatus(store: Store, bus: EventBus, userId: string, channelId: string, status: string | null, connected: boolean, reason: string | null = null): Promise<void> {
  const { view, channel } = await viewChannel(store, channelId, userId);
  if (!VOICE_TYPES.has(channel.type)) throw GuildErrors.invalidForm(['channel_id'], 'CHANNEL_TYPE_INVALID', 'Not a voice channel');
  view.requireIn(channel, connected ? Permission.SetVoiceChannelStatus : Permission.SetVoiceChannelStatus | Permission.ManageChannels);
  const value = status === null || status === '' ? null : status;
  await store.guilds.updateChannel(store.database.db, channelId, { status: value });
  await auditLogFor(store).record(value === null
    ? { guildId: channel.guild_id, userId, reason, actionType: AuditAction.VoiceChannelStatusDelete, targetId: channelId }
    : { guildId: channel.guild_id, userId, reason, actionType: AuditAction.VoiceChannelStatusUpdate, targetId: channelId, options: { status: value } });
  await new GuildEvents(store, bus).publish(channel.guild_id, 'VOICE_CHANNEL_STATUS_UPDATE', { id: channelId, guild_id: channel.guild_id, status: value }, { kind: 'channel', channel });
}

/**
 * Voice Channel Start Time Update: `voice_start_time` (unix seconds) is set when the first
 * person joins a guild voice channel's call and cleared when the last one leaves; each change is
 * stored on the channel (op 43 reads it) and dispatched as VOICE_CHANNEL_START_TIME_UPDATE
 * `{id, guild_id, voice_start_time}` to those who can view the channel.
 */
export function watchVoiceStartTime(store: Store, bus: EventBus, voice: VoiceStateService, log: Logger): () => void {
  const events = new GuildEvents(store, bus);
  const set = async (channelId: string, value: number | null) => {
    const channel = await store.guilds.channel(channelId);
    if (!channel || !VOICE_TYPES.has(channel.type)) return;
    await store.guilds.updateChannel(store.database.db, channelId, { voice_start_time: value });
    await events.publish(channel.guild_id, 'VOICE_CHANNEL_START_TIME_UPDATE', { id: channelId, guild_id: channel.guild_id, voice_start_time: value }, { kind: 'channel', channel: { ...channel, voice_start_time: value } });
  };
  const fail = (err: unknown) => log.error({ err }, 'voice start time update failed');
  const offJoin = voice.onGuildJoin((channelId, _guildId, _userId, seats) => {
    if (seats === 1) set(channelId, Math.floor(Date.now() / 1000)).catch(fail);
  });
  const offLeave = voice.onLeave((channelId) => {
    if (voice.voiceStates(channelId).length === 0) set(channelId, null).catch(fail);
  });
  return () => {
    offJoin();
    offLeave();
  };
}
