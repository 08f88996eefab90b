import {
  DispatchEvent,
  Limits,
  type Lobby,
  type LobbyMember,
  type LobbyMessage,
  type Metadata,
  type User,
  type VoiceState,
} from '@social-layer/protocol';
import { Errors } from '../errors/ApiError.ts';
import type { ConnectionTracker } from '../events/ConnectionTracker.ts';
import type { EventBus } from '../events/EventBus.ts';
import type { Logger } from '../log/Logger.ts';
import { decodeMetadata, encodeMetadata } from '../storage/LobbyRepo.ts';
import type { LobbiesTable, LobbyMembersTable, LobbyMessagesTable, UsersTable } from '../storage/schema.ts';
import type { Store } from '../storage/Store.ts';
import { userToWire } from '../storage/UserRepo.ts';
import type { Transaction } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { linkedChannelRepo } from '../storage/LinkedChannelRepo.ts';
import { decorateLobbyMessages } from './linkedMessages.ts';
import { publish } from '../social/dispatch.ts';

/** Told when a user stops being a member of a lobby (left, removed, or the lobby is gone; userId null = everyone). */
export type MemberGoneListener = (lobbyId: string, userId: string | null) => void;

/**
 * Linked channels (issue 12) mirror lobby messages through this: `prepare` runs before the lobby
 * message's transaction (checks that read or write outside it), `write` inside it (the channel
 * copy commits with the lobby message) and may return work to run after the commit.
 */
export interface LobbyMessageHook {
  prepare(lobby: LobbiesTable, authorId: string, content: string): Promise<unknown>;
  write(tx: Transaction<Database>, m: { lobby: LobbiesTable; row: LobbyMessagesTable; wire: LobbyMessage }, prepared: unknown): Promise<(() => Promise<void>) | undefined>;
}

export interface MemberChange {
  metadata?: Metadata | null;
  flags?: number;
  additionalName?: string | null;
}

/**
 * Lobby rules: create-or-join by secret, membership, messages and history, and the Gateway
 * dispatches each change causes. Every write happens in one transaction before any dispatch is
 * published, so a refused or failed request changes nothing and tells no one.
 */
export class LobbyService {
  private readonly memberGoneListeners = new Set<MemberGoneListener>();
  /** Presence updates still running: shutdown waits for them before closing the database. */
  private readonly pending = new Set<Promise<void>>();

  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
  /** Voice states of a lobby's active call, for lobby objects (set when voice is wired). */
  voiceStates: (lobbyId: string) => VoiceState[] = () => [];

  private readonly messageHooks = new Set<LobbyMessageHook>();

  /** Linked channels (issue 12) mirror lobby messages from here. */
  onMessage(hook: LobbyMessageHook): () => void {
    this.messageHooks.add(hook);
    return () => this.messageHooks.delete(hook);
  }

  onMemberGone(listener: MemberGoneListener): () => void {
    this.memberGoneListeners.add(listener);
    return () => this.memberGoneListeners.delete(listener);
  }

