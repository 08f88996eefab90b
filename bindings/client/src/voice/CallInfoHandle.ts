import { VoiceStateHandle } from './VoiceStateHandle.ts';
import type { VoiceStates } from './VoiceStates.ts';

/** A lobby's call as seen from outside it (LobbyHandle.getCallInfoHandle): who is in it and how. */
export class CallInfoHandle {
  /** @internal */
  constructor(
    private readonly states: VoiceStates,
    readonly lobbyId: string,
  ) {}

  /** The lobby ID (a lobby call's channel is the lobby). */
  channelId(): string {
    return this.lobbyId;
  }

  /** Lobby calls have no guild: '0', as the native SDK's 0. */
  guildId(): string {
    return '0';
  }

  getParticipants(): string[] {
    return this.states.participants(this.lobbyId);
  }

  getVoiceStateHandle(userId: string): VoiceStateHandle | undefined {
    return this.states.get(this.lobbyId, userId) ? new VoiceStateHandle(this.states, this.lobbyId, userId) : undefined;
  }
}
