import { randomBytes } from 'node:crypto';
import { ApiErrorCode, DispatchEvent, type VoiceState, type VoiceStateUpdateCommand } from '@social-layer/protocol';
import { hashSecret } from '../auth/secrets.ts';
import { type EventBus, userTopic } from '../events/EventBus.ts';
import { GuildEvents, guildUserTopic } from '../guilds/GuildEvents.ts';
import type { GuildMemberWire } from '../guilds/guildWire.ts';
import type { Logger } from '../log/Logger.ts';
import type { GuildChannelsTable } from '../storage/guildSchema.ts';
import type { Store } from '../storage/Store.ts';
import { checkGuildVoice, guildOfVoiceChannel } from './guildVoice.ts';

/**
 * What the voice gateway learns from a voice token: who may join which call. `lobbyId` is the
 * call's key: the lobby's ID, or for a guild voice channel the channel's ID (with `guildId` set,
 * which is the `server_id` that Discord clients such as @discordjs/voice identify with).
 */
export interface VoiceGrant {
  userId: string;
  applicationId: string;
  lobbyId: string;
  guildId: string | null;
  sessionId: string;
}

/**
 * A voice state. Lobby calls use the protocol's shape; a guild voice channel's state has the
 * public guild fields too. `lobby_id` is the call key on both (our extension: for a guild call
 * it is the channel's ID), so our client SDK joins a guild voice channel as it joins a lobby call.
 */
export type CallVoiceState = VoiceState & {
  guild_id?: string;
  member?: GuildMemberWire;
  self_stream?: boolean;
  request_to_speak_timestamp?: null;
};

interface CallEntry {
  applicationId: string;
  /** Set for a guild voice channel's call. */
  guildId: string | null;
  channel: GuildChannelsTable | null;
  states: Map<string, CallVoiceState>;
}

interface PendingToken extends VoiceGrant {
  expiresAt: number;
}

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
 * joiner also gets a single-use voice token for the voice gateway. State is in memory: a call
 * lives on the node that holds it, as DESIGN.md says of a call's media.
 */
