import { LobbyMemberFlags, type Metadata } from '@social-layer/protocol';
import type { ClientState } from './ClientState.ts';
import { parseMetadataJson } from './metadata.ts';
import { UserHandle } from './UserHandle.ts';

/** A live view of one member of one lobby; reads go to the lobby state each time. */
export class LobbyMemberHandle {
  /** @internal */
  constructor(
    private readonly state: ClientState,
    /** The lobby this membership is in. */
    readonly lobbyId: string,
    /** The member's user ID. */
    readonly id: string,
  ) {}

  /** The member's metadata in this lobby (string keys and values): what a game shares per player. */
  metadata(): Metadata {
    if (!this.state.isMember(this.lobbyId, this.id)) return {};
    return parseMetadataJson(this.state.lobbies?.memberMetadataJson(this.lobbyId, this.id));
  }

  /** Whether the member has a live Gateway session now (members stay members while offline). */
  connected(): boolean {
    if (!this.state.isMember(this.lobbyId, this.id)) return false;
    return this.state.lobbies?.memberConnected(this.lobbyId, this.id) ?? false;
  }

  /** Whether this member may link the lobby to a channel (member flag CanLinkLobby). */
  canLinkLobby(): boolean {
    if (!this.state.isMember(this.lobbyId, this.id)) return false;
    const flags = this.state.lobbies?.memberFlags(this.lobbyId, this.id) ?? 0;
    return (flags & LobbyMemberFlags.CanLinkLobby) !== 0;
  }

  /** The member's lobby-specific name set through the server API, if any (our extension). */
  additionalName(): string | undefined {
    return this.state.additionalName(this.lobbyId, this.id);
  }

  /** The member's user, when the client knows them. */
  user(): UserHandle | undefined {
    return this.state.user(this.id) ? new UserHandle(this.state, this.id) : undefined;
  }
}