  private memberGone(lobbyId: string, userId: string | null): void {
    for (const l of this.memberGoneListeners) l(lobbyId, userId);
  }

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly connections: ConnectionTracker,
    private readonly log: Logger,
  ) {
    connections.onChange((appId, userId) => {
      const task = this.onConnectionChange(appId, userId).catch((err) => this.log.error({ err }, 'presence update failed'));
      this.pending.add(task);
      void task.finally(() => this.pending.delete(task));
    });
  }

  async createOrJoin(
    applicationId: string,
    userId: string,
    input: { secret: string; lobbyMetadata?: Metadata | null; memberMetadata?: Metadata | null; idleTimeoutSeconds?: number },
  ): Promise<{ lobby: Lobby; json: string }> {
    const result = await this.store.lobbies.transaction(async (tx) => {
      let lobby = await this.store.lobbies.findBySecret(applicationId, input.secret, tx);
      let created = false;
      // The joiner's row, read once (null: known absent) and handed to upsertMember.
      let before: LobbyMembersTable | null = null;
      if (!lobby) {
        if ((await this.store.lobbies.countForUser(userId, applicationId, tx)) >= Limits.lobbiesPerUserPerApp) throw Errors.tooManyLobbies();
        lobby = await this.store.lobbies.create(tx, {
          applicationId,
          secret: input.secret,
          metadata: input.lobbyMetadata ?? null,
          idleTimeoutSeconds: input.idleTimeoutSeconds ?? Limits.idleTimeoutDefaultSeconds,
        });
        created = true;
      } else {
        before = (await this.store.lobbies.member(lobby.id, userId, tx)) ?? null;
        if (!before) {
          if ((await this.store.lobbies.countForUser(userId, applicationId, tx)) >= Limits.lobbiesPerUserPerApp) throw Errors.tooManyLobbies();
          if ((await this.store.lobbies.memberCount(lobby.id, tx)) >= Limits.lobbyMembersMax) throw Errors.lobbyFull();
        }
      }
      // Later calls overwrite lobby metadata when given (protocols.md 2.6); omitted keeps it.
      const metadataChanged = !created && input.lobbyMetadata !== undefined && lobby.metadata !== (input.lobbyMetadata === null ? null : JSON.stringify(input.lobbyMetadata));
      if (metadataChanged || (!created && input.idleTimeoutSeconds !== undefined)) {
        await this.store.lobbies.update(tx, lobby.id, { metadata: input.lobbyMetadata, idleTimeoutSeconds: input.idleTimeoutSeconds });
      }
      const member = await this.store.lobbies.upsertMember(tx, lobby.id, userId, input.memberMetadata !== undefined ? { metadata: input.memberMetadata } : {}, before);
      const memberChanged = !member.added && before !== null && before.metadata !== member.row.metadata;
      return { lobbyId: lobby.id, created, metadataChanged, memberAdded: member.added, memberChanged, idle: lobby.idle_since !== null };
    });

    const view = await this.view(result.lobbyId);
    // The joiner's LOBBY_CREATE and the HTTP answer are the same lobby: serialized once (in a
    // lobby of 100 the string is about 30 KB, and JSON.stringify was a sixth of a rejoin's CPU).
    const json = JSON.stringify(view.lobby);
    if (result.memberAdded) {
      this.publishTo([userId], applicationId, DispatchEvent.LobbyCreate, json);
      const others = view.memberIds.filter((id) => id !== userId);
      this.publishTo(others, applicationId, DispatchEvent.LobbyMemberAdd, { lobby_id: result.lobbyId, member: view.member(userId) });
      if (result.metadataChanged) this.publishTo(others, applicationId, DispatchEvent.LobbyUpdate, view.lobby);
    } else {
      if (result.metadataChanged) this.publishTo(view.memberIds, applicationId, DispatchEvent.LobbyUpdate, view.lobby);
      if (result.memberChanged) this.publishTo(view.memberIds, applicationId, DispatchEvent.LobbyMemberUpdate, { lobby_id: result.lobbyId, member: view.member(userId) });
    }
    // The idle clock is written only when it runs: most joins are to a lobby someone is in.
    if (result.idle && this.connections.isConnected(applicationId, userId)) await this.store.lobbies.setIdleSince(result.lobbyId, null);
    return { lobby: view.lobby, json };
  }

  /** A lobby made by the game backend (Bot token): no secret, so SDK clients cannot join or leave it. */
  async createServerLobby(
    applicationId: string,
    input: { metadata: Metadata | null; idleTimeoutSeconds?: number; members: { userId: string; remove: boolean; change: MemberChange }[] },
  ): Promise<Lobby> {
    const users = await this.store.users.getMany(input.members.map((m) => m.userId));
    if (input.members.some((m) => !users.has(m.userId) || users.get(m.userId)!.is_bot === 1)) throw Errors.unknownUser();
    const lobbyId = await this.store.lobbies.transaction(async (tx) => {
      const lobby = await this.store.lobbies.create(tx, {
        applicationId,
        secret: null,
        metadata: input.metadata,
        idleTimeoutSeconds: input.idleTimeoutSeconds ?? Limits.idleTimeoutDefaultSeconds,
      });
      for (const m of input.members) await this.store.lobbies.upsertMember(tx, lobby.id, m.userId, m.change);
      return lobby.id;
    });
    const view = await this.view(lobbyId);
    this.publishTo(view.memberIds, applicationId, DispatchEvent.LobbyCreate, view.lobby);
    await this.refreshIdle(lobbyId, applicationId, view.memberIds);
    return view.lobby;
  }

  /** Deletes a lobby (Bot token); idempotent, as the public route is. */
  async deleteLobby(applicationId: string, lobbyId: string): Promise<void> {
    const lobby = await this.store.lobbies.get(lobbyId);
    if (!lobby || lobby.application_id !== applicationId) return;
    const members = await this.store.lobbies.memberIds(lobbyId);
    await this.store.lobbies.delete(lobbyId);
    await linkedChannelRepo(this.store.database.db).forgetLobby(this.store.database.db, lobbyId);
    this.memberGone(lobbyId, null);
    this.publishTo(members, applicationId, DispatchEvent.LobbyDelete, { id: lobbyId, application_id: applicationId });
  }

  /**
   * Modify Lobby (Bot token): `metadata` (null clears it), `idleTimeoutSeconds`, and `members`,
   * which replaces the member list: members it leaves out are removed (each hears LOBBY_DELETE,
   * the rest LOBBY_MEMBER_REMOVE), those it names are added or updated as by the bulk route.
   * A metadata change is a LOBBY_UPDATE to the members.
   */
  async modifyLobby(
    applicationId: string,
    lobbyId: string,
    input: { metadata?: Metadata | null; idleTimeoutSeconds?: number; members?: { userId: string; change: MemberChange }[] },
  ): Promise<Lobby> {
    const lobby = await this.store.lobbies.get(lobbyId);
    if (!lobby || lobby.application_id !== applicationId) throw Errors.unknownLobby();
    const metadataChanged = input.metadata !== undefined && lobby.metadata !== encodeMetadata(input.metadata);
    if (input.members) {
      const named = new Set(input.members.map((m) => m.userId));
      const leaving = (await this.store.lobbies.memberIds(lobbyId)).filter((id) => !named.has(id));
      await this.upsertMembers(applicationId, lobbyId, [
        ...leaving.map((userId) => ({ userId, remove: true, change: {} })),
        ...input.members.map((m) => ({ userId: m.userId, remove: false, change: m.change })),
      ]);
    }
    if (metadataChanged || input.idleTimeoutSeconds !== undefined) {
      await this.store.lobbies.update(this.store.database.db, lobbyId, { metadata: metadataChanged ? input.metadata : undefined, idleTimeoutSeconds: input.idleTimeoutSeconds });
    }
    const view = await this.view(lobbyId);
    if (metadataChanged) this.publishTo(view.memberIds, applicationId, DispatchEvent.LobbyUpdate, view.lobby);
    return view.lobby;
  }

  /** The user's name or connection changed: every co-member of every lobby hears of it. */
  async announceUserChange(applicationId: string, userId: string): Promise<void> {
    await this.announceIn(applicationId, userId);
  }

  /** announceUserChange, answering each of the user's lobbies with the members it told. */
  private async announceIn(applicationId: string, userId: string): Promise<{ lobbyId: string; memberIds: string[] }[]> {
    const told: { lobbyId: string; memberIds: string[] }[] = [];
    for (const lobby of await this.store.lobbies.forUser(userId, applicationId)) {
      // Whom to tell, and this one member: on every connect and disconnect this read the whole
      // lobby view (every member with their user, the linked channel), O(members) rows of 16
      // columns per lobby for one member's change.
      const memberIds = await this.store.lobbies.memberIds(lobby.id);
      const own = await this.store.lobbies.memberWithUser(lobby.id, userId);
      // Left meanwhile: the removal was announced; the idle clock still follows who is left.
      if (own) {
        // The flag as it is now, not as it was before the reads: when a user's online and offline
        // announcements interleave, both publish the current state, so the last word is right.
        const member = memberToWire(own.member, own.user, this.connections.isConnected(applicationId, userId));
        this.publishTo(memberIds, applicationId, DispatchEvent.LobbyMemberUpdate, { lobby_id: lobby.id, member });
      }
      told.push({ lobbyId: lobby.id, memberIds });
    }
    return told;
  }

  /** A lobby as its member (or the owning application's bot) sees it. */
  async get(applicationId: string, lobbyId: string, asUserId: string | null): Promise<Lobby> {
    const lobby = await this.store.lobbies.get(lobbyId);
    if (!lobby || lobby.application_id !== applicationId) throw Errors.unknownLobby();
    if (asUserId !== null && !(await this.store.lobbies.member(lobbyId, asUserId))) throw Errors.missingAccess();
    return (await this.view(lobbyId, lobby)).lobby;
  }

  async leave(applicationId: string, lobbyId: string, userId: string): Promise<void> {
    const lobby = await this.store.lobbies.get(lobbyId);
    if (!lobby || lobby.application_id !== applicationId) throw Errors.unknownLobby();
    // Lobbies made through the server API cannot be left by SDK clients (social-sdk-api.md 6.1).
    if (lobby.secret === null) throw Errors.missingAccess();
    await this.removeMembers(lobby, [userId]);
  }

  async sendMessage(applicationId: string, lobbyId: string, userId: string, input: { content: string; metadata?: Metadata; flags?: number }): Promise<LobbyMessage> {
    const lobby = await this.store.lobbies.get(lobbyId);
    if (!lobby || lobby.application_id !== applicationId) throw Errors.unknownLobby();
    // The author's row (membership, stored name) and the recipients' IDs as one plucked column
    // (a two-column roster read as row objects cost five times the pluck), both read before the
    // write, so the dispatch goes out as soon as the write commits. Recipients are the members
    // when it was accepted.
    const member = await this.store.lobbies.member(lobbyId, userId);
    if (!member) throw Errors.missingAccess();
    const recipients = await this.store.lobbies.memberIds(lobbyId);
    const author = (await this.store.users.get(userId))!;
    const after: Array<() => Promise<void>> = [];
    const prepared = new Map<LobbyMessageHook, unknown>();
    for (const hook of this.messageHooks) prepared.set(hook, await hook.prepare(lobby, userId, input.content));
    const message = await this.store.lobbies.transaction(async (tx) => {
      after.length = 0;
      const row = await this.store.messages.insertLobbyMessage(tx, {
        lobbyId,
        applicationId,
        authorId: userId,
        content: input.content,
        metadata: input.metadata ?? null,
        additionalName: member.additional_name,
        flags: input.flags ?? 0,
      });
      const wire = messageToWire(row, author);
      for (const hook of this.messageHooks) {
        const then = await hook.write(tx, { lobby, row, wire }, prepared.get(hook));
        if (then) after.push(then);
      }
      // The moderation webhook goes to the outbox with the message, or not at all.
      await this.store.webhookEvents.record(tx, applicationId, 'LOBBY_MESSAGE_CREATE', wire);
      return wire;
    });
    this.publishTo(recipients, applicationId, DispatchEvent.LobbyMessageCreate, message);
    for (const then of after) await then().catch((err) => this.log.error({ err, lobbyId }, 'lobby message follow-up failed'));
    return message;
  }

  async history(applicationId: string, lobbyId: string, userId: string, limit: number): Promise<LobbyMessage[]> {
    const lobby = await this.store.lobbies.get(lobbyId);
    if (!lobby || lobby.application_id !== applicationId) throw Errors.unknownLobby();
    if (!(await this.store.lobbies.member(lobbyId, userId))) throw Errors.missingAccess();
    const rows = await this.store.messages.lobbyHistory(lobbyId, limit, Date.now() - Limits.lobbyHistoryMaxAgeMs);
    const authors = await this.store.users.getMany(rows.map((r) => r.author_id));
    return decorateLobbyMessages(this.store, rows.map((r) => messageToWire(r, authors.get(r.author_id)!)));
  }

  /** Server-side member add/update (bot token): the only way to set `additional_name` and flags. */
  async upsertMembers(applicationId: string, lobbyId: string, changes: { userId: string; remove: boolean; change: MemberChange }[]): Promise<LobbyMember[]> {
    const lobby = await this.store.lobbies.get(lobbyId);
    if (!lobby || lobby.application_id !== applicationId) throw Errors.unknownLobby();
    const users = await this.store.users.getMany(changes.map((c) => c.userId));
    if (changes.some((c) => !users.has(c.userId) || users.get(c.userId)!.is_bot === 1)) throw Errors.unknownUser();

    const outcome = await this.store.lobbies.transaction(async (tx) => {
      const added: string[] = [];
      const updated: string[] = [];
      const removed: string[] = [];
      let count = await this.store.lobbies.memberCount(lobbyId, tx);
      for (const c of changes) {
        if (c.remove) {
          if (await this.store.lobbies.removeMember(tx, lobbyId, c.userId)) {
            removed.push(c.userId);
            count--;
          }
          continue;
        }
        const before = await this.store.lobbies.member(lobbyId, c.userId, tx);
        if (!before && count >= Limits.lobbyMembersMax) throw Errors.lobbyFull();
        const r = await this.store.lobbies.upsertMember(tx, lobbyId, c.userId, c.change);
        if (r.added) {
          added.push(c.userId);
          count++;
        } else if (!sameMember(before!, r.row)) {
          updated.push(c.userId);
        }
      }
      return { added, updated, removed };
    });

    const view = await this.view(lobbyId, lobby);
    for (const id of outcome.added) {
      this.publishTo([id], applicationId, DispatchEvent.LobbyCreate, view.lobby);
      this.publishTo(view.memberIds.filter((m) => m !== id), applicationId, DispatchEvent.LobbyMemberAdd, { lobby_id: lobbyId, member: view.member(id) });
    }
    for (const id of outcome.updated) {
      this.publishTo(view.memberIds, applicationId, DispatchEvent.LobbyMemberUpdate, { lobby_id: lobbyId, member: view.member(id) });
    }
    for (const id of outcome.removed) this.announceRemoval(applicationId, lobbyId, id, view.memberIds);
    return changes.filter((c) => !c.remove).map((c) => view.member(c.userId));
  }

  /** Every lobby of this application the user is in, for READY. */
  async lobbiesOf(applicationId: string, userId: string): Promise<Lobby[]> {
    const lobbies = await this.store.lobbies.forUser(userId, applicationId);
    const out: Lobby[] = [];
    for (const l of lobbies) out.push((await this.view(l.id, l)).lobby);
    return out;
  }

  /** Deletes lobbies whose idle timeout ran out; returns how many. */
  async sweepIdle(now = Date.now()): Promise<number> {
    // Linked lobbies are left out (social-sdk-api.md 6.3); a backlog goes a batch per round.
    const expired = await this.store.lobbies.idleExpired(now);
    let deleted = 0;
    for (const lobby of expired) {
      // Checked again as the delete happens (LobbyRepo.deleteIfIdle): the clock, and who is in
      // the lobby then; someone connected stops the clock instead.
      let connected = false;
      const members = await this.store.lobbies.deleteIfIdle(lobby.id, now, (ids) => !(connected = ids.some((id) => this.connections.isConnected(lobby.application_id, id))));
      if (!members) {
        if (connected) await this.store.lobbies.setIdleSince(lobby.id, null);
        continue;
      }
      await linkedChannelRepo(this.store.database.db).forgetLobby(this.store.database.db, lobby.id);
      this.memberGone(lobby.id, null);
      deleted++;
      this.publishTo(members, lobby.application_id, DispatchEvent.LobbyDelete, { id: lobby.id, application_id: lobby.application_id });
      this.log.info({ lobbyId: lobby.id }, 'lobby idle timeout');
    }
    return deleted;
  }

  /** LOBBY_UPDATE to every member (linking and unlinking change `linked_channel`). */
  async announceLobbyUpdate(applicationId: string, lobbyId: string): Promise<void> {
    const view = await this.view(lobbyId);
    this.publishTo(view.memberIds, applicationId, DispatchEvent.LobbyUpdate, view.lobby);
  }

  /** Restarts or stops the idle clock of one lobby from who is connected now. */
  async refreshIdleOf(lobbyId: string): Promise<void> {
    const lobby = await this.store.lobbies.get(lobbyId);
    if (!lobby) return;
    await this.refreshIdle(lobbyId, lobby.application_id, await this.store.lobbies.memberIds(lobbyId));
  }

  private async removeMembers(lobby: LobbiesTable, userIds: string[]): Promise<void> {
    const removed: string[] = [];
    await this.store.lobbies.transaction(async (tx) => {
      for (const id of userIds) if (await this.store.lobbies.removeMember(tx, lobby.id, id)) removed.push(id);
    });
    if (removed.length === 0) return;
    const remaining = await this.store.lobbies.memberIds(lobby.id);
    for (const id of removed) this.announceRemoval(lobby.application_id, lobby.id, id, remaining);
    await this.refreshIdle(lobby.id, lobby.application_id, remaining);
  }

  private announceRemoval(applicationId: string, lobbyId: string, userId: string, remaining: string[]): void {
    this.memberGone(lobbyId, userId);
    this.publishTo([userId], applicationId, DispatchEvent.LobbyDelete, { id: lobbyId, application_id: applicationId });
    this.publishTo(remaining.filter((m) => m !== userId), applicationId, DispatchEvent.LobbyMemberRemove, { lobby_id: lobbyId, member: { id: userId } });
  }

  private async onConnectionChange(applicationId: string, userId: string): Promise<void> {
    // The lobbies and members the announcement read serve the idle clocks too (they were read
    // again here: the user's lobbies and every member of each, on every connect and disconnect).
    // A connected member who joins meanwhile is safe: sweepIdle checks the members again first.
    for (const { lobbyId, memberIds } of await this.announceIn(applicationId, userId)) await this.refreshIdle(lobbyId, applicationId, memberIds);
  }

  /** Starts the idle clock when nobody is connected, and stops it when someone is. */
  private async refreshIdle(lobbyId: string, applicationId: string, memberIds: string[]): Promise<void> {
    const anyone = memberIds.some((id) => this.connections.isConnected(applicationId, id));
    if (anyone) await this.store.lobbies.stopIdleClock(lobbyId);
    else await this.store.lobbies.setIdleSince(lobbyId, Date.now());
  }

  /** To the users' sessions in the application (social/dispatch.ts): `d` a payload, or its JSON already serialized. */
  private publishTo(userIds: readonly string[], applicationId: string, t: string, d: unknown): void {
    if (userIds.length > 0) publish(this.bus, applicationId, userIds, t, d);
  }

  private async view(lobbyId: string, row?: LobbiesTable) {
    const lobby = row ?? (await this.store.lobbies.get(lobbyId));
    if (!lobby) throw Errors.unknownLobby();
    const rows = await this.store.lobbies.membersWithUsers(lobbyId);
    const members = rows.map((r) => r.member);
    const users = new Map(rows.flatMap((r) => (r.user ? [[r.member.user_id, r.user] as const] : [])));
    const wireMembers = members.map((m) => memberToWire(m, users.get(m.user_id), this.connections.isConnected(lobby.application_id, m.user_id)));
    const wire: Lobby = {
      id: lobby.id,
      application_id: lobby.application_id,
      metadata: decodeMetadata(lobby.metadata),
      members: wireMembers,
      voice_states: this.voiceStates(lobbyId),
    };
    const link = await linkedChannelRepo(this.store.database.db).ofLobby(lobbyId);
    const channel = link ? await this.store.guilds.channel(link.channel_id) : undefined;
    if (channel) wire.linked_channel = { id: channel.id, name: channel.name, guild_id: channel.guild_id, type: channel.type };
    const byId = new Map(wireMembers.map((m) => [m.id, m]));
    return {
      lobby: wire,
      memberIds: members.map((m) => m.user_id),
      member: (id: string): LobbyMember => byId.get(id) ?? { id, metadata: null, flags: 0, connected: false },
    };
  }
}