export class VoiceStateService {
  /** Call key (lobby ID or guild voice channel ID) -> the call's application or guild, and userId -> state. */
  private readonly calls = new Map<string, CallEntry>();
  private readonly guildEvents: GuildEvents;
  /** `guildId:userId` -> the subscription that rechecks a guild voice seat on guild changes. */
  private readonly guildWatches = new Map<string, () => void>();
  private readonly tokens = new Map<string, PendingToken>();
  private readonly leaveListeners = new Set<(lobbyId: string, userId: string) => void>();
  private readonly flagListeners = new Set<(lobbyId: string, userId: string, state: VoiceState) => void>();
  /** Whether the voice gateway still holds the user's seat in a call (set by the gateway). */
  hasVoiceSession: (lobbyId: string, userId: string) => boolean = () => false;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly log: Logger,
  ) {
    this.guildEvents = new GuildEvents(store, bus);
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

  /** Without SPEAK in a guild voice channel the relay drops the user's media (`suppress`). */
  canSpeak(lobbyId: string, userId: string): boolean {
    return this.state(lobbyId, userId)?.suppress !== true;
  }

  /**
   * Handles op 4 for one Gateway session. Returns the VOICE_SERVER_UPDATE token to send to that
   * session only, or undefined (left, or refused: the refusal is dispatched to the requester).
   */
  async update(session: { id: string; userId: string; applicationId: string }, cmd: VoiceStateUpdateCommand & { lobby_id?: string }): Promise<{ token: string; lobbyId: string; guildId: string | null } | undefined> {
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

    let call = this.calls.get(lobbyId);
    const current = call?.states.get(session.userId);
    if (call && current && current.session_id === session.id) {
      // Already in this call from this session: op 4 changes mute/deaf; a new token only when the
      // voice seat is gone (the client lost its voice session and must connect anew).
      current.self_mute = cmd.self_mute;
      current.self_deaf = cmd.self_deaf;
      for (const l of this.flagListeners) l(lobbyId, session.userId, current);
      await this.announce(lobbyId, call, current);
      if (this.hasVoiceSession(lobbyId, session.userId)) return undefined;
      return { token: this.issueToken(session, lobbyId, null), lobbyId, guildId: null };
    }
    if (!call) this.calls.set(lobbyId, (call = { applicationId: session.applicationId, guildId: null, channel: null, states: new Map() }));
    const state = baseState(lobbyId, session, cmd);
    call.states.set(session.userId, state);
    await this.announce(lobbyId, call, state);

    return { token: this.issueToken(session, lobbyId, null), lobbyId, guildId: null };
  }

  /**
   * Op 4 for a guild voice channel: the permission checks of checkGuildVoice, one channel per
   * guild per user (joining another moves: the old seat is left first), VOICE_STATE_UPDATE to the
   * members who can view the channel (sessions with GUILD_VOICE_STATES; the user's own sessions
   * always), and a voice token for the requesting session.
   */
  private async joinGuild(session: { id: string; userId: string; applicationId: string }, guildId: string, channelId: string, cmd: VoiceStateUpdateCommand): Promise<{ token: string; lobbyId: string; guildId: string } | undefined> {
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
    let call = this.calls.get(channelId);
    const current = call?.states.get(session.userId);
    if (call && current && current.session_id === session.id) {
      current.self_mute = cmd.self_mute;
      current.self_deaf = cmd.self_deaf;
      current.suppress = !check.canSpeak;
      for (const l of this.flagListeners) l(channelId, session.userId, current);
      await this.announce(channelId, call, current);
      if (this.hasVoiceSession(channelId, session.userId)) return undefined;
      return { token: this.issueToken(session, channelId, guildId), lobbyId: channelId, guildId };
    }
    if (!call) this.calls.set(channelId, (call = { applicationId: session.applicationId, guildId, channel: check.channel, states: new Map() }));
    call.channel = check.channel;
    const state: CallVoiceState = {
      ...baseState(channelId, session, cmd),
      guild_id: guildId,
      member: check.member,
      suppress: !check.canSpeak,
      self_stream: false,
      request_to_speak_timestamp: null,
    };
    call.states.set(session.userId, state);
    this.watchGuildSeat(guildId, session.userId);
    await this.announce(channelId, call, state);
    return { token: this.issueToken(session, channelId, guildId), lobbyId: channelId, guildId };
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
    await this.announce(channelId, call, state);
  }

  private issueToken(session: { id: string; userId: string; applicationId: string }, lobbyId: string, guildId: string | null): string {
    const token = randomBytes(32).toString('base64url');
    this.tokens.set(hashSecret(token), { userId: session.userId, applicationId: session.applicationId, lobbyId, guildId, sessionId: session.id, expiresAt: Date.now() + TOKEN_TTL_MS });
    this.pruneTokens();
    return token;
  }

  /**
   * Redeems a voice token once; a used, expired or unknown token gives undefined. `serverId` is
   * Identify's `server_id`: the lobby, or for a guild call the guild (Discord clients) or the
   * channel (our SDK, which names every call by its key).
   */
  redeem(token: string, serverId: string, userId: string, sessionId: string): VoiceGrant | undefined {
    const key = hashSecret(token);
    const grant = this.tokens.get(key);
    if (!grant || grant.expiresAt < Date.now()) return undefined;
    if ((grant.lobbyId !== serverId && grant.guildId !== serverId) || grant.userId !== userId || grant.sessionId !== sessionId) return undefined;
    // Still in the call by the main Gateway's account: a later op 4 leave voids the token.
    const state = this.state(grant.lobbyId, userId);
    if (!state || state.session_id !== sessionId) return undefined;
    this.tokens.delete(key);
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
    if (call.guildId !== null && call.channel) {
      // Guild calls: to the members who can view the channel; the user's own copy ignores intents.
      await this.guildEvents.publish(call.guildId, DispatchEvent.VoiceStateUpdate, state, { kind: 'channel', channel: call.channel }, { subjectUserId: state.user_id });
      return;
    }
    const applicationId = call.applicationId;
    const members = await this.store.lobbies.members(lobbyId);
    const dispatch = { t: DispatchEvent.VoiceStateUpdate, json: JSON.stringify(state) };
    const recipients = new Set(members.map((m) => m.user_id));
    recipients.add(state.user_id);
    for (const id of recipients) this.bus.publish(userTopic(applicationId, id), dispatch);
  }

  private pruneTokens(): void {
    const now = Date.now();
    for (const [k, t] of this.tokens) if (t.expiresAt < now) this.tokens.delete(k);
  }

  close(): void {
    this.log.debug('voice states closed');
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
