import { randomBytes } from 'node:crypto';
import { ApiErrorCode, DispatchEvent, type VoiceState, type VoiceStateUpdateCommand } from '@social-layer/protocol';
import { hashSecret } from '../auth/secrets.ts';
import { type EventBus, userTopic } from '../events/EventBus.ts';
import { GuildEvents, guildUserTopic } from '../guilds/GuildEvents.ts';
import type { Logger } from '../log/Logger.ts';
import type { Store } from '../storage/Store.ts';
import { checkGuildVoice, guildOfVoiceChannel } from './guildVoice.ts';
import type { VoiceCluster } from './VoiceCluster.ts';
import { homeKey, VoiceClusterSync } from './VoiceClusterSync.ts';
import type { CallEntry, CallVoiceState, PendingToken, VoiceGrant } from './voiceCalls.ts';

export type { CallVoiceState, VoiceGrant };

const TOKEN_TTL_MS = 60_000;

/**
 * Guild events after which a user in one of the guild's voice channels is checked again: removal
 * (GUILD_DELETE reaches the removed user), the channel gone or its overwrites changed, roles or
 * the member's roles changed. Losing VIEW_CHANNEL or CONNECT ends the seat; SPEAK sets `suppress`.
 */
const RECHECK_EVENTS = new Set(['GUILD_DELETE', 'GUILD_MEMBER_REMOVE', 'GUILD_BAN_ADD', 'GUILD_MEMBER_UPDATE', 'GUILD_ROLE_UPDATE', 'GUILD_ROLE_DELETE', 'CHANNEL_UPDATE', 'CHANNEL_DELETE']);

/**
 * Who is in which lobby call (contracts-voice.md 1). The main Gateway's op 4 joins and leaves;
 * every lobby member hears VOICE_STATE_UPDATE so games can show a call before joining it; the
 * joiner also gets a single-use voice token for the voice gateway. Alone, state is in memory.
 * With a VoiceCluster (Redis, issue 18) every node keeps a full view of every call's states:
 * each change is written to Redis and sent to the other nodes on the bus, tokens live in Redis
 * by hash, VOICE_SERVER_UPDATE names the call owner's voice gateway, and a timer lapses the
 * states of dead nodes and moves the calls they owned (see attachCluster).
 */
