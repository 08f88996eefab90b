import type { Metadata } from '@social-layer/protocol';
import type { ClientState } from './ClientState.ts';
import { LobbyMemberHandle } from './LobbyMemberHandle.ts';
import { parseMetadataJson } from './metadata.ts';
import { CallInfoHandle } from './voice/CallInfoHandle.ts';
import type { LinkedChannel } from './lobbies/linkedChannelTypes.ts';

/** A live view of a lobby the current user is in; after leaving it reads as empty. */
export class LobbyHandle {
  /** @internal */
  constructor(
    private readonly state: ClientState,
    /** The lobby ID. */
    readonly id: string,
  ) {}

  /** The lobby's metadata (string keys and values). */
  metadata(): Metadata {
    return parseMetadataJson(this.state.lobbyState(this.id)?.lobbyMetadataJson(this.id));
  }

  /** The IDs of the lobby's members. */
  lobbyMemberIds(): string[] {
    return this.state.lobbyState(this.id)?.memberIds(this.id) ?? [];
  }

  /** The lobby's members, as live handles. */
  lobbyMembers(): LobbyMemberHandle[] {
    return this.lobbyMemberIds().map((memberId) => new LobbyMemberHandle(this.state, this.id, memberId));
  }

  /** One member of the lobby as a live handle, or undefined when they are not in it. */
  getLobbyMemberHandle(memberId: string): LobbyMemberHandle | undefined {
    return this.state.isMember(this.id, memberId) ? new LobbyMemberHandle(this.state, this.id, memberId) : undefined;
  }

  /** The guild text channel the lobby is linked to, if any (messages are mirrored both ways). */
  linkedChannel(): LinkedChannel | undefined {
    return this.state.lobbyState(this.id) ? this.state.linkedChannels.get(this.id) : undefined;
  }

  /** The lobby's call, whether or not we joined it; undefined when nobody is in it. */
  getCallInfoHandle(): CallInfoHandle | undefined {
    const states = this.state.voiceStates;
    if (!states || !this.state.lobbyState(this.id) || !states.has(this.id)) return undefined;
    return new CallInfoHandle(states, this.id);
  }
}
