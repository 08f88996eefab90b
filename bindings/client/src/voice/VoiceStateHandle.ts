import type { VoiceStates } from './VoiceStates.ts';

/** A live view of one participant's voice state in one call (the spec's VoiceStateHandle). */
export class VoiceStateHandle {
  /** @internal */
  constructor(
    private readonly states: VoiceStates,
    readonly lobbyId: string,
    readonly userId: string,
  ) {}

  selfDeaf(): boolean {
    return this.states.get(this.lobbyId, this.userId)?.selfDeaf ?? false;
  }

  selfMute(): boolean {
    return this.states.get(this.lobbyId, this.userId)?.selfMute ?? false;
  }
}
