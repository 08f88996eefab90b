import type { VoiceState } from '@social-layer/protocol';

/** One participant's voice state as the handles read it. */
export interface VoiceStateRecord {
  userId: string;
  sessionId: string;
  selfMute: boolean;
  selfDeaf: boolean;
}

export type VoiceStateChange =
  | { kind: 'added'; lobbyId: string; userId: string }
  | { kind: 'removed'; lobbyId: string; userId: string }
  | { kind: 'updated'; lobbyId: string; userId: string };

/**
 * Who is in which lobby's call, from VOICE_STATE_UPDATE and the `voice_states` of lobby
 * objects (READY, LOBBY_CREATE/UPDATE), so a game sees a call before joining it.
 */
export class VoiceStates {
  private readonly lobbies = new Map<string, Map<string, VoiceStateRecord>>();

  participants(lobbyId: string): string[] {
    return [...(this.lobbies.get(lobbyId)?.keys() ?? [])];
  }

  get(lobbyId: string, userId: string): VoiceStateRecord | undefined {
    return this.lobbies.get(lobbyId)?.get(userId);
  }

  has(lobbyId: string): boolean {
    return (this.lobbies.get(lobbyId)?.size ?? 0) > 0;
  }

  /** Applies one VOICE_STATE_UPDATE; returns what changed. */
  apply(state: VoiceState): VoiceStateChange | undefined {
    const lobbyId = state.lobby_id;
    if (!lobbyId || !state.user_id || state.error_code !== undefined) return undefined;
    const users = this.lobbies.get(lobbyId) ?? new Map<string, VoiceStateRecord>();
    const previous = users.get(state.user_id);
    if (state.channel_id === null || state.channel_id === undefined) {
      if (!previous) return undefined;
      users.delete(state.user_id);
      if (users.size === 0) this.lobbies.delete(lobbyId);
      return { kind: 'removed', lobbyId, userId: state.user_id };
    }
    const record: VoiceStateRecord = {
      userId: state.user_id,
      sessionId: state.session_id,
      selfMute: Boolean(state.self_mute),
      selfDeaf: Boolean(state.self_deaf),
    };
    users.set(state.user_id, record);
    this.lobbies.set(lobbyId, users);
    if (!previous) return { kind: 'added', lobbyId, userId: state.user_id };
    if (previous.selfMute !== record.selfMute || previous.selfDeaf !== record.selfDeaf) return { kind: 'updated', lobbyId, userId: state.user_id };
    return undefined;
  }

  /** A lobby object's full list (READY, LOBBY_CREATE/UPDATE): replaces what we had for it. */
  replaceLobby(lobbyId: string, states: readonly VoiceState[]): VoiceStateChange[] {
    const changes: VoiceStateChange[] = [];
    const present = new Set<string>();
    for (const state of states) {
      if (state.channel_id === null) continue;
      present.add(state.user_id);
      const change = this.apply({ ...state, lobby_id: lobbyId, channel_id: state.channel_id ?? lobbyId });
      if (change) changes.push(change);
    }
    for (const userId of this.participants(lobbyId)) {
      if (present.has(userId)) continue;
      const change = this.apply({ lobby_id: lobbyId, user_id: userId, channel_id: null } as VoiceState);
      if (change) changes.push(change);
    }
    return changes;
  }

  forgetLobby(lobbyId: string): VoiceStateChange[] {
    return this.replaceLobby(lobbyId, []);
  }

  clear(): void {
    this.lobbies.clear();
  }
}
