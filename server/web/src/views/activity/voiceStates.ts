import { onDispatch } from '../../api/GatewayClient.ts';
import type { GatewayVoiceState } from './sdkEvents.ts';

/**
 * The guild voice states the web app's Gateway session has seen (GUILD_CREATE's voice_states, then
 * VOICE_STATE_UPDATE), with their flags and members, for the activity's VOICE_STATE_UPDATE
 * subscription. AppState keeps only who is where; an activity needs the mute/deafen flags too.
 * Listens from the app's start (this module is loaded with the app shell).
 */
const byGuild = new Map<string, Map<string, GatewayVoiceState>>();
const listeners = new Set<(vs: GatewayVoiceState) => void>();

onDispatch((event, data) => {
  if (event === 'GUILD_CREATE') {
    const d = data as { id?: string; voice_states?: GatewayVoiceState[] };
    if (typeof d.id !== 'string' || !Array.isArray(d.voice_states)) return;
    const guild = new Map<string, GatewayVoiceState>();
    for (const v of d.voice_states) if (v?.channel_id && typeof v.user_id === 'string') guild.set(v.user_id, { ...v, guild_id: d.id });
    byGuild.set(d.id, guild);
    return;
  }
  if (event !== 'VOICE_STATE_UPDATE') return;
  const vs = data as GatewayVoiceState;
  if (!vs || typeof vs.guild_id !== 'string' || typeof vs.user_id !== 'string') return;
  let guild = byGuild.get(vs.guild_id);
  if (!guild) byGuild.set(vs.guild_id, (guild = new Map()));
  if (vs.channel_id) guild.set(vs.user_id, vs);
  else guild.delete(vs.user_id);
  for (const l of listeners) l(vs);
});

/** Who is in the guild voice channel now, as last seen. */
export function voiceStatesIn(guildId: string, channelId: string): GatewayVoiceState[] {
  return [...(byGuild.get(guildId)?.values() ?? [])].filter((v) => v.channel_id === channelId);
}

/** Every guild voice state change from now on; returns the unsubscribe. */
export function onVoiceState(listener: (vs: GatewayVoiceState) => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}
