import {
  ChannelType,
  SocialDispatchEvent,
  SocialLimits,
  type DirectMessageWire,
  type LobbyMessage,
  type Metadata,
  type UserMessageSummaryWire,
} from '@social-layer/protocol';
import type { EventBus } from '../events/EventBus.ts';
import { Errors } from '../errors/ApiError.ts';
import { messageToWire } from '../lobbies/LobbyService.ts';
import { decodeMetadata, encodeMetadata } from '../storage/LobbyRepo.ts';
import type { DirectMessagesTable, UsersTable } from '../storage/schema.ts';
import type { Store } from '../storage/Store.ts';
import { userToWire } from '../storage/UserRepo.ts';
import { publish } from './dispatch.ts';
import { canMessage } from './messagingPolicy.ts';
import { SocialErrors } from './socialErrors.ts';

/**
 * Direct messages between two users (SendUserMessage, edits, deletes, history, summaries) and the
 * moderation metadata a game backend attaches to DMs and lobby messages. Sends, edits and deletes
 * also record GAME_DIRECT_MESSAGE_CREATE/_UPDATE/_DELETE in the webhook outbox, in the same
 * transaction, for the sending application's server-side moderation. Game DMs belong to an
 * application family: they are sent from one application, delivered to both users' sessions in
 * it and its siblings, and read back only from there (MessageHandle.applicationId tells which
 * sibling sent one).
 */
