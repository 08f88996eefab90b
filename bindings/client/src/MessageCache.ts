import type { LinkedMessageRef, Metadata } from '@social-layer/protocol';
import type { AdditionalContent } from './lobbies/linkedChannelTypes.ts';

/** What the client keeps of one message; MessageHandle reads it. */
export interface MessageRecord {
  readonly id: string;
  readonly channelId: string;
  /** '0' when the message is not a lobby message. */
  readonly lobbyId: string;
  readonly authorId: string;
  readonly applicationId: string;
  content: string;
  metadata: Metadata;
  moderationMetadata: Metadata;
  /** ms since the epoch. */
  sentTimestamp: number;
  /** The author's lobby additional name at send time, if any. */
  additionalName: string | null;
  /** DMs: the other participant as the author sees it; absent for lobby messages. */
  readonly recipientId?: string;
  /** ms since the epoch of the last edit; 0 or absent when never edited. */
  editedTimestamp?: number;
  /** Lobby messages of a linked lobby: the copy in the guild channel and the side it was written on. */
  linked?: LinkedMessageRef;
  /** What the game cannot show of a message sent from the web app (attachments, embeds ...). */
  additionalContent?: AdditionalContent;
  /** Set on messages the SDK injects itself (DisclosureTypes). */
  readonly disclosureType?: number;
  /** Set once `messageCreated` has fired for it, so it never fires twice. */
  announced: boolean;
}

/**
 * The spec's message cache: the 25 most recent messages per channel, for `getMessageHandle`.
 * Eviction only forgets the ID lookup; handles hold their record, so they keep working.
 */
export class MessageCache {
  static readonly perChannel = 25;
  private readonly byId = new Map<string, MessageRecord>();
  private readonly byChannel = new Map<string, string[]>();

  get(id: string): MessageRecord | undefined {
    return this.byId.get(id);
  }

  /** Adds `record`, or refreshes the cached one with the same ID and returns that instead. */
  put(record: MessageRecord): MessageRecord {
    const existing = this.byId.get(record.id);
    if (existing) {
      existing.content = record.content;
      existing.metadata = record.metadata;
      existing.moderationMetadata = record.moderationMetadata;
      existing.editedTimestamp = record.editedTimestamp;
      if (record.linked) existing.linked = record.linked;
      if (record.additionalContent) existing.additionalContent = record.additionalContent;
      return existing;
    }
    this.byId.set(record.id, record);
    const ids = this.byChannel.get(record.channelId) ?? [];
    ids.push(record.id);
    if (ids.length > MessageCache.perChannel) {
      for (const evicted of ids.splice(0, ids.length - MessageCache.perChannel)) this.byId.delete(evicted);
    }
    this.byChannel.set(record.channelId, ids);
    return record;
  }

  /** The newest cached message of a channel (getChannelHandle tells DMs apart by it). */
  newestIn(channelId: string): MessageRecord | undefined {
    const ids = this.byChannel.get(channelId);
    const id = ids?.[ids.length - 1];
    return id === undefined ? undefined : this.byId.get(id);
  }

  /** Forgets a deleted message (handles already taken keep their record). */
  delete(id: string): void {
    const record = this.byId.get(id);
    if (!record) return;
    this.byId.delete(id);
    const ids = this.byChannel.get(record.channelId);
    if (ids) this.byChannel.set(record.channelId, ids.filter((x) => x !== id));
  }

  clear(): void {
    this.byId.clear();
    this.byChannel.clear();
  }
}
