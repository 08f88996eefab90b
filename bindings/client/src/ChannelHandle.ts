import { ChannelType } from '@social-layer/protocol';
import type { ClientState } from './ClientState.ts';

/**
 * `ChannelHandle` (social-sdk-api.md 5.2): a channel the SDK receives messages in: a lobby, a
 * DM or an ephemeral DM. A live view: after the client is destroyed it reads empty.
 */
export class ChannelHandle {
  /** @internal */
  constructor(
    private readonly state: ClientState,
    /** The channel's ID: the lobby's ID for a lobby, the other user's ID for an ephemeral DM. */
    readonly id: string,
    private readonly kind: ChannelType,
    private readonly otherUserId?: string,
  ) {}

  /** A lobby reads as its linked channel's name ('' when unlinked); a DM as the other user's display name. */
  name(): string {
    if (this.state.destroyed) return '';
    if (this.kind === ChannelType.Lobby) return this.state.linkedChannels.get(this.id)?.name ?? '';
    const other = this.otherUserId ? this.state.user(this.otherUserId) : undefined;
    return other?.global_name ?? other?.username ?? '';
  }

  /** The two participants of a DM or ephemeral DM; empty for lobbies (their members are on LobbyHandle). */
  recipients(): string[] {
    if (this.state.destroyed || this.kind === ChannelType.Lobby || !this.otherUserId) return [];
    return [this.state.selfId ?? '0', this.otherUserId];
  }

  /** What kind of channel it is: `Lobby`, `Dm` or `EphemeralDm`. */
  type(): ChannelType {
    return this.kind;
  }
}