export class VoiceStateService {
  /** Call key (lobby ID or guild voice channel ID) -> the call's application or guild, and userId -> state. */
  private readonly calls = new Map<string, CallEntry>();
  private readonly guildEvents: GuildEvents;
  /** `guildId:userId` -> the subscription that rechecks a guild voice seat on guild changes. */
  private readonly guildWatches = new Map<string, () => void>();
  private readonly tokens = new Map<string, PendingToken>();
  private readonly leaveListeners = new Set<(lobbyId: string, userId: string) => void>();
  private readonly guildJoinListeners = new Set<(channelId: string, guildId: string, userId: string, seats: number) => void>();
  private readonly flagListeners = new Set<(lobbyId: string, userId: string, state: VoiceState) => void>();
  /** Whether the voice gateway still holds the user's seat in a call (set by the gateway). */
  hasVoiceSession: (lobbyId: string, userId: string) => boolean = () => false;
  /** Cluster mode (VoiceClusterSync.ts): Redis and the bus between nodes; alone, it answers for this node. */
  private readonly sync: VoiceClusterSync;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly log: Logger,
  ) {
    this.guildEvents = new GuildEvents(store, bus);
    this.sync = new VoiceClusterSync(
      {
        calls: this.calls,
        flagListeners: this.flagListeners,
        leaveListeners: this.leaveListeners,
        sessionDispatch: (sessionId, t, json) => this.sessionDispatch(sessionId, t, json),
        voiceEndpoint: () => this.voiceEndpoint(),
        hasVoiceSession: (lobbyId, userId) => this.hasVoiceSession(lobbyId, userId),
        watchGuildSeat: (guildId, userId) => this.watchGuildSeat(guildId, userId),
        unwatchGuildSeat: (guildId, userId) => this.unwatchGuildSeat(guildId, userId),
        issueToken: (session, lobbyId, guildId) => this.issueToken(session, lobbyId, guildId),
        leave: (lobbyId, userId) => this.leave(lobbyId, userId),
      },
      bus,
      log,
    );
  }

  /** Someone took a seat in a guild voice channel's call (voice channel start time, issue 11). */
  onGuildJoin(listener: (channelId: string, guildId: string, userId: string, seats: number) => void): () => void {
    this.guildJoinListeners.add(listener);
    return () => this.guildJoinListeners.delete(listener);
  }

  onLeave(listener: (lobbyId: string, userId: string) => void): () => void {
    this.leaveListeners.add(listener);
    return () => this.leaveListeners.delete(listener);
  }

  /** Mute/deaf changed for someone already in a call (the relay stops sending to the deaf). */
  onFlags(listener: (lobbyId: string, userId: string, state: VoiceState) => void): () => void {
    this.flagListeners.add(listener);
    return () => this.flagListeners.delete(listener);
  }

  voiceStates(lobbyId: string): VoiceState[] {
    return [...(this.calls.get(lobbyId)?.states.values() ?? [])];
  }

  state(lobbyId: string, userId: string): CallVoiceState | undefined {
    return this.calls.get(lobbyId)?.states.get(userId);
  }

  /** A user's voice state in a guild (Get User Voice State), in the public shape; undefined when not in voice there. */
  guildVoiceState(guildId: string, userId: string): CallVoiceState | undefined {
    for (const call of this.calls.values()) {
      if (call.guildId !== guildId) continue;
      const s = call.states.get(userId);
      if (s) return publicGuildState(s);
    }
    return undefined;
  }

  /** Everyone in the guild's voice channels, in the public shape (GUILD_CREATE's `voice_states`). */
  guildVoiceStates(guildId: string): CallVoiceState[] {
    const out: CallVoiceState[] = [];
    for (const call of this.calls.values()) {
      if (call.guildId !== guildId) continue;
      for (const s of call.states.values()) if (s.channel_id !== null) out.push(publicGuildState(s));
    }
    return out;
  }

  /** Without SPEAK in a guild voice channel (`suppress`), or server-muted, the relay drops the user's media. */
  canSpeak(lobbyId: string, userId: string): boolean {
    const s = this.state(lobbyId, userId);
    return s?.suppress !== true && s?.mute !== true;
  }

  /** Whether the relay sends nothing to the user: deafened by themself or by the server. */
  isDeaf(lobbyId: string, userId: string): boolean {
    const s = this.state(lobbyId, userId);
    return s?.self_deaf === true || s?.deaf === true;
  }

  /** Delivers a dispatch to one Gateway session of this node (set by startServer); false when it is gone. */
  sessionDispatch: (sessionId: string, t: string, json: string) => boolean = () => false;
  /** `host:port/voice` of the public URL, as VOICE_SERVER_UPDATE's `endpoint` (set by startServer). */
  voiceEndpoint: () => string = () => '';

  /**
   * Server mute or deafen changed on a member (Modify Guild Member): a seat they hold in the
   * guild's voice takes it at once (the relay drops what a muted member sends and sends nothing
   * to a deafened one) and VOICE_STATE_UPDATE tells the channel.
   */
  async memberVoiceFlags(guildId: string, userId: string, flags: { mute: boolean; deaf: boolean }): Promise<void> {
    const entry = this.guildSeat(guildId, userId);
    if (!entry) return;
    const [channelId, call, state] = entry;
    if (state.mute === flags.mute && state.deaf === flags.deaf) return;
    state.mute = flags.mute;
    state.deaf = flags.deaf;
    for (const l of this.flagListeners) l(channelId, userId, state);
    await this.sync.persist(channelId, userId);
    await this.announce(channelId, call, state);
  }

  /** The call key (channel) and state of the user's seat in one of the guild's voice channels. */
  guildSeat(guildId: string, userId: string): [string, CallEntry, CallVoiceState] | undefined {
    for (const [key, call] of this.calls) {
      if (call.guildId !== guildId) continue;
      const s = call.states.get(userId);
      if (s) return [key, call, s];
    }
    return undefined;
  }

  /**
   * Moves a member's seat to another voice channel of the guild, or disconnects it (null), for
   * Modify Guild Member `channel_id` (the route checked MOVE_MEMBERS and the channel). The old
   * voice socket closes (4014) and the member's Gateway session gets VOICE_STATE_UPDATE with the
   * new channel and a VOICE_SERVER_UPDATE to connect to it (a call is keyed by its channel, so a
   * move is a new voice connection, as @discordjs/voice expects after 4014). `user_limit` does
   * not stop a move. False when the member holds no seat in the guild on this node.
   */
  async moveGuildMember(guildId: string, userId: string, toChannelId: string | null): Promise<boolean> {
    const entry = this.guildSeat(guildId, userId);
    if (!entry) return false;
    const [fromId, fromCall, old] = entry;
    if (toChannelId === null) {
      await this.leave(fromId, userId);
      return true;
    }
    if (toChannelId === fromId) return true;
    const check = await checkGuildVoice(this.store, guildId, toChannelId, userId);
    const channel = check.ok ? check.channel : await this.store.guilds.channel(toChannelId);
    if (!channel) return false;
    const session = { id: old.session_id, userId, applicationId: fromCall.applicationId };
    // Out of the old call without a `channel_id: null` announcement: the move's own state says where they went.
    const home = this.sync.homes.get(homeKey(fromId, userId));
    fromCall.states.delete(userId);
    if (fromCall.states.size === 0) this.calls.delete(fromId);
    for (const l of this.leaveListeners) l(fromId, userId);
    await this.sync.persist(fromId, userId);
    // The new call's owner first (endpointFor): see claimFirst.
    const endpoint = await this.sync.endpointFor(toChannelId, old.session_id);
    let call = this.calls.get(toChannelId);
    if (!call) this.calls.set(toChannelId, (call = { applicationId: fromCall.applicationId, guildId, channel, states: new Map() }));
    call.channel = channel;
    const state: CallVoiceState = {
      ...old,
      lobby_id: toChannelId,
      channel_id: toChannelId,
      ...(check.ok ? { member: check.member } : {}),
      suppress: !(check.ok && check.canSpeak),
    };
    call.states.set(userId, state);
    await this.sync.persist(toChannelId, userId, home);
    for (const l of this.guildJoinListeners) l(toChannelId, guildId, userId, call.states.size);
    // Those who could see the old channel learn where the member went, as do those of the new one.
    if (fromCall.channel) await this.guildEvents.publish(guildId, DispatchEvent.VoiceStateUpdate, state, { kind: 'channel', channel: fromCall.channel }, { subjectUserId: userId });
    await this.guildEvents.publish(guildId, DispatchEvent.VoiceStateUpdate, state, { kind: 'channel', channel }, { subjectUserId: userId });
    const token = await this.issueToken(session, toChannelId, guildId);
    this.sync.toSession(home ?? this.sync.cluster?.nodeId, session.id, DispatchEvent.VoiceServerUpdate, JSON.stringify({ token, guild_id: guildId, lobby_id: toChannelId, endpoint }));
    // A move into a channel the member cannot view or join would not survive its recheck: out.
    if (!check.ok) await this.leave(toChannelId, userId);
    return true;
  }

  /**
   * Handles op 4 for one Gateway session. Returns the VOICE_SERVER_UPDATE token to send to that
   * session only, or undefined (left, or refused: the refusal is dispatched to the requester).
   */
  async update(session: { id: string; userId: string; applicationId: string }, cmd: VoiceStateUpdateCommand & { lobby_id?: string }): Promise<{ token: string; lobbyId: string; guildId: string | null; endpoint: string } | undefined> {
    if (cmd.channel_id === null) {
      // `lobby_id` (our extension) leaves one call, `guild_id` the guild's; without either every call of this session is left.
      for (const [lobbyId, call] of [...this.calls]) {
        if (cmd.lobby_id !== undefined && cmd.lobby_id !== lobbyId) continue;
        if (typeof cmd.guild_id === 'string' && cmd.guild_id !== call.guildId) continue;
        const s = call.states.get(session.userId);
        if (s && s.session_id === session.id) await this.leave(lobbyId, session.userId);
      }
      return undefined;
    }
    if (typeof cmd.guild_id === 'string') return this.joinGuild(session, cmd.guild_id, cmd.channel_id, cmd);
    const lobbyId = cmd.channel_id;
    const lobby = await this.store.lobbies.get(lobbyId);
    // No such lobby: a guild voice channel joined the SDK's way (channel ID only, guild_id null).
    if (!lobby) {
      const guildId = await guildOfVoiceChannel(this.store, lobbyId);
      if (guildId) return this.joinGuild(session, guildId, lobbyId, cmd);
    }
    const refuse = (code: number) => {
      const refusal: VoiceState = { ...baseState(lobbyId, session, cmd), channel_id: null, error_code: code };
      this.bus.publish(userTopic(session.applicationId, session.userId), { t: DispatchEvent.VoiceStateUpdate, json: JSON.stringify(refusal) });
      return undefined;
    };
    if (!lobby || lobby.application_id !== session.applicationId) return refuse(ApiErrorCode.UnknownLobby);
    if (!(await this.store.lobbies.member(lobbyId, session.userId))) return refuse(ApiErrorCode.MissingAccess);

    const claimed = await this.claimFirst(lobbyId, session);
    let call = this.calls.get(lobbyId);
    const current = call?.states.get(session.userId);
    if (call && current && current.session_id === session.id) {
      // Already in this call from this session: op 4 changes mute/deaf; a new token only when the
      // voice seat is gone (the client lost its voice session and must connect anew).
      current.self_mute = cmd.self_mute;
      current.self_deaf = cmd.self_deaf;
      for (const l of this.flagListeners) l(lobbyId, session.userId, current);
      await this.sync.persist(lobbyId, session.userId);
      await this.announce(lobbyId, call, current);
      if (await this.sync.seated(lobbyId, session.userId)) return undefined;
      return { token: await this.issueToken(session, lobbyId, null), lobbyId, guildId: null, endpoint: await this.sync.endpointFor(lobbyId, session.id) };
    }
    if (!call) this.calls.set(lobbyId, (call = { applicationId: session.applicationId, guildId: null, channel: null, states: new Map() }));
    const state = baseState(lobbyId, session, cmd);
    call.states.set(session.userId, state);
    await this.sync.persist(lobbyId, session.userId, this.sync.cluster?.nodeId);
    await this.announce(lobbyId, call, state);

    return { token: await this.issueToken(session, lobbyId, null), lobbyId, guildId: null, endpoint: claimed ?? (await this.sync.endpointFor(lobbyId, session.id)) };
  }

  /**
   * Op 4 for a guild voice channel: the permission checks of checkGuildVoice, one channel per
   * guild per user (joining another moves: the old seat is left first), VOICE_STATE_UPDATE to the
   * members who can view the channel (sessions with GUILD_VOICE_STATES; the user's own sessions
   * always), and a voice token for the requesting session.
   */
  private async joinGuild(session: { id: string; userId: string; applicationId: string }, guildId: string, channelId: string, cmd: VoiceStateUpdateCommand): Promise<{ token: string; lobbyId: string; guildId: string; endpoint: string } | undefined> {
    const check = await checkGuildVoice(this.store, guildId, channelId, session.userId);
    if (!check.ok) {
      const refusal: CallVoiceState = { ...baseState(channelId, session, cmd), guild_id: guildId, channel_id: null, error_code: check.code };
      this.bus.publish(userTopic(session.applicationId, session.userId), { t: DispatchEvent.VoiceStateUpdate, json: JSON.stringify(refusal) });
      return undefined;
    }
    // One voice channel per guild per user: a seat in another of the guild's channels is left.
    for (const [key, other] of [...this.calls]) {
      if (key !== channelId && other.guildId === guildId && other.states.has(session.userId)) await this.leave(key, session.userId);
    }
    const claimed = await this.claimFirst(channelId, session);
    let call = this.calls.get(channelId);
    const current = call?.states.get(session.userId);
    if (call && current && current.session_id === session.id) {
      current.self_mute = cmd.self_mute;
      current.self_deaf = cmd.self_deaf;
      current.suppress = !check.canSpeak;
      for (const l of this.flagListeners) l(channelId, session.userId, current);
      await this.sync.persist(channelId, session.userId);
      await this.announce(channelId, call, current);
      if (await this.sync.seated(channelId, session.userId)) return undefined;
      return { token: await this.issueToken(session, channelId, guildId), lobbyId: channelId, guildId, endpoint: await this.sync.endpointFor(channelId, session.id) };
    }
    // A full channel (`user_limit`, 0 = no limit) takes no one else, unless they hold MOVE_MEMBERS
    // there (the public rule). Our choice of refusal: 50013, a permission the joiner lacks.
    const limit = check.channel.user_limit ?? 0;
    if (limit > 0 && !check.canMove && (call?.states.size ?? 0) >= limit) {
      const refusal: CallVoiceState = { ...baseState(channelId, session, cmd), guild_id: guildId, channel_id: null, error_code: ApiErrorCode.MissingPermissions };
      this.bus.publish(userTopic(session.applicationId, session.userId), { t: DispatchEvent.VoiceStateUpdate, json: JSON.stringify(refusal) });
      return undefined;
    }
    if (!call) this.calls.set(channelId, (call = { applicationId: session.applicationId, guildId, channel: check.channel, states: new Map() }));
    call.channel = check.channel;
    const state: CallVoiceState = {
      ...baseState(channelId, session, cmd),
      guild_id: guildId,
      member: check.member,
      // Server mute and deafen are the member's (Modify Guild Member) and hold in every channel.
      mute: check.member.mute,
      deaf: check.member.deaf,
      suppress: !check.canSpeak,
      self_stream: false,
      request_to_speak_timestamp: null,
    };
    call.states.set(session.userId, state);
    await this.sync.persist(channelId, session.userId, this.sync.cluster?.nodeId);
    for (const l of this.guildJoinListeners) l(channelId, guildId, session.userId, call.states.size);
    this.watchGuildSeat(guildId, session.userId);
    await this.announce(channelId, call, state);
    return { token: await this.issueToken(session, channelId, guildId), lobbyId: channelId, guildId, endpoint: claimed ?? (await this.sync.endpointFor(channelId, session.id)) };
  }

  /**
   * A session joining a call (not already in it): the call's owner is settled (endpointFor claims
   * one in cluster mode) before the joiner's state shows anywhere, here or, once persisted, on the
   * other nodes. Every node's cluster round claims a call that has states and no owner, taking it
   * for one whose owner died: claimed after the state, the first joiner's call could be taken by
   * another node in between, which then moved it to itself (a second VOICE_SERVER_UPDATE, and the
   * call off the node its first member joined through). Claimed before the joiner's own check of
   * the call, so the check and the state's insertion stay in one turn. Undefined for a session
   * already in the call (a mute change claims nothing).
   */
  private async claimFirst(callKey: string, session: { id: string; userId: string }): Promise<string | undefined> {
    if (this.calls.get(callKey)?.states.get(session.userId)?.session_id === session.id) return undefined;
    return this.sync.endpointFor(callKey, session.id);
  }

  private watchGuildSeat(guildId: string, userId: string): void {
    const key = `${guildId}:${userId}`;
    if (this.guildWatches.has(key)) return;
    const unsubscribe = this.bus.subscribe(guildUserTopic(userId), (d) => {
      const bar = d.t.indexOf('|');
      if (!RECHECK_EVENTS.has(bar < 0 ? d.t : d.t.slice(0, bar))) return;
      let about: unknown;
      try {
        const p = JSON.parse(d.json) as { guild_id?: unknown; id?: unknown };
        about = d.t.startsWith('GUILD_DELETE') ? p.id : p.guild_id;
      } catch {
        return;
      }
      if (about !== guildId) return;
      this.recheckGuildSeat(guildId, userId).catch((err) => this.log.error({ err }, 'guild voice recheck failed'));
    });
    this.guildWatches.set(key, unsubscribe);
  }

  private unwatchGuildSeat(guildId: string, userId: string): void {
    for (const call of this.calls.values()) if (call.guildId === guildId && call.states.has(userId)) return;
    const key = `${guildId}:${userId}`;
    this.guildWatches.get(key)?.();
    this.guildWatches.delete(key);
  }

  /** After a guild change: still allowed in the channel? Else out; SPEAK decides `suppress`. */
  private async recheckGuildSeat(guildId: string, userId: string): Promise<void> {
    const entry = [...this.calls].find(([, c]) => c.guildId === guildId && c.states.has(userId));
    if (!entry) return;
    const [channelId, call] = entry;
    const check = await checkGuildVoice(this.store, guildId, channelId, userId);
    const state = call.states.get(userId);
    if (!state || this.calls.get(channelId) !== call) return;
    if (!check.ok) return this.leave(channelId, userId);
    call.channel = check.channel;
    if (state.suppress === !check.canSpeak) return;
    state.suppress = !check.canSpeak;
    for (const l of this.flagListeners) l(channelId, userId, state);
    await this.sync.persist(channelId, userId);
    await this.announce(channelId, call, state);
  }

  private async issueToken(session: { id: string; userId: string; applicationId: string }, lobbyId: string, guildId: string | null): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const grant: PendingToken = { userId: session.userId, applicationId: session.applicationId, lobbyId, guildId, sessionId: session.id, expiresAt: Date.now() + TOKEN_TTL_MS };
    // In cluster mode the owner's voice gateway redeems it, maybe on another node: Redis, by hash.
    if (this.sync.cluster) await this.sync.cluster.putToken(hashSecret(token), grant, TOKEN_TTL_MS);
    else {
      this.tokens.set(hashSecret(token), grant);
      this.pruneTokens();
    }
    return token;
  }

  /**
   * Redeems a voice token once; a used, expired or unknown token gives undefined. `serverId` is
   * Identify's `server_id`: the lobby, or for a guild call the guild (Discord clients) or the
   * channel (our SDK, which names every call by its key).
   */
  async redeem(token: string, serverId: string, userId: string, sessionId: string): Promise<VoiceGrant | undefined> {
    const key = hashSecret(token);
    const grant = this.sync.cluster ? await this.sync.cluster.peekToken<PendingToken>(key) : this.tokens.get(key);
    if (!grant || grant.expiresAt < Date.now()) return undefined;
    if ((grant.lobbyId !== serverId && grant.guildId !== serverId) || grant.userId !== userId || grant.sessionId !== sessionId) return undefined;
    // Still in the call by the main Gateway's account: a later op 4 leave voids the token.
    let state = this.state(grant.lobbyId, userId);
    if (this.sync.cluster && (!state || state.session_id !== sessionId)) {
      // The join's sync message may still be on its way from the joiner's node: Redis has it already.
      const stored = await this.sync.cluster.state(grant.lobbyId, userId);
      if (stored && stored.s.session_id === sessionId) state = this.sync.applySet(grant.lobbyId, stored);
    }
    if (!state || state.session_id !== sessionId) return undefined;
    if (this.sync.cluster) {
      // One call, one node: a voice gateway that does not own the call (a stale endpoint) refuses,
      // rather than start a second copy of it; with no owner at all, this node takes it.
      if ((await this.sync.cluster.claim(grant.lobbyId)).nodeId !== this.sync.cluster.nodeId) return undefined;
      if (!(await this.sync.cluster.takeToken(key))) return undefined;
    } else this.tokens.delete(key);
    return { userId: grant.userId, applicationId: grant.applicationId, lobbyId: grant.lobbyId, guildId: grant.guildId, sessionId };
  }

  async leave(lobbyId: string, userId: string): Promise<void> {
    const call = this.calls.get(lobbyId);
    const state = call?.states.get(userId);
    if (!call || !state) return;
    call.states.delete(userId);
    if (call.states.size === 0) this.calls.delete(lobbyId);
    for (const l of this.leaveListeners) l(lobbyId, userId);
    if (call.guildId !== null) this.unwatchGuildSeat(call.guildId, userId);
    await this.sync.persist(lobbyId, userId);
    await this.announce(lobbyId, call, { ...state, channel_id: null });
  }

  /** A Gateway session ended: it leaves every call it joined. */
  async sessionEnded(sessionId: string): Promise<void> {
    for (const [lobbyId, call] of [...this.calls]) {
      for (const s of [...call.states.values()]) if (s.session_id === sessionId) await this.leave(lobbyId, s.user_id);
    }
  }

  /** A member left or was removed from the lobby, or the lobby is gone: out of its call. */
  async memberGone(lobbyId: string, userId: string | null): Promise<void> {
    const call = this.calls.get(lobbyId);
    if (!call) return;
    for (const id of [...call.states.keys()]) if (userId === null || id === userId) await this.leave(lobbyId, id);
  }

  private async announce(lobbyId: string, call: CallEntry, state: CallVoiceState): Promise<void> {
    // A guild call learned from another node has no channel row yet.
    if (call.guildId !== null && !call.channel) call.channel = (await this.store.guilds.channel(lobbyId)) ?? null;
    if (call.guildId !== null && call.channel) {
      // Guild calls: to the members who can view the channel; the user's own copy ignores intents.
      await this.guildEvents.publish(call.guildId, DispatchEvent.VoiceStateUpdate, state, { kind: 'channel', channel: call.channel }, { subjectUserId: state.user_id });
      return;
    }
    const applicationId = call.applicationId;
    const members = await this.store.lobbies.memberIds(lobbyId);
    const dispatch = { t: DispatchEvent.VoiceStateUpdate, json: JSON.stringify(state) };
    const recipients = new Set(members);
    recipients.add(state.user_id);
    this.bus.publishMany(Array.from(recipients, (id) => userTopic(applicationId, id)), dispatch);
  }

  // ---- cluster mode (VoiceClusterSync.ts) ----------------------------------------------------------

  /** Shares voice through Redis (VoiceClusterSync.attachCluster). */
  attachCluster(cluster: VoiceCluster): Promise<void> {
    return this.sync.attachCluster(cluster);
  }

  /** Starts the cluster rounds, once the node listens (VoiceClusterSync.startClusterRounds). */
  startClusterRounds(): void {
    this.sync.startClusterRounds();
  }

  /** A Gateway session now lives on this node (VoiceClusterSync.adoptSession). */
  adoptSession(sessionId: string): Promise<void> {
    return this.sync.adoptSession(sessionId);
  }

  /** The owner's voice gateway took or dropped a user's seat (read by op 4 on any node). */
  seatChanged(callKey: string, userId: string, present: boolean): void {
    this.sync.seatChanged(callKey, userId, present);
  }

  /** The node id and endpoint of the call's owner, for tests and diagnostics (cluster mode). */
  callOwner(callKey: string): Promise<{ nodeId: string; endpoint: string } | undefined> {
    return this.sync.callOwner(callKey);
  }

  private pruneTokens(): void {
    const now = Date.now();
    for (const [k, t] of this.tokens) if (t.expiresAt < now) this.tokens.delete(k);
  }

  async close(): Promise<void> {
    this.log.debug('voice states closed');
    await this.sync.close();
    this.calls.clear();
    this.tokens.clear();
    for (const unsubscribe of this.guildWatches.values()) unsubscribe();
    this.guildWatches.clear();
  }
}

function baseState(lobbyId: string, session: { id: string; userId: string }, cmd: VoiceStateUpdateCommand): VoiceState {
  return {
    lobby_id: lobbyId,
    channel_id: lobbyId,
    user_id: session.userId,
    session_id: session.id,
    self_mute: cmd.self_mute,
    self_deaf: cmd.self_deaf,
    mute: false,
    deaf: false,
    self_video: false,
    suppress: false,
  };
}

/** The public guild voice state (REST): without the call key extension. */
function publicGuildState(s: CallVoiceState): CallVoiceState {
  const { lobby_id: _callKey, error_code: _error, ...rest } = s;
  return rest as CallVoiceState;
}