export class DirectMessageService {
  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
  ) {}

  async send(applicationId: string, authorId: string, recipientId: string, input: { content: string; metadata?: Metadata }): Promise<DirectMessageWire> {
    const recipient = await this.store.users.get(recipientId);
    if (!recipient) throw Errors.unknownUser();
    const family = await this.store.socialSettings.family(applicationId);
    if (!(await canMessage(this.store, applicationId, family, authorId, recipientId))) throw SocialErrors.cannotMessageUser();
    const author = (await this.store.users.get(authorId))!;
    const message = await this.store.directMessages.transaction(async (tx) => {
      const channel = await this.store.directMessages.openChannel(tx, authorId, recipientId);
      const row = await this.store.directMessages.insert(tx, {
        channelId: channel.id,
        applicationId,
        authorId,
        recipientId,
        content: input.content,
        metadata: input.metadata ?? null,
      });
      const wire = dmToWire(row, author);
      // The moderation webhook goes to the outbox with the message, or not at all.
      await this.store.webhookEvents.record(tx, applicationId, 'GAME_DIRECT_MESSAGE_CREATE', webhookData(wire));
      return wire;
    });
    await this.deliver(family, { author_id: authorId, recipient_id: recipientId }, SocialDispatchEvent.MessageCreate, message);
    return message;
  }

  /** EditUserMessage: only the author may edit (50005 for anyone else). */
  async edit(applicationId: string, userId: string, otherId: string, messageId: string, content: string): Promise<DirectMessageWire> {
    const { row, family } = await this.find(applicationId, userId, otherId, messageId);
    if (row.author_id !== userId) throw SocialErrors.cannotEditOthersMessage();
    const at = Date.now();
    const message = dmToWire({ ...row, content, edited_at: at }, (await this.store.users.get(userId))!);
    await this.store.directMessages.transaction(async (tx) => {
      await this.store.directMessages.edit(tx, messageId, content, at);
      await this.store.webhookEvents.record(tx, row.application_id, 'GAME_DIRECT_MESSAGE_UPDATE', webhookData(message));
    });
    await this.deliver(family, row, SocialDispatchEvent.MessageUpdate, message);
    return message;
  }

  /** DeleteUserMessage: only the author may delete (50003 for anyone else). */
  async delete(applicationId: string, userId: string, otherId: string, messageId: string): Promise<void> {
    const { row, family } = await this.find(applicationId, userId, otherId, messageId);
    if (row.author_id !== userId) throw SocialErrors.cannotDeleteOthersMessage();
    const deleted = { id: row.id, channel_id: row.channel_id, author_id: row.author_id, recipient_id: row.recipient_id };
    await this.store.directMessages.transaction(async (tx) => {
      await this.store.directMessages.delete(tx, messageId);
      await this.store.webhookEvents.record(tx, row.application_id, 'GAME_DIRECT_MESSAGE_DELETE', deleted);
    });
    await this.deliver(family, row, SocialDispatchEvent.MessageDelete, deleted);
  }

  /** GetUserMessagesWithLimit over HTTP: newest first, at most 200 and 72 hours. */
  async history(applicationId: string, userId: string, otherId: string, limit: number): Promise<DirectMessageWire[]> {
    if (!(await this.store.users.get(otherId))) throw Errors.unknownUser();
    const channel = await this.store.directMessages.channelBetween(userId, otherId);
    if (!channel) return [];
    const family = await this.store.socialSettings.family(applicationId);
    const rows = await this.store.directMessages.history(channel.id, family, limit, Date.now() - SocialLimits.directHistoryMaxAgeMs);
    const authors = await this.store.users.getMany(rows.map((r) => r.author_id));
    return rows.map((r) => dmToWire(r, authors.get(r.author_id)!));
  }

  /** GetUserMessageSummaries: each conversation's other user and its newest message. */
  async summaries(applicationId: string, userId: string): Promise<UserMessageSummaryWire[]> {
    const family = await this.store.socialSettings.family(applicationId);
    const rows = await this.store.directMessages.summaries(userId, family);
    return rows.map((r) => ({ user_id: r.userId, last_message_id: r.lastMessageId }));
  }

  /** The game-DM moderation-metadata endpoint (Bot): messages sent from the bot's application only. */
  async setModerationMetadata(botApplicationId: string, channelId: string, messageId: string, metadata: Metadata): Promise<void> {
    const row = await this.store.directMessages.get(messageId);
    if (!row || row.channel_id !== channelId || row.application_id !== botApplicationId) throw SocialErrors.unknownMessage();
    await this.writeModerationMetadata(row, metadata);
  }

  /**
   * The same, with the conversation named by its two users in either order (the document's
   * `/partner-sdk/dms/{user_id_1}/{user_id_2}/messages/{message_id}/moderation-metadata`).
   */
  async setModerationMetadataBetween(botApplicationId: string, userId1: string, userId2: string, messageId: string, metadata: Metadata): Promise<void> {
    const row = await this.store.directMessages.get(messageId);
    const pair = row ? [row.author_id, row.recipient_id].sort().join(' ') : '';
    if (!row || pair !== [userId1, userId2].sort().join(' ') || row.application_id !== botApplicationId) throw SocialErrors.unknownMessage();
    await this.writeModerationMetadata(row, metadata);
  }

  private async writeModerationMetadata(row: DirectMessagesTable, metadata: Metadata): Promise<void> {
    const messageId = row.id;
    const value = Object.keys(metadata).length > 0 ? metadata : null;
    const updated = { ...row, moderation_metadata: encodeMetadata(value) };
    const wire = dmToWire(updated, (await this.store.users.get(row.author_id))!);
    await this.store.directMessages.transaction(async (tx) => {
      await this.store.directMessages.setModerationMetadata(tx, messageId, value);
      // The game backend hears its own moderation verdicts too (other backends of the family may act on them).
      await this.store.webhookEvents.record(tx, row.application_id, 'GAME_DIRECT_MESSAGE_UPDATE', webhookData(wire));
    });
    const family = await this.store.socialSettings.family(row.application_id);
    await this.deliver(family, updated, SocialDispatchEvent.MessageUpdate, wire);
  }

  /** The lobby-message moderation-metadata endpoint (Bot): members get LOBBY_MESSAGE_UPDATE. */
  async setLobbyModerationMetadata(botApplicationId: string, lobbyId: string, messageId: string, metadata: Metadata): Promise<void> {
    const lobby = await this.store.lobbies.get(lobbyId);
    if (!lobby || lobby.application_id !== botApplicationId) throw Errors.unknownLobby();
    const db = this.store.database.db;
    const row = await db.selectFrom('lobby_messages').selectAll().where('id', '=', messageId).where('lobby_id', '=', lobbyId).executeTakeFirst();
    if (!row) throw SocialErrors.unknownMessage();
    const value = encodeMetadata(Object.keys(metadata).length > 0 ? metadata : null);
    const author = await this.store.users.get(row.author_id);
    const message: LobbyMessage | null = author ? messageToWire({ ...row, moderation_metadata: value }, author) : null;
    await db.transaction().execute(async (tx) => {
      await tx.updateTable('lobby_messages').set({ moderation_metadata: value }).where('id', '=', messageId).execute();
      if (message) await this.store.webhookEvents.record(tx, lobby.application_id, 'LOBBY_MESSAGE_UPDATE', { ...message, edited_timestamp: new Date().toISOString() });
    });
    if (!message) return;
    const members = await this.store.lobbies.memberIds(lobbyId);
    publish(this.bus, lobby.application_id, members, SocialDispatchEvent.LobbyMessageUpdate, message);
  }

  private async find(applicationId: string, userId: string, otherId: string, messageId: string): Promise<{ row: DirectMessagesTable; family: string[] }> {
    if (!(await this.store.users.get(otherId))) throw Errors.unknownUser();
    const row = await this.store.directMessages.get(messageId);
    const family = await this.store.socialSettings.family(applicationId);
    const inConversation = row !== undefined && ((row.author_id === userId && row.recipient_id === otherId) || (row.author_id === otherId && row.recipient_id === userId));
    if (!row || !inConversation || !family.includes(row.application_id)) throw SocialErrors.unknownMessage();
    return { row, family };
  }

  /** Both users' sessions, in every application of the family each of them plays. */
  private async deliver(family: readonly string[], row: Pick<DirectMessagesTable, 'author_id' | 'recipient_id'>, t: string, d: unknown): Promise<void> {
    const json = JSON.stringify(d);
    for (const userId of new Set([row.author_id, row.recipient_id])) {
      for (const appId of await this.store.socialSettings.applicationsOf(userId)) {
        if (family.includes(appId)) publish(this.bus, appId, [userId], t, json);
      }
    }
  }
}

/**
 * GAME_DIRECT_MESSAGE_* webhook data (protocols.md 7): the message object with its `channel`
 * (the payload's exact fields are not public; this is the message plus its DM channel).
 */
function webhookData(message: DirectMessageWire): unknown {
  return { ...message, channel: { id: message.channel_id, type: ChannelType.Dm, recipient_ids: [message.author.id, message.recipient_id] } };
}

export function dmToWire(row: DirectMessagesTable, author: UsersTable): DirectMessageWire {
  const out: DirectMessageWire = {
    id: row.id,
    type: 0,
    channel_id: row.channel_id,
    channel_type: ChannelType.Dm,
    author: userToWire(author),
    recipient_id: row.recipient_id,
    content: row.content,
    timestamp: new Date(Number(row.created_at)).toISOString(),
    edited_timestamp: row.edited_at === null ? null : new Date(Number(row.edited_at)).toISOString(),
    application_id: row.application_id,
    flags: row.flags,
  };
  const metadata = decodeMetadata(row.metadata);
  if (metadata) out.metadata = metadata;
  const moderation = decodeMetadata(row.moderation_metadata);
  if (moderation) out.moderation_metadata = moderation;
  return out;
}
