import { VoiceStateHandle } from './VoiceStateHandle.ts';
import type { VoiceStates } from './VoiceStates.ts';

/** A lobby's call as seen from outside it (LobbyHandle.getCallInfoHandle): who is in it and how. */
export class CallInfoHandle {
  /** @internal */
  constructor(
    private readonly states: VoiceStates,
    /** The lobby whose call this is. */
    readonly lobbyId: string,
  ) {}

  /** The lobby ID (a lobby call's channel is the lobby). */
  channelId(): string {
    return this.lobbyId;
  }

  /** As Call.getGuildId: the header documents both as the lobby ID. */
  guildId(): string {
    return this.lobbyId;
  }

  /** The IDs of the users in the call. */
  getParticipants(): string[] {
    return this.states.participants(this.lobbyId);
  }

  /** A participant's voice state, or undefined when they are not in the call. */
  getVoiceStateHandle(userId: string): VoiceStateHandle | undefined {
    return this.states.get(this.lobbyId, userId) ? new VoiceStateHandle(this.states, this.lobbyId, userId) : undefined;
  }
}
