import { DispatchEvent } from '@social-layer/protocol';
import type { EventBus } from '../events/EventBus.ts';
import type { Logger } from '../log/Logger.ts';
import type { CallEntry, CallVoiceState } from './voiceCalls.ts';
import type { StoredVoiceState, VoiceCluster } from './VoiceCluster.ts';

/** A voice state change between nodes (cluster mode): `set` carries the stored state, `del` names who left. */
interface SyncMessage {
  op: 'set' | 'del';
  node: string;
  k: string;
  u: string;
  st?: StoredVoiceState;
}

/**
 * What the cluster side needs of VoiceStateService, which makes it and hands it these: the calls
 * this node sees, the listeners a change from another node reaches, and the steps of a join.
 */
export interface VoiceCallsHost {
  readonly calls: Map<string, CallEntry>;
  readonly flagListeners: ReadonlySet<(lobbyId: string, userId: string, state: CallVoiceState) => void>;
  readonly leaveListeners: ReadonlySet<(lobbyId: string, userId: string) => void>;
  sessionDispatch(sessionId: string, t: string, json: string): boolean;
  voiceEndpoint(): string;
  hasVoiceSession(lobbyId: string, userId: string): boolean;
  watchGuildSeat(guildId: string, userId: string): void;
  unwatchGuildSeat(guildId: string, userId: string): void;
  issueToken(session: { id: string; userId: string; applicationId: string }, lobbyId: string, guildId: string | null): Promise<string>;
  leave(lobbyId: string, userId: string): Promise<void>;
}

/**
 * Voice in cluster mode (issue 18), for VoiceStateService: every node keeps a full view of every
 * call's states. Each change is written to Redis and sent to the other nodes on the bus,
 * VOICE_SERVER_UPDATE names the call owner's voice gateway, and a timer lapses the states of dead
 * nodes and moves the calls they owned. Alone (no attachCluster) every method is a no-op or
 * answers for this node.
 */
export class VoiceClusterSync {
  /** The shared Redis side; null until attachCluster (and on a single node). */
  cluster: VoiceCluster | null = null;
  /** `callKey\nuserId` -> node id holding that state's Gateway session. */
  readonly homes = new Map<string, string>();
  private clusterTimer: NodeJS.Timeout | null = null;
  private clusterTick: Promise<void> | null = null;
  /** When each node was first seen dead (its states lapse stateGraceMs later). */
  private readonly deadSince = new Map<string, number>();
  private readonly clusterUnsubscribes: (() => void)[] = [];

  constructor(
    private readonly host: VoiceCallsHost,
    private readonly bus: EventBus,
    private readonly log: Logger,
  ) {}

  /**
   * Shares voice through Redis: seeds this node's view from the stored states, follows the other
   * nodes' changes on the bus, takes VOICE_SERVER_UPDATEs for its own sessions from the node that
   * moved a call, and (from startClusterRounds on) every `intervalMs` refreshes its liveness and claims, lapses the states of
   * dead nodes (the one node whose HDEL removed a state announces its leave) and claims the calls
   * whose owner is gone, sending each member's session a fresh token for its own voice gateway.
   */
  async attachCluster(cluster: VoiceCluster): Promise<void> {
    this.cluster = cluster;
    this.clusterUnsubscribes.push(this.bus.subscribe(cluster.syncTopic, (d) => this.onSync(d.json)));
    this.clusterUnsubscribes.push(
      this.bus.subscribe(cluster.sessionTopic(cluster.nodeId), (d) => {
        try {
          const m = JSON.parse(d.json) as { session_id: string; json: string };
          this.host.sessionDispatch(m.session_id, d.t, m.json);
        } catch (err) {
          this.log.warn({ err }, 'bad voice session dispatch');
        }
      }),
    );
    await Promise.all([this.bus.whenSubscribed(cluster.syncTopic), this.bus.whenSubscribed(cluster.sessionTopic(cluster.nodeId))]);
    for (const [callKey, states] of await cluster.allStates()) for (const st of states) this.applySet(callKey, st);
  }

  /**
   * Starts the cluster rounds, once the node listens: a round may claim a call, and a claim made
   * before then named the voice endpoint with port 0 (its refresh then failed, and the call moved
   * a second time).
   */
  startClusterRounds(): void {
    const cluster = this.cluster;
    if (!cluster || this.clusterTimer) return;
    this.clusterTimer = setInterval(() => {
      if (this.clusterTick) return;
      this.clusterTick = this.clusterRound()
        .catch((err) => this.log.warn({ err }, 'voice cluster round failed'))
        .finally(() => (this.clusterTick = null));
    }, cluster.intervalMs);
    this.clusterTimer.unref();
  }

