import type { Metadata } from '@social-layer/protocol';
import type { ClientState } from './ClientState.ts';
import { LobbyHandle } from './LobbyHandle.ts';
import type { MessageRecord } from './MessageCache.ts';
import { UserHandle } from './UserHandle.ts';
import { ChannelType } from '@social-layer/protocol';
import { ChannelHandle } from './ChannelHandle.ts';
import type { AdditionalContent } from './lobbies/linkedChannelTypes.ts';

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

  /** The message ID. */
  get id(): string {
    return this.record.id;
  }
  /** The ID of the user who sent it. */
  get authorId(): string {
    return this.record.authorId;
  }
  /** The channel it is in (a lobby's or a direct-message channel). */
  get channelId(): string {
    return this.record.channelId;
  }
  /** '0' for a message outside lobbies. */
  get lobbyId(): string {
    return this.record.lobbyId;
  }
  /** The application it was sent through. */
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

  /** The author, when the client knows them. */
  author(): UserHandle | undefined {
    return this.state.user(this.record.authorId) ? new UserHandle(this.state, this.record.authorId) : undefined;
  }

  /** For a direct message, the other user; undefined otherwise. */
  recipient(): UserHandle | undefined {
    const id = this.record.recipientId;
    return id && this.state.user(id) ? new UserHandle(this.state, id) : undefined;
  }

  /** For a lobby message, the lobby (while this user is in it); undefined otherwise. */
  lobby(): LobbyHandle | undefined {
    return this.state.lobbyState(this.record.lobbyId) ? new LobbyHandle(this.state, this.record.lobbyId) : undefined;
  }

  /** The text. */
  content(): string {
    return this.state.destroyed ? '' : this.record.content;
  }

  /** Same as content(): lobby messages carry no markup we would replace. */
  rawContent(): string {
    return this.content();
  }

  /** String metadata the sender attached. */
  metadata(): Metadata {
    return this.state.destroyed ? {} : { ...this.record.metadata };
  }

  /** Metadata moderation attached to the message. */
  moderationMetadata(): Metadata {
    return this.state.destroyed ? {} : { ...this.record.moderationMetadata };
  }

  /** The author's lobby additional name when the message was sent, if any. */
  additionalName(): string | undefined {
    return this.state.destroyed ? undefined : (this.record.additionalName ?? undefined);
  }

  /** ms since the epoch of the last edit; 0 if never edited (lobby messages only are when edited in a linked channel). */
  editedTimestamp(): number {
    return this.state.destroyed ? 0 : (this.record.editedTimestamp ?? 0);
  }

  /** False for messages written in a linked guild channel (the web app, a bot) and for SDK-injected notices. */
  sentFromGame(): boolean {
    return this.record.linked?.origin !== 'channel' && this.record.disclosureType === undefined;
  }

  /** The channel it was sent in: its lobby, or the DM; undefined once the lobby is gone. */
  channel(): ChannelHandle | undefined {
    if (this.state.destroyed) return undefined;
    if (this.record.lobbyId !== '0') return this.lobby() ? new ChannelHandle(this.state, this.record.lobbyId, ChannelType.Lobby) : undefined;
    const other = this.record.recipientId && this.record.recipientId !== this.state.selfId ? this.record.recipientId : this.record.authorId;
    // Ephemeral DMs (provisional users, non-friends) use the other user's ID as the channel ID.
    const kind = this.record.channelId === other ? ChannelType.EphemeralDm : ChannelType.Dm;
    return new ChannelHandle(this.state, this.record.channelId, kind, other);
  }

  /** Set on messages the SDK injects to explain something (DisclosureTypes.MessageDataVisibleOnDiscord). */
  disclosureType(): number | undefined {
    return this.state.destroyed ? undefined : this.record.disclosureType;
  }

  /** What the game cannot show of a message sent from the web app (attachments, embeds ...), with a count. */
  additionalContent(): AdditionalContent | undefined {
    return this.state.destroyed ? undefined : this.record.additionalContent;
  }

  /** Ours: where the message's copy lives in the linked guild channel, if it has one. */
  linkedMessage():
    | {
        /** The ID of the copy in the guild channel (or of the original, when it was written there). */
        id: string;
        /** The linked guild channel. */
        channelId: string;
        /** The guild of that channel. */
        guildId: string;
        /** Where the message was written: in the lobby, or in the guild channel and mirrored into the lobby. */
        origin: 'lobby' | 'channel';
      }
    | undefined {
    const l = this.state.destroyed ? undefined : this.record.linked;
    return l ? { id: l.id, channelId: l.channel_id, guildId: l.guild_id, origin: l.origin } : undefined;
  }
}