function sameMember(a: LobbyMembersTable, b: LobbyMembersTable): boolean {
  return a.metadata === b.metadata && a.flags === b.flags && a.additional_name === b.additional_name;
}

export function memberToWire(m: LobbyMembersTable, user: UsersTable | undefined, connected: boolean): LobbyMember {
  const out: LobbyMember = { id: m.user_id, metadata: decodeMetadata(m.metadata), flags: m.flags, connected };
  if (m.additional_name !== null) out.additional_name = m.additional_name;
  if (user) out.user = userToWire(user);
  return out;
}

export function messageToWire(row: LobbyMessagesTable, author: UsersTable): LobbyMessage {
  const authorWire: User = userToWire(author);
  const msg: LobbyMessage = {
    id: row.id,
    type: 0,
    content: row.content,
    lobby_id: row.lobby_id,
    channel_id: row.lobby_id,
    author: authorWire,
    flags: row.flags,
    application_id: row.application_id,
    timestamp: new Date(Number(row.created_at)).toISOString(),
  };
  if (row.additional_name !== null) msg.lobby_member = { additional_name: row.additional_name };
  const meta = decodeMetadata(row.metadata);
  if (meta) msg.metadata = meta;
  const mod = decodeMetadata(row.moderation_metadata);
  if (mod) msg.moderation_metadata = mod;
  return msg;
}