  /**
   * A Gateway session now lives on this node (resumed here after its node died): its voice
   * states are refreshed by this node's liveness from now on, so they do not lapse. Where its
   * voice seat is gone too (the call moved while the session was away, so the move's
   * VOICE_SERVER_UPDATE had nowhere to go), the session gets a fresh one now.
   */
  async adoptSession(sessionId: string): Promise<void> {
    const cluster = this.cluster;
    if (!cluster) return;
    for (const [callKey, call] of [...this.host.calls]) {
      for (const s of [...call.states.values()]) {
        if (s.session_id !== sessionId) continue;
        // Only over a state still stored: one that lapsed meanwhile (its leave announced) stays gone.
        if (!(await cluster.adoptState(callKey, { s, n: cluster.nodeId, a: call.applicationId, g: call.guildId }))) {
          this.applyDel(callKey, s.user_id);
          continue;
        }
        await this.persist(callKey, s.user_id, cluster.nodeId);
        // Its node is this one now: the guild's changes to the seat are watched here (the watch died with the old node).
        if (call.guildId !== null) this.host.watchGuildSeat(call.guildId, s.user_id);
        if (await this.seated(callKey, s.user_id)) continue;
        const token = await this.host.issueToken({ id: sessionId, userId: s.user_id, applicationId: call.applicationId }, callKey, call.guildId);
        const endpoint = await this.endpointFor(callKey, sessionId);
        this.host.sessionDispatch(sessionId, DispatchEvent.VoiceServerUpdate, JSON.stringify({ token, guild_id: call.guildId, lobby_id: callKey, endpoint }));
      }
    }
  }

  /** The owner's voice gateway took or dropped a user's seat (read by op 4 on any node). */
  seatChanged(callKey: string, userId: string, present: boolean): void {
    // Only the owner's seats count: a node that lost its claim must not touch the new owner's record.
    if (!this.cluster?.owns(callKey)) return;
    this.cluster.setSeat(callKey, userId, present).catch((err) => this.log.warn({ err }, 'voice seat not recorded'));
  }

  /** The node id and endpoint of the call's owner, for tests and diagnostics (cluster mode). */
  async callOwner(callKey: string): Promise<{ nodeId: string; endpoint: string } | undefined> {
    return this.cluster?.ownerOf(callKey);
  }

  async seated(callKey: string, userId: string): Promise<boolean> {
    if (this.host.hasVoiceSession(callKey, userId)) return true;
    return this.cluster ? this.cluster.hasSeat(callKey, userId) : false;
  }

  /**
   * VOICE_SERVER_UPDATE's endpoint: this node's voice gateway, or in cluster mode the call owner's
   * (claimed if none). A claim of a call that already has members took it from an owner that
   * died (or stalled past its TTL): they are moved here now, as the cluster round would have, for
   * no round moves a call that has an owner again. `answered`: the session the caller sends this
   * endpoint to itself, left out of the move.
   */
  async endpointFor(callKey: string, answered?: string): Promise<string> {
    if (!this.cluster) return this.host.voiceEndpoint();
    const claim = await this.cluster.claim(callKey);
    if (claim.claimed && (this.host.calls.get(callKey)?.states.size ?? 0) > 0) await this.moveCall(callKey, answered);
    return claim.endpoint;
  }

  /** One dispatch to one Gateway session, on this node or (cluster mode) on the node holding it. */
  toSession(home: string | undefined, sessionId: string, t: string, json: string): void {
    if (!this.cluster || home === undefined || home === this.cluster.nodeId) {
      this.host.sessionDispatch(sessionId, t, json);
      return;
    }
    this.bus.publish(this.cluster.sessionTopic(home), { t, json: JSON.stringify({ session_id: sessionId, json }) });
  }

  /** Writes a changed (or removed) state to Redis and tells the other nodes; `home` is the session's node for a new state. */
  async persist(callKey: string, userId: string, home?: string): Promise<void> {
    const cluster = this.cluster;
    if (!cluster) return;
    const k = homeKey(callKey, userId);
    const call = this.host.calls.get(callKey);
    const state = call?.states.get(userId);
    if (!call || !state) {
      this.homes.delete(k);
      await cluster.removeState(callKey, userId);
      this.publishSync({ op: 'del', node: cluster.nodeId, k: callKey, u: userId });
      if (!this.host.calls.has(callKey)) await cluster.release(callKey);
      return;
    }
    const node = home ?? this.homes.get(k) ?? cluster.nodeId;
    this.homes.set(k, node);
    const st: StoredVoiceState = { s: state, n: node, a: call.applicationId, g: call.guildId };
    await cluster.saveState(callKey, st);
    this.publishSync({ op: 'set', node: cluster.nodeId, k: callKey, u: userId, st });
  }

  private publishSync(m: SyncMessage): void {
    if (this.cluster) this.bus.publish(this.cluster.syncTopic, { t: m.op, json: JSON.stringify(m) });
  }

  private onSync(json: string): void {
    let m: SyncMessage;
    try {
      m = JSON.parse(json) as SyncMessage;
    } catch {
      return;
    }
    if (!this.cluster || m.node === this.cluster.nodeId) return;
    if (m.op === 'set' && m.st) this.applySet(m.k, m.st);
    else if (m.op === 'del') this.applyDel(m.k, m.u);
  }

