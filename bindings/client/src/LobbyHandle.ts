import type { Metadata } from '@social-layer/protocol';
import type { ClientState } from './ClientState.ts';
import { LobbyMemberHandle } from './LobbyMemberHandle.ts';
import { parseMetadataJson } from './metadata.ts';
import { CallInfoHandle } from './voice/CallInfoHandle.ts';

/** A live view of a lobby the current user is in; after leaving it reads as empty. */
export class LobbyHandle {
  /** @internal */
  constructor(
    private readonly state: ClientState,
    readonly id: string,
  ) {}

  metadata(): Metadata {
    return parseMetadataJson(this.state.lobbyState(this.id)?.lobbyMetadataJson(this.id));
  }

  lobbyMemberIds(): string[] {
    return this.state.lobbyState(this.id)?.memberIds(this.id) ?? [];
  }

  lobbyMembers(): LobbyMemberHandle[] {
    return this.lobbyMemberIds().map((memberId) => new LobbyMemberHandle(this.state, this.id, memberId));
  }

  getLobbyMemberHandle(memberId: string): LobbyMemberHandle | undefined {
    return this.state.isMember(this.id, memberId) ? new LobbyMemberHandle(this.state, this.id, memberId) : undefined;
  }

  /** The lobby's call, whether or not we joined it; undefined when nobody is in it. */
  getCallInfoHandle(): CallInfoHandle | undefined {
    const states = this.state.voiceStates;
    if (!states || !this.state.lobbyState(this.id) || !states.has(this.id)) return undefined;
    return new CallInfoHandle(states, this.id);
  }
}
