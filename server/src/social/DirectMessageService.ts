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
import { Errors } from '../http/ApiError.ts';
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
 * moderation metadata a game backend attaches to DMs and lobby messages. Game DMs belong to an
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
    const row = await this.store.directMessages.transaction(async (tx) => {
      const channel = await this.store.directMessages.openChannel(tx, authorId, recipientId);
      return this.store.directMessages.insert(tx, {
        channelId: channel.id,
        applicationId,
        authorId,
        recipientId,
        content: input.content,
        metadata: input.metadata ?? null,
      });
    });
    const message = dmToWire(row, (await this.store.users.get(authorId))!);
    await this.deliver(family, row, SocialDispatchEvent.MessageCreate, message);
    return message;
  }

  /** EditUserMessage: only the author may edit (50005 for anyone else). */
  async edit(applicationId: string, userId: string, otherId: string, messageId: string, content: string): Promise<DirectMessageWire> {
    const { row, family } = await this.find(applicationId, userId, otherId, messageId);
    if (row.author_id !== userId) throw SocialErrors.cannotEditOthersMessage();
    const at = Date.now();
    await this.store.directMessages.edit(this.store.database.db, messageId, content, at);
    const updated = { ...row, content, edited_at: at };
    const message = dmToWire(updated, (await this.store.users.get(userId))!);
    await this.deliver(family, updated, SocialDispatchEvent.MessageUpdate, message);
    return message;
  }

  /** DeleteUserMessage: only the author may delete (50003 for anyone else). */
  async delete(applicationId: string, userId: string, otherId: string, messageId: string): Promise<void> {
    const { row, family } = await this.find(applicationId, userId, otherId, messageId);
    if (row.author_id !== userId) throw SocialErrors.cannotDeleteOthersMessage();
    await this.store.directMessages.delete(this.store.database.db, messageId);
    await this.deliver(family, row, SocialDispatchEvent.MessageDelete, {
      id: row.id,
      channel_id: row.channel_id,
      author_id: row.author_id,
      recipient_id: row.recipient_id,
    });
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
    const value = Object.keys(metadata).length > 0 ? metadata : null;
    await this.store.directMessages.setModerationMetadata(this.store.database.db, messageId, value);
    const updated = { ...row, moderation_metadata: encodeMetadata(value) };
    const family = await this.store.socialSettings.family(row.application_id);
    await this.deliver(family, updated, SocialDispatchEvent.MessageUpdate, dmToWire(updated, (await this.store.users.get(row.author_id))!));
  }

  /** The lobby-message moderation-metadata endpoint (Bot): members get LOBBY_MESSAGE_UPDATE. */
  async setLobbyModerationMetadata(botApplicationId: string, lobbyId: string, messageId: string, metadata: Metadata): Promise<void> {
    const lobby = await this.store.lobbies.get(lobbyId);
    if (!lobby || lobby.application_id !== botApplicationId) throw Errors.unknownLobby();
    const db = this.store.database.db;
    const row = await db.selectFrom('lobby_messages').selectAll().where('id', '=', messageId).where('lobby_id', '=', lobbyId).executeTakeFirst();
    if (!row) throw SocialErrors.unknownMessage();
    const value = encodeMetadata(Object.keys(metadata).length > 0 ? metadata : null);
    await db.updateTable('lobby_messages').set({ moderation_metadata: value }).where('id', '=', messageId).execute();
    const author = await this.store.users.get(row.author_id);
    if (!author) return;
    const message: LobbyMessage = messageToWire({ ...row, moderation_metadata: value }, author);
    const members = (await this.store.lobbies.members(lobbyId)).map((m) => m.user_id);
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
  private async deliver(family: readonly string[], row: DirectMessagesTable, t: string, d: unknown): Promise<void> {
    const json = JSON.stringify(d);
    for (const userId of new Set([row.author_id, row.recipient_id])) {
      for (const appId of await this.store.socialSettings.applicationsOf(userId)) {
        if (family.includes(appId)) publish(this.bus, appId, [userId], t, json);
      }
    }
  }
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
