import type { VoiceState } from '@social-layer/protocol';
import type { GuildMemberWire } from '../guilds/guildWire.ts';
import type { GuildChannelsTable } from '../storage/guildSchema.ts';

/**
 * What the voice gateway learns from a voice token: who may join which call. `lobbyId` is the
 * call's key: the lobby's ID, or for a guild voice channel the channel's ID (with `guildId` set,
 * which is the `server_id` that Discord clients such as @discordjs/voice identify with).
 */
export interface VoiceGrant {
  userId: string;
  applicationId: string;
  lobbyId: string;
  guildId: string | null;
  sessionId: string;
}

/**
 * A voice state. Lobby calls use the protocol's shape; a guild voice channel's state has the
 * public guild fields too. `lobby_id` is the call key on both (our extension: for a guild call
 * it is the channel's ID), so our client SDK joins a guild voice channel as it joins a lobby call.
 */
export type CallVoiceState = VoiceState & {
  guild_id?: string;
  member?: GuildMemberWire;
  self_stream?: boolean;
  request_to_speak_timestamp?: null;
};

/** One call as this node sees it: its application or guild, and userId -> voice state. */
export interface CallEntry {
  applicationId: string;
  /** Set for a guild voice channel's call. */
  guildId: string | null;
  channel: GuildChannelsTable | null;
  states: Map<string, CallVoiceState>;
}

export interface PendingToken extends VoiceGrant {
  expiresAt: number;
}
