import type { Metadata } from '@social-layer/protocol';
import type { ClientState } from './ClientState.ts';
import { LobbyHandle } from './LobbyHandle.ts';
import type { MessageRecord } from './MessageCache.ts';
import { UserHandle } from './UserHandle.ts';

/**
 * A message. It holds its record, not just an ID, so it keeps working after the message leaves
 * the 25-per-channel cache; edits to a cached message still show through the shared record.
 */
export class MessageHandle {
  /** @internal */
  constructor(
    private readonly state: ClientState,
    private readonly record: MessageRecord,
  ) {}

  get id(): string {
    return this.record.id;
  }
  get authorId(): string {
    return this.record.authorId;
  }
  get channelId(): string {
    return this.record.channelId;
  }
  /** '0' for a message outside lobbies. */
  get lobbyId(): string {
    return this.record.lobbyId;
  }
  get applicationId(): string {
    return this.record.applicationId;
  }
  /** DMs: the other participant ('0' for lobby messages). */
  get recipientId(): string {
    return this.record.recipientId ?? '0';
  }
  /** ms since the epoch. */
  get sentTimestamp(): number {
    return this.record.sentTimestamp;
  }

  author(): UserHandle | undefined {
    return this.state.user(this.record.authorId) ? new UserHandle(this.state, this.record.authorId) : undefined;
  }

  recipient(): UserHandle | undefined {
    const id = this.record.recipientId;
    return id && this.state.user(id) ? new UserHandle(this.state, id) : undefined;
  }

  lobby(): LobbyHandle | undefined {
    return this.state.lobbyState(this.record.lobbyId) ? new LobbyHandle(this.state, this.record.lobbyId) : undefined;
  }

  content(): string {
    return this.state.destroyed ? '' : this.record.content;
  }

  /** Same as content(): lobby messages carry no markup we would replace. */
  rawContent(): string {
    return this.content();
  }

  metadata(): Metadata {
    return this.state.destroyed ? {} : { ...this.record.metadata };
  }

  moderationMetadata(): Metadata {
    return this.state.destroyed ? {} : { ...this.record.moderationMetadata };
  }

  /** The author's lobby additional name when the message was sent, if any. */
  additionalName(): string | undefined {
    return this.state.destroyed ? undefined : (this.record.additionalName ?? undefined);
  }

  /** ms since the epoch of the last edit; 0 if never edited (lobby messages never are). */
  editedTimestamp(): number {
    return this.state.destroyed ? 0 : (this.record.editedTimestamp ?? 0);
  }

  /** Every message here was sent through the SDK from a game. */
  sentFromGame(): boolean {
    return true;
  }
}
