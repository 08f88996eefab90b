import {
  SocialDispatchEvent,
  SocialLimits,
  snowflakeTimestamp,
  type DirectMessageWire,
  type LobbyMessage,
  type MessageDeleteData,
  type Metadata,
  type UserMessageSummaryWire,
} from '@social-layer/protocol';
import { MessageHandle } from '../MessageHandle.ts';
import type { MessageRecord } from '../MessageCache.ts';
import { UserMessageSummary } from '../UserMessageSummary.ts';
import { checkMessageContent, checkMetadata, checkSnowflake } from '../validation.ts';
import type { SocialContext } from './SocialContext.ts';

/**
 * Direct messages (social-sdk-api.md 5): send, edit, delete, summaries, and history served from
 * the local conversation cache when it holds enough. Every live message fires messageCreated
 * once, edits (and moderation metadata set by the game backend, for lobby messages too) fire
 * messageUpdated, deletes messageDeleted.
 */
export class DirectMessages {
  /** Deletes already announced: the sender's REST answer and the dispatch must not fire twice. */
  private readonly deleted = new Set<string>();

  constructor(private readonly ctx: SocialContext) {}

  sendUserMessage(recipientId: string, content: string): Promise<string> {
    return this.send(recipientId, content, undefined);
  }

  sendUserMessageWithMetadata(recipientId: string, content: string, metadata: Metadata): Promise<string> {
    return this.send(recipientId, content, metadata);
  }

  async editUserMessage(recipientId: string, messageId: string, content: string): Promise<void> {
    checkSnowflake(recipientId, 'recipientId');
    checkSnowflake(messageId, 'messageId');
    checkMessageContent(content);
    this.ctx.requireSession('editUserMessage');
    const message = await this.ctx.http.request<DirectMessageWire>({
      method: 'PATCH',
      path: `/users/${recipientId}/messages/${messageId}`,
      body: { content },
      auth: true,
    });
    this.store(message);
  }

  async deleteUserMessage(recipientId: string, messageId: string): Promise<void> {
    checkSnowflake(recipientId, 'recipientId');
    checkSnowflake(messageId, 'messageId');
    this.ctx.requireSession('deleteUserMessage');
    await this.ctx.http.request<void>({ method: 'DELETE', path: `/users/${recipientId}/messages/${messageId}`, auth: true });
    this.forget(messageId, recipientId);
  }

  async getUserMessageSummaries(): Promise<UserMessageSummary[]> {
    this.ctx.requireSession('getUserMessageSummaries');
    const list = await this.ctx.http.request<UserMessageSummaryWire[]>({ method: 'GET', path: '/users/@me/message-summaries', auth: true });
    return list.map((s) => new UserMessageSummary(s.user_id, s.last_message_id));
  }

  /**
   * Newest first, at most 200 and 72 hours; `limit <= 0` means the maximum. Served from the
   * local cache when it holds at least `limit` messages of the conversation (or all of them),
   * otherwise over HTTP, whose answer then seeds the cache.
   */
  async getUserMessagesWithLimit(recipientId: string, limit: number): Promise<MessageHandle[]> {
    checkSnowflake(recipientId, 'recipientId');
    const max = SocialLimits.directMessagesMaxPerRead;
    const count = !Number.isFinite(limit) || limit <= 0 ? max : Math.min(Math.floor(limit), max);
    this.ctx.requireSession('getUserMessagesWithLimit');
    const conversations = this.ctx.state.social.conversations;
    const cached = conversations.read(recipientId, count);
    if (cached) {
      this.ctx.logger.verbose(`getUserMessagesWithLimit: ${cached.length} from the local cache`);
      return cached.map((r) => new MessageHandle(this.ctx.state, r));
    }
    const messages = await this.ctx.http.request<DirectMessageWire[]>({
      method: 'GET',
      path: `/users/${recipientId}/messages?limit=${count}`,
      auth: true,
    });
    const records = messages.map((m) => {
      this.ctx.rememberUser(m.author, true);
      return this.ctx.state.messages.get(m.id) ?? record(m);
    });
    conversations.seed(recipientId, records, count);
    return records.map((r) => new MessageHandle(this.ctx.state, r));
  }

