import type { VoiceStates } from './VoiceStates.ts';

/** A live view of one participant's voice state in one call (the spec's VoiceStateHandle). */
export class VoiceStateHandle {
  /** @internal */
  constructor(
    private readonly states: VoiceStates,
    /** The lobby whose call this is. */
    readonly lobbyId: string,
    /** The participant. */
    readonly userId: string,
  ) {}

  /** Whether the participant deafened themselves. */
  selfDeaf(): boolean {
    return this.states.get(this.lobbyId, this.userId)?.selfDeaf ?? false;
  }

  /** Whether the participant muted themselves. */
  selfMute(): boolean {
    return this.states.get(this.lobbyId, this.userId)?.selfMute ?? false;
  }
}
