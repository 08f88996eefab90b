import { LobbyEventKind, LobbyState } from '@social-layer/core-wasm';
import {
  ClientStatus,
  DispatchEvent,
  ErrorType,
  Limits,
  SocialDispatchEvent,
  snowflakeTimestamp,
  type CreateOrJoinLobbyBody,
  type Lobby,
  type LobbyDeleteData,
  type LobbyMember,
  type LobbyMemberEventData,
  type LobbyMessage,
  type Metadata,
  type ReadyData,
  type SendLobbyMessageBody,
  type User,
} from '@social-layer/protocol';
import { ClientResultError } from '../ClientResultError.ts';
import type { ClientState } from '../ClientState.ts';
import type { EventHub } from '../EventHub.ts';
import type { ClientEvents } from '../events.ts';
import type { HttpApi } from '../HttpApi.ts';
import { LobbyHandle } from '../LobbyHandle.ts';
import { lobbySnapshot, memberSnapshot } from '../lobbySnapshot.ts';
import type { Logger } from '../Logger.ts';
import type { MessageRecord } from '../MessageCache.ts';
import { MessageHandle } from '../MessageHandle.ts';
import { checkLobbySecret, checkMessageContent, checkMetadata, checkSnowflake } from '../validation.ts';
import { DisclosureTypes, type AdditionalContentType } from './linkedChannelTypes.ts';

type LobbyEventName = 'lobbyCreated' | 'lobbyDeleted' | 'lobbyUpdated';
type MemberEventName = 'lobbyMemberAdded' | 'lobbyMemberRemoved' | 'lobbyMemberUpdated';
type PendingLobbyEvent = { event: LobbyEventName; lobbyId: string } | { event: MemberEventName; lobbyId: string; memberId: string };

const LOBBY_EVENT_NAMES: Record<number, LobbyEventName | MemberEventName> = {
  [LobbyEventKind.LobbyCreated]: 'lobbyCreated',
  [LobbyEventKind.LobbyDeleted]: 'lobbyDeleted',
  [LobbyEventKind.LobbyUpdated]: 'lobbyUpdated',
  [LobbyEventKind.MemberAdded]: 'lobbyMemberAdded',
  [LobbyEventKind.MemberRemoved]: 'lobbyMemberRemoved',
  [LobbyEventKind.MemberUpdated]: 'lobbyMemberUpdated',
};

/** What the lobby half needs from the Client around it. */
export interface LobbiesHost {
  http: HttpApi;
  state: ClientState;
  events: EventHub<ClientEvents>;
  logger: Logger;
  requireSession(operation: string): void;
  rememberUser(user: User | undefined, announce: boolean): void;
  /** Voice states ride on lobby objects; a lobby that goes away takes its call info with it. */
  voice: { onLobby(lobby: Lobby): void; onLobbyGone(lobbyId: string): void };
}

/**
 * The Client's lobby half (social-sdk-api.md 6.1-6.3 and the lobby messages of 5): create, join
 * and leave over REST, the lobby dispatches applied to core-wasm's LobbyState, whose diffs are
 * the lobby events, and lobby messages with their cache. Client.ts delegates to it.
 */
export class Lobbies {
  private lobbyStateLoading: Promise<LobbyState> | undefined;
  /** Lobby events from READY, held until statusChanged(Ready) has gone out. */
  private heldLobbyEvents: PendingLobbyEvent[] | undefined;
  /**
   * Lobbies left through leaveLobby whose LOBBY_DELETE has not arrived yet. REST and Gateway
   * are separate connections, so an update sent before the leave can arrive after its response;
   * without this it would bring the lobby back until LOBBY_DELETE removed it again.
   */
  private readonly leftLobbies = new Set<string>();
  /** Linked lobbies whose disclosure notice was injected already (once per lobby per client). */
  private readonly disclosed = new Set<string>();

  constructor(private readonly host: LobbiesHost) {}