  /** Another node's state, into this node's view (the owner's relay follows flag changes). */
  applySet(callKey: string, st: StoredVoiceState): CallVoiceState {
    let call = this.host.calls.get(callKey);
    if (!call) this.host.calls.set(callKey, (call = { applicationId: st.a, guildId: st.g, channel: null, states: new Map() }));
    const state = st.s as CallVoiceState;
    const before = call.states.get(state.user_id);
    call.states.set(state.user_id, state);
    this.homes.set(homeKey(callKey, state.user_id), st.n);
    if (before && before.session_id === state.session_id) for (const l of this.host.flagListeners) l(callKey, state.user_id, state);
    // The node holding the member's session watches the guild for each seat (a kick, a ban, a lost
    // permission). A move another node made reaches this one as the old seat's removal (which
    // drops the watch) and then this state: watched again here, or a kicked member kept talking.
    if (st.g !== null && st.n === this.cluster?.nodeId) this.host.watchGuildSeat(st.g, state.user_id);
    return state;
  }

  /** Another node removed a state: out of this node's view, and out of the call's voice seat if held here. */
  private applyDel(callKey: string, userId: string): void {
    const call = this.host.calls.get(callKey);
    if (!call?.states.delete(userId)) return;
    this.homes.delete(homeKey(callKey, userId));
    if (call.states.size === 0) {
      this.host.calls.delete(callKey);
      void this.cluster?.release(callKey).catch(() => {});
    }
    for (const l of this.host.leaveListeners) l(callKey, userId);
    if (call.guildId !== null) this.host.unwatchGuildSeat(call.guildId, userId);
  }

  private async clusterRound(): Promise<void> {
    const cluster = this.cluster;
    if (!cluster) return;
    const lost = await cluster.beat();
    if (lost.length > 0) this.log.warn({ calls: lost }, 'voice call claims lost (this node stalled past their TTL)');
    // States whose Gateway node stopped refreshing lapse; one node (HDEL's winner) announces each.
    const dead = await cluster.deadNodes(this.homes.values());
    const now = Date.now();
    for (const node of [...this.deadSince.keys()]) if (!dead.has(node)) this.deadSince.delete(node);
    for (const node of dead) if (!this.deadSince.has(node)) this.deadSince.set(node, now);
    const lapsed = new Set([...dead].filter((node) => now - this.deadSince.get(node)! >= cluster.stateGraceMs));
    if (lapsed.size > 0) {
      for (const [k, node] of [...this.homes]) {
        if (!lapsed.has(node)) continue;
        const [callKey, userId] = k.split('\n') as [string, string];
        if (await cluster.removeStateOf(callKey, userId, node)) {
          await this.host.leave(callKey, userId);
          continue;
        }
        // Lapsed by another node, or adopted by one (the session resumed there): as Redis has it now.
        const now = await cluster.state(callKey, userId);
        if (now && now.n !== node) this.applySet(callKey, now);
        else this.applyDel(callKey, userId);
      }
    }
    // Calls whose owner is gone: claim; the winner sends every member's session a fresh VOICE_SERVER_UPDATE.
    for (const [callKey, call] of [...this.host.calls]) {
      if (call.states.size === 0 || cluster.owns(callKey) || (await cluster.ownerOf(callKey))) continue;
      const claim = await cluster.claim(callKey);
      if (claim.claimed) await this.moveCall(callKey);
    }
  }

  /** This node now owns a call whose owner died: each member (but `except`) connects to our voice gateway with a new token. */
  private async moveCall(callKey: string, except?: string): Promise<void> {
    const call = this.host.calls.get(callKey);
    if (!call || !this.cluster) return;
    this.log.info({ callKey, members: call.states.size }, 'voice call moved to this node');
    for (const s of [...call.states.values()]) {
      if (s.session_id === except) continue;
      const token = await this.host.issueToken({ id: s.session_id, userId: s.user_id, applicationId: call.applicationId }, callKey, call.guildId);
      const json = JSON.stringify({ token, guild_id: call.guildId, lobby_id: callKey, endpoint: this.cluster.endpoint() });
      // The session's node as Redis has it now, not as our view last heard: a session adopted by
      // another node just before our claim is reached there (after the claim, adoptSession itself
      // finds the seat gone and sends one), so no member is left pointing at the dead owner.
      const home = (await this.cluster.state(callKey, s.user_id))?.n ?? this.homes.get(homeKey(callKey, s.user_id));
      this.toSession(home, s.session_id, DispatchEvent.VoiceServerUpdate, json);
    }
  }

  /** Stops the rounds and the bus subscriptions, then the Redis side. */
  async close(): Promise<void> {
    if (this.clusterTimer) clearInterval(this.clusterTimer);
    this.clusterTimer = null;
    for (const u of this.clusterUnsubscribes.splice(0)) u();
    await this.clusterTick?.catch(() => {});
    await this.cluster?.close();
  }
}

export function homeKey(callKey: string, userId: string): string {
  return `${callKey}\n${userId}`;
}
