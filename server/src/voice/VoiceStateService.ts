import { randomBytes } from 'node:crypto';
import { ApiErrorCode, DispatchEvent, type VoiceState, type VoiceStateUpdateCommand } from '@social-layer/protocol';
import { hashSecret } from '../auth/secrets.ts';
import { type EventBus, userTopic } from '../events/EventBus.ts';
import type { Logger } from '../log/Logger.ts';
import type { Store } from '../storage/Store.ts';

/** What the voice gateway learns from a voice token: who may join which call. */
export interface VoiceGrant {
  userId: string;
  applicationId: string;
  lobbyId: string;
  sessionId: string;
}

interface PendingToken extends VoiceGrant {
  expiresAt: number;
}

const TOKEN_TTL_MS = 60_000;

/**
 * Who is in which lobby call (contracts-voice.md 1). The main Gateway's op 4 joins and leaves;
 * every lobby member hears VOICE_STATE_UPDATE so games can show a call before joining it; the
 * joiner also gets a single-use voice token for the voice gateway. State is in memory: a call
 * lives on the node that holds it, as DESIGN.md says of a call's media.
 */
export class VoiceStateService {
  /** lobbyId -> the call's application and userId -> state. */
  private readonly calls = new Map<string, { applicationId: string; states: Map<string, VoiceState> }>();
  private readonly tokens = new Map<string, PendingToken>();
  private readonly leaveListeners = new Set<(lobbyId: string, userId: string) => void>();
  private readonly flagListeners = new Set<(lobbyId: string, userId: string, state: VoiceState) => void>();
  /** Whether the voice gateway still holds the user's seat in a call (set by the gateway). */
  hasVoiceSession: (lobbyId: string, userId: string) => boolean = () => false;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly log: Logger,
  ) {}

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

  state(lobbyId: string, userId: string): VoiceState | undefined {
    return this.calls.get(lobbyId)?.states.get(userId);
  }

  /**
   * Handles op 4 for one Gateway session. Returns the VOICE_SERVER_UPDATE token to send to that
   * session only, or undefined (left, or refused: the refusal is dispatched to the requester).
   */
  async update(session: { id: string; userId: string; applicationId: string }, cmd: VoiceStateUpdateCommand & { lobby_id?: string }): Promise<{ token: string; lobbyId: string } | undefined> {
    if (cmd.channel_id === null) {
      // `lobby_id` (our extension) leaves one call; without it every call of this session is left.
      for (const [lobbyId, call] of [...this.calls]) {
        if (cmd.lobby_id !== undefined && cmd.lobby_id !== lobbyId) continue;
        const s = call.states.get(session.userId);
        if (s && s.session_id === session.id) await this.leave(lobbyId, session.userId);
      }
      return undefined;
    }
    const lobbyId = cmd.channel_id;
    const lobby = await this.store.lobbies.get(lobbyId);
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
      await this.announce(lobbyId, call.applicationId, current);
      if (this.hasVoiceSession(lobbyId, session.userId)) return undefined;
      return { token: this.issueToken(session, lobbyId), lobbyId };
    }
    if (!call) this.calls.set(lobbyId, (call = { applicationId: session.applicationId, states: new Map() }));
    const state = baseState(lobbyId, session, cmd);
    call.states.set(session.userId, state);
    await this.announce(lobbyId, session.applicationId, state);

    return { token: this.issueToken(session, lobbyId), lobbyId };
  }

  private issueToken(session: { id: string; userId: string; applicationId: string }, lobbyId: string): string {
    const token = randomBytes(32).toString('base64url');
    this.tokens.set(hashSecret(token), { userId: session.userId, applicationId: session.applicationId, lobbyId, sessionId: session.id, expiresAt: Date.now() + TOKEN_TTL_MS });
    this.pruneTokens();
    return token;
  }

  /** Redeems a voice token once; a used, expired or unknown token gives undefined. */
  redeem(token: string, lobbyId: string, userId: string, sessionId: string): VoiceGrant | undefined {
    const key = hashSecret(token);
    const grant = this.tokens.get(key);
    if (!grant || grant.expiresAt < Date.now()) return undefined;
    if (grant.lobbyId !== lobbyId || grant.userId !== userId || grant.sessionId !== sessionId) return undefined;
    // Still in the call by the main Gateway's account: a later op 4 leave voids the token.
    const state = this.state(lobbyId, userId);
    if (!state || state.session_id !== sessionId) return undefined;
    this.tokens.delete(key);
    return { userId: grant.userId, applicationId: grant.applicationId, lobbyId, sessionId };
  }

  async leave(lobbyId: string, userId: string): Promise<void> {
    const call = this.calls.get(lobbyId);
    const state = call?.states.get(userId);
    if (!call || !state) return;
    call.states.delete(userId);
    if (call.states.size === 0) this.calls.delete(lobbyId);
    for (const l of this.leaveListeners) l(lobbyId, userId);
    await this.announce(lobbyId, call.applicationId, { ...state, channel_id: null });
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

  private async announce(lobbyId: string, applicationId: string, state: VoiceState): Promise<void> {
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