  /** Loads core-wasm's LobbyState once, before the first connect. */
  async load(): Promise<void> {
    const state = this.host.state;
    if (state.lobbies) return;
    this.lobbyStateLoading ??= LobbyState.create();
    try {
      state.lobbies = await this.lobbyStateLoading;
    } catch (error) {
      this.lobbyStateLoading = undefined;
      throw new ClientResultError({
        type: ErrorType.ClientNotReady,
        error: `the lobby state module failed to load: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }

  // ---- API ----------------------------------------------------------------------------------

  async createOrJoin(secret: string, lobbyMetadata?: Metadata, memberMetadata?: Metadata): Promise<string> {
    const body: CreateOrJoinLobbyBody = { secret: checkLobbySecret(secret) };
    if (lobbyMetadata !== undefined) body.lobby_metadata = checkMetadata(lobbyMetadata, 'lobbyMetadata');
    if (memberMetadata !== undefined) body.member_metadata = checkMetadata(memberMetadata, 'memberMetadata');
    this.host.requireSession('createOrJoinLobby');
    const lobby = await this.host.http.request<Lobby>({ method: 'PUT', path: '/lobbies', body, auth: true });
    // The LOBBY_CREATE dispatch may come before or after this response. Take the response only
    // for a lobby not known yet: if the dispatch came first, its state is at least as new.
    this.leftLobbies.delete(lobby.id);
    const state = this.host.state.lobbies;
    if (state && !state.has(lobby.id)) this.applyLobby(lobby);
    return lobby.id;
  }

  async leaveLobby(lobbyId: string): Promise<void> {
    checkSnowflake(lobbyId, 'lobbyId');
    this.host.requireSession('leaveLobby');
    await this.host.http.request<void>({ method: 'DELETE', path: `/lobbies/${lobbyId}/members/@me`, auth: true });
    // Deleted locally now rather than when LOBBY_DELETE arrives, which then changes nothing.
    this.leftLobbies.add(lobbyId);
    this.removeLobby(lobbyId);
  }

  /** A lobby object from a REST answer (linking): applied unless the lobby was left meanwhile. */
  applyRestLobby(lobby: Lobby): void {
    if (!this.leftLobbies.has(lobby.id) && this.host.state.lobbies?.has(lobby.id)) this.applyLobby(lobby);
  }

  getLobbyHandle(lobbyId: string): LobbyHandle | undefined {
    return this.host.state.lobbyState(lobbyId) ? new LobbyHandle(this.host.state, lobbyId) : undefined;
  }

  getLobbyIds(): string[] {
    const state = this.host.state;
    if (state.destroyed || !state.lobbies) return [];
    return state.lobbies.lobbyIds();
  }

  async sendLobbyMessage(lobbyId: string, content: string, metadata?: Metadata): Promise<string> {
    checkSnowflake(lobbyId, 'lobbyId');
    const body: SendLobbyMessageBody = { content: checkMessageContent(content) };
    if (metadata !== undefined) body.metadata = checkMetadata(metadata, 'metadata');
    this.host.requireSession('sendLobbyMessage');
    const message = await this.host.http.request<LobbyMessage>({
      method: 'POST',
      path: `/lobbies/${lobbyId}/messages`,
      body,
      auth: true,
    });
    // Cached now so getMessageHandle works as soon as this resolves; messageCreated still fires
    // once, when the Gateway delivers the message to every member including the sender.
    this.host.rememberUser(message.author, true);
    this.host.state.messages.put(messageRecord(message));
    return message.id;
  }

  async getLobbyMessagesWithLimit(lobbyId: string, limit: number): Promise<MessageHandle[]> {
    checkSnowflake(lobbyId, 'lobbyId');
    const max = Limits.lobbyMessagesMaxPerRead;
    const count = !Number.isFinite(limit) || limit <= 0 ? max : Math.min(Math.floor(limit), max);
    this.host.requireSession('getLobbyMessagesWithLimit');
    const messages = await this.host.http.request<LobbyMessage[]>({
      method: 'GET',
      path: `/lobbies/${lobbyId}/messages?limit=${count}`,
      auth: true,
    });
    const sorted = [...messages].sort((a, b) => compareSnowflakes(b.id, a.id));
    return sorted.map((message) => {
      this.host.rememberUser(message.author, true);
      // Reuse the cached record so handles of one message share state; history itself is not
      // added to the cache, which holds what arrived live.
      const record = this.host.state.messages.get(message.id) ?? messageRecord(message);
      return new MessageHandle(this.host.state, record);
    });
  }

  getMessageHandle(messageId: string): MessageHandle | undefined {
    const state = this.host.state;
    if (state.destroyed) return undefined;
    const record = state.messages.get(messageId);
    return record ? new MessageHandle(state, record) : undefined;
  }

  // ---- session ------------------------------------------------------------------------------

  /** Returns true when the dispatch was a lobby one. */
  onDispatch(event: string, data: unknown): boolean {
    switch (event) {
      case DispatchEvent.LobbyCreate:
        // Joined (again): whatever was left before is over.
        this.leftLobbies.delete((data as Lobby).id);
        this.applyLobby(data as Lobby);
        return true;
      case DispatchEvent.LobbyUpdate:
        if (!this.leftLobbies.has((data as Lobby).id)) this.applyLobby(data as Lobby);
        return true;
      case DispatchEvent.LobbyDelete:
        this.leftLobbies.delete((data as LobbyDeleteData).id);
        this.removeLobby((data as LobbyDeleteData).id);
        return true;
      case DispatchEvent.LobbyMemberAdd:
      case DispatchEvent.LobbyMemberUpdate:
        if (!this.leftLobbies.has((data as LobbyMemberEventData).lobby_id)) this.applyMember(data as LobbyMemberEventData);
        return true;
      case DispatchEvent.LobbyMemberRemove:
        this.removeMember(data as LobbyMemberEventData);
        return true;
      case DispatchEvent.LobbyMessageCreate:
        this.onLobbyMessage(data as LobbyMessage);
        return true;
      case SocialDispatchEvent.LobbyMessageUpdate: {
        // Moderation metadata, or an edit made in the linked channel.
        const m = data as LobbyMessage;
        this.host.rememberUser(m.author, true);
        const cached = this.host.state.messages.get(m.id);
        if (cached) {
          const fresh = messageRecord(m);
          cached.content = fresh.content;
          cached.metadata = fresh.metadata;
          cached.moderationMetadata = fresh.moderationMetadata;
          if (fresh.editedTimestamp) cached.editedTimestamp = fresh.editedTimestamp;
          if (fresh.additionalContent) cached.additionalContent = fresh.additionalContent;
        }
        this.host.events.emit('messageUpdated', m.id);
        return true;
      }
      case LOBBY_MESSAGE_DELETE: {
        // Deleted in the linked channel (ours: lobby messages have no delete of their own).
        const d = data as { id: string; lobby_id: string };
        this.host.state.messages.delete(d.id);
        this.host.events.emit('messageDeleted', d.id, d.lobby_id);
        return true;
      }
      default:
        return false;
    }
  }

  /**
   * A fresh READY: the lobbies in it are the truth (endSync deletes the others). `accountChanged`:
   * another account on the same client, so nothing of the previous one may leak into this one.
   */
  onReady(ready: ReadyData, accountChanged: boolean): void {
    const state = this.host.state;
    const lobbies = state.lobbies;
    if (!lobbies) return;
    if (accountChanged) {
      lobbies.reset();
      state.messages.clear();
      state.additionalNames.clear();
    }
    lobbies.setSelf(ready.user.id);
    this.leftLobbies.clear();
    lobbies.beginSync();
    for (const lobby of ready.lobbies ?? []) {
      this.rememberLobbyExtras(lobby);
      lobbies.upsertLobby(lobbySnapshot(lobby, state.selfId));
    }
    lobbies.endSync();
    // Announced after statusChanged(Ready), so listeners can already use Ready-only calls.
    this.heldLobbyEvents = [...(this.heldLobbyEvents ?? []), ...this.drainLobbyEvents()];
  }

  /** Called as the Client's status changes, around the statusChanged event. */
  onStatusChanged(status: ClientStatus, phase: 'before' | 'after'): void {
    const state = this.host.state;
    if (phase === 'before' && status === ClientStatus.Disconnected) {
      // Without a session the lobby state would go stale unnoticed; READY rebuilds it.
      this.heldLobbyEvents = undefined;
      this.leftLobbies.clear();
      state.lobbies?.reset();
      state.additionalNames.clear();
    }
    if (phase === 'after' && status === ClientStatus.Ready && this.heldLobbyEvents) {
      const held = this.heldLobbyEvents;
      this.heldLobbyEvents = undefined;
      for (const pending of held) this.emitLobbyEvent(pending);
    }
  }

  // ---- internals ----------------------------------------------------------------------------

  private applyLobby(lobby: Lobby): void {
    const lobbies = this.host.state.lobbies;
    if (!lobbies) return;
    const known = lobbies.has(lobby.id);
    const linkChanged = this.rememberLobbyExtras(lobby);
    lobbies.upsertLobby(lobbySnapshot(lobby, this.host.state.selfId));
    const events = this.drainLobbyEvents();
    // core-wasm's snapshot has no linked channel: a change of link alone is announced here.
    if (known && linkChanged && !events.some((e) => e.event === 'lobbyUpdated' && e.lobbyId === lobby.id)) events.push({ event: 'lobbyUpdated', lobbyId: lobby.id });
    for (const pending of events) this.emitLobbyEvent(pending);
  }

  private removeLobby(lobbyId: string): void {
    const lobbies = this.host.state.lobbies;
    if (!lobbies || !lobbies.has(lobbyId)) return;
    lobbies.removeLobby(lobbyId);
    this.host.state.forgetLobby(lobbyId);
    this.host.voice.onLobbyGone(lobbyId);
    this.flushLobbyEvents();
  }

  private applyMember({ lobby_id: lobbyId, member }: LobbyMemberEventData): void {
    const lobbies = this.host.state.lobbies;
    if (!lobbies || !lobbies.has(lobbyId)) {
      this.host.logger.verbose(`member update for unknown lobby ${lobbyId} ignored`);
      return;
    }
    this.rememberMemberExtras(lobbyId, member);
    lobbies.upsertMember(lobbyId, memberSnapshot(member, this.host.state.selfId));
    this.flushLobbyEvents();
  }

  private removeMember({ lobby_id: lobbyId, member }: LobbyMemberEventData): void {
    const lobbies = this.host.state.lobbies;
    if (!lobbies || !lobbies.has(lobbyId)) return;
    lobbies.removeMember(lobbyId, member.id);
    this.host.state.setAdditionalName(lobbyId, member.id, null);
    this.flushLobbyEvents();
  }

  private onLobbyMessage(message: LobbyMessage): void {
    this.host.rememberUser(message.author, true);
    const record = this.host.state.messages.put(messageRecord(message));
    if (record.announced) return;
    if (message.linked_message?.origin === 'lobby') this.disclose(message);
    record.announced = true;
    this.host.events.emit('messageCreated', message.id);
  }

  /** Returns whether the lobby's linked channel changed. */
  private rememberLobbyExtras(lobby: Lobby): boolean {
    this.host.voice.onLobby(lobby);
    for (const member of lobby.members ?? []) this.rememberMemberExtras(lobby.id, member);
    const links = this.host.state.linkedChannels;
    const before = links.get(lobby.id);
    const wire = lobby.linked_channel;
    if (wire) links.set(lobby.id, { id: wire.id, name: wire.name, guildId: wire.guild_id });
    else links.delete(lobby.id);
    return before?.id !== wire?.id || before?.name !== wire?.name;
  }

  /**
   * The first in-game message of a linked lobby that is visible outside the game gets a notice
   * before it (social-sdk-api.md 5.2, DisclosureTypes): an English text the game may restyle,
   * translate (check disclosureType()) or hide. Its ID is the message's minus one, so it sorts
   * just before it; it is never sent anywhere.
   */
  private disclose(message: LobbyMessage): void {
    const lobbyId = message.lobby_id;
    if (this.disclosed.has(lobbyId)) return;
    this.disclosed.add(lobbyId);
    const channel = this.host.state.linkedChannels.get(lobbyId);
    const id = (BigInt(message.id) - 1n).toString();
    this.host.state.messages.put({
      id,
      channelId: lobbyId,
      lobbyId,
      authorId: '0',
      applicationId: message.application_id ?? '0',
      content: `Messages in this lobby are also visible outside the game, in #${channel?.name ?? message.linked_message?.channel_id ?? 'the linked channel'} on its server.`,
      metadata: {},
      moderationMetadata: {},
      sentTimestamp: snowflakeTimestamp(message.id),
      additionalName: null,
      disclosureType: DisclosureTypes.MessageDataVisibleOnDiscord,
      announced: true,
    });
    this.host.events.emit('messageCreated', id);
  }

  private rememberMemberExtras(lobbyId: string, member: LobbyMember): void {
    if (member.user) this.host.rememberUser(member.user, true);
    this.host.state.setAdditionalName(lobbyId, member.id, member.additional_name);
  }

  private drainLobbyEvents(): PendingLobbyEvent[] {
    const out: PendingLobbyEvent[] = [];
    for (const { kind, lobbyId, memberId } of this.host.state.lobbies?.drainEvents() ?? []) {
      const event = LOBBY_EVENT_NAMES[kind];
      if (!event) continue;
      if (event === 'lobbyCreated' || event === 'lobbyDeleted' || event === 'lobbyUpdated') out.push({ event, lobbyId });
      else out.push({ event, lobbyId, memberId });
    }
    return out;
  }

  private flushLobbyEvents(): void {
    for (const pending of this.drainLobbyEvents()) this.emitLobbyEvent(pending);
  }

  private emitLobbyEvent(pending: PendingLobbyEvent): void {
    if ('memberId' in pending) this.host.events.emit(pending.event, pending.lobbyId, pending.memberId);
    else this.host.events.emit(pending.event, pending.lobbyId);
  }
}

/** Ours: a lobby message deleted in the linked channel. */
const LOBBY_MESSAGE_DELETE = 'LOBBY_MESSAGE_DELETE';

/** A lobby message as the cache and MessageHandle hold it. */
export function messageRecord(message: LobbyMessage): MessageRecord {
  const parsed = Date.parse(message.timestamp);
  const edited = message.edited_timestamp ? Date.parse(message.edited_timestamp) : 0;
  const extra = message.additional_content;
  return {
    ...(message.linked_message ? { linked: message.linked_message } : {}),
    ...(extra ? { additionalContent: { type: extra.type as AdditionalContentType, title: extra.title, count: extra.count } } : {}),
    ...(Number.isFinite(edited) && edited > 0 ? { editedTimestamp: edited } : {}),
    id: message.id,
    channelId: message.channel_id ?? message.lobby_id,
    lobbyId: message.lobby_id ?? '0',
    authorId: message.author?.id ?? '0',
    applicationId: message.application_id ?? '0',
    content: message.content ?? '',
    metadata: { ...(message.metadata ?? {}) },
    moderationMetadata: { ...(message.moderation_metadata ?? {}) },
    sentTimestamp: Number.isFinite(parsed) ? parsed : snowflakeTimestamp(message.id),
    additionalName: message.lobby_member?.additional_name ?? null,
    announced: false,
  };
}

function compareSnowflakes(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