  onDispatch(event: string, data: unknown): boolean {
    switch (event) {
      case SocialDispatchEvent.MessageCreate: {
        const r = this.store(data as DirectMessageWire);
        if (!r.announced) {
          r.announced = true;
          this.ctx.emit('messageCreated', r.id);
        }
        return true;
      }
      case SocialDispatchEvent.MessageUpdate:
        this.store(data as DirectMessageWire);
        this.ctx.emit('messageUpdated', (data as DirectMessageWire).id);
        return true;
      case SocialDispatchEvent.MessageDelete: {
        const d = data as MessageDeleteData;
        this.forget(d.id, d.author_id === this.ctx.state.selfId ? d.recipient_id : d.author_id, d.channel_id);
        return true;
      }
      case SocialDispatchEvent.LobbyMessageUpdate: {
        const m = data as LobbyMessage;
        const cached = this.ctx.state.messages.get(m.id);
        if (cached) {
          cached.content = m.content;
          cached.metadata = { ...(m.metadata ?? {}) };
          cached.moderationMetadata = { ...(m.moderation_metadata ?? {}) };
        }
        this.ctx.emit('messageUpdated', m.id);
        return true;
      }
      default:
        return false;
    }
  }

  private async send(recipientId: string, content: string, metadata: Metadata | undefined): Promise<string> {
    checkSnowflake(recipientId, 'recipientId');
    const body: { content: string; metadata?: Metadata } = { content: checkMessageContent(content) };
    if (metadata !== undefined) body.metadata = checkMetadata(metadata, 'metadata');
    this.ctx.requireSession('sendUserMessage');
    const message = await this.ctx.http.request<DirectMessageWire>({ method: 'POST', path: `/users/${recipientId}/messages`, body, auth: true });
    // Cached now so getMessageHandle works as soon as this resolves; messageCreated fires when
    // the Gateway delivers the message (to the sender's sessions too), exactly once.
    this.store(message);
    return message.id;
  }

  /** Stores (or refreshes) a DM in the message cache and its conversation. */
  private store(m: DirectMessageWire): MessageRecord {
    this.ctx.rememberUser(m.author, true);
    const r = this.ctx.state.messages.put(record(m));
    const other = m.author.id === this.ctx.state.selfId ? m.recipient_id : m.author.id;
    this.ctx.state.social.conversations.append(other, r);
    return r;
  }

  private forget(messageId: string, otherId: string, channelId?: string): void {
    const cached = this.ctx.state.messages.get(messageId);
    this.ctx.state.messages.delete(messageId);
    this.ctx.state.social.conversations.remove(otherId, messageId);
    if (this.deleted.has(messageId)) return;
    this.deleted.add(messageId);
    this.ctx.emit('messageDeleted', messageId, channelId ?? cached?.channelId ?? '0');
  }
}

function record(m: DirectMessageWire): MessageRecord {
  const sent = Date.parse(m.timestamp);
  const edited = m.edited_timestamp ? Date.parse(m.edited_timestamp) : 0;
  return {
    id: m.id,
    channelId: m.channel_id,
    lobbyId: '0',
    authorId: m.author?.id ?? '0',
    recipientId: m.recipient_id,
    applicationId: m.application_id ?? '0',
    content: m.content ?? '',
    metadata: { ...(m.metadata ?? {}) },
    moderationMetadata: { ...(m.moderation_metadata ?? {}) },
    sentTimestamp: Number.isFinite(sent) ? sent : snowflakeTimestamp(m.id),
    editedTimestamp: Number.isFinite(edited) ? edited : 0,
    additionalName: null,
    announced: false,
  };
}
