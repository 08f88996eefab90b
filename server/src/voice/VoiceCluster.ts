import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { VoiceState } from '@social-layer/protocol';

/** A voice state as kept in Redis: the state, the node holding its Gateway session, and its call's owner. */
export interface StoredVoiceState {
  /** The voice state (wire shape; a guild call's has the guild fields too). */
  s: VoiceState;
  /** Node id of the Gateway session's node (it refreshes its liveness key; when that lapses, the state does). */
  n: string;
  /** Application of the call. */
  a: string;
  /** Guild of a guild voice channel's call, else null. */
  g: string | null;
}

export interface CallOwner {
  nodeId: string;
  /** `host:port/voice` of the owner's own voice gateway (not the load-balanced URL). */
  endpoint: string;
}

export interface VoiceClusterOptions {
  /** Key prefix, so several clusters (tests) share one Redis. Default `sl:voice:`. */
  prefix?: string;
  /** How long a call owner's claim and a node's liveness last without refresh. Default 5000 ms. */
  ttlMs?: number;
  /** How often claims and liveness are refreshed and dead nodes looked for. Default 1000 ms. */
  intervalMs?: number;
  /**
   * How long a dead node's voice states wait before they lapse, after its liveness expired:
   * time for its Gateway sessions to resume on another node, which adopts them. Default 2 x ttlMs
   * (with the TTL, 15 s after the last refresh): a resume that comes after the lapse finds the
   * member out of the call, and reconnects under load were seen to take up to 14 s.
   */
  stateGraceMs?: number;
}

/** Refreshes a claim only while it is still ours: a node that stalled past its TTL must not take back a moved call. */
const REFRESH_IF_MINE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const DELETE_IF_MINE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
/** Drops a call from the index once its last state is gone (atomic against a join that HSETs meanwhile). */
const UNINDEX_IF_EMPTY = `if redis.call('HLEN', KEYS[1]) == 0 then return redis.call('SREM', KEYS[2], ARGV[1]) else return 0 end`;
/** Removes a state only while its Gateway session's node is still the one named (a dead node's). */
const REMOVE_IF_HOME = `
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v or cjson.decode(v).n ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
`;
/** Writes a state only where one is stored already (an adoption must not bring back a lapsed one). */
const SAVE_IF_PRESENT = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`;

/**
 * Voice's shared state across server nodes (issue 18), on Redis: who owns each call (SET NX PX,
 * refreshed by the owner), single-use voice tokens (by hash, 60 s), voice states with the node
 * that holds their Gateway session, which seats the owner's voice gateway holds, and each node's
 * liveness. Only plain Redis commands and three small scripts: no cluster protocol of our own.
 */
export class VoiceCluster {
  readonly nodeId = randomBytes(6).toString('hex');
  readonly prefix: string;
  readonly ttlMs: number;
  readonly intervalMs: number;
  readonly stateGraceMs: number;
  private readonly redis: Redis;
  /** Calls this node claimed and keeps refreshing. */
  private readonly owned = new Set<string>();

  constructor(
    url: string,
    /** This node's voice gateway, `host:port/voice`, read when a claim is made. */
    readonly endpoint: () => string,
    options: VoiceClusterOptions = {},
  ) {
    this.prefix = options.prefix ?? 'sl:voice:';
    // Environment fallbacks, for nodes started by the CLI (the cluster test shortens them).
    this.ttlMs = options.ttlMs ?? envMs('SOCIAL_LAYER_VOICE_TTL_MS') ?? 5000;
    this.intervalMs = options.intervalMs ?? envMs('SOCIAL_LAYER_VOICE_INTERVAL_MS') ?? 1000;
    this.stateGraceMs = options.stateGraceMs ?? envMs('SOCIAL_LAYER_VOICE_STATE_GRACE_MS') ?? 2 * this.ttlMs;
    this.redis = new Redis(url, { maxRetriesPerRequest: 3 });
  }

  async ready(): Promise<void> {
    await this.redis.ping();
    await this.beat();
  }

  /** Bus topic for voice state changes between nodes (prefixed: tests share one Redis). */
  get syncTopic(): string {
    return `${this.prefix}sync`;
  }

  /** Bus topic on which a node takes dispatches for its own Gateway sessions (VOICE_SERVER_UPDATE after a move). */
  sessionTopic(nodeId: string): string {
    return `${this.prefix}sessions:${nodeId}`;
  }

  // ---- node liveness ---------------------------------------------------------------------------

  /** Refreshes this node's liveness and its calls' claims; returns the claims it lost. */
  async beat(): Promise<string[]> {
    const owned = [...this.owned];
    const pipe = this.redis.pipeline().set(this.key('node', this.nodeId), '1', 'PX', this.ttlMs);
    for (const call of owned) pipe.eval(REFRESH_IF_MINE, 1, this.key('owner', call), this.ownerValue(), this.ttlMs);
    const results = (await pipe.exec()) ?? [];
    const lost: string[] = [];
    owned.forEach((call, i) => {
      if (results[i + 1]?.[1] !== 1) {
        this.owned.delete(call);
        lost.push(call);
      }
    });
    return lost;
  }

  /** Which of these nodes have stopped refreshing their liveness. */
  async deadNodes(nodeIds: Iterable<string>): Promise<Set<string>> {
    const ids = [...new Set(nodeIds)].filter((id) => id !== this.nodeId);
    if (ids.length === 0) return new Set();
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.exists(this.key('node', id));
    const results = (await pipe.exec()) ?? [];
    return new Set(ids.filter((_, i) => results[i]?.[1] === 0));
  }

  // ---- call owners ----------------------------------------------------------------------------

  /** The call's owner, claiming it for this node when it has none. `claimed` is true when this call made us the owner. */
  async claim(callKey: string): Promise<CallOwner & { claimed: boolean }> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const ok = await this.redis.set(this.key('owner', callKey), this.ownerValue(), 'PX', this.ttlMs, 'NX');
      if (ok === 'OK') {
        this.owned.add(callKey);
        // Seats recorded by a previous owner are gone with it.
        await this.redis.del(this.key('seats', callKey));
        return { nodeId: this.nodeId, endpoint: this.endpoint(), claimed: true };
      }
      const owner = await this.ownerOf(callKey);
      if (owner) {
        if (owner.nodeId === this.nodeId) this.owned.add(callKey);
        return { ...owner, claimed: false };
      }
    }
    throw new Error(`voice call ${callKey}: no owner could be claimed`);
  }

  async ownerOf(callKey: string): Promise<CallOwner | undefined> {
    const value = await this.redis.get(this.key('owner', callKey));
    if (!value) return undefined;
    const nl = value.indexOf('\n');
    return { nodeId: value.slice(0, nl), endpoint: value.slice(nl + 1) };
  }

  owns(callKey: string): boolean {
    return this.owned.has(callKey);
  }

  /** The call ended here: let the next join claim it anew (only while the claim is still ours). */
  async release(callKey: string): Promise<void> {
    if (!this.owned.delete(callKey)) return;
    await this.redis.eval(DELETE_IF_MINE, 1, this.key('owner', callKey), this.ownerValue());
  }

  // ---- seats (the owner's voice gateway holds a voice session for the user) -------------------

  async setSeat(callKey: string, userId: string, present: boolean): Promise<void> {
    if (present) await this.redis.pipeline().sadd(this.key('seats', callKey), userId).pexpire(this.key('seats', callKey), 24 * 3600_000).exec();
    else await this.redis.srem(this.key('seats', callKey), userId);
  }

  async hasSeat(callKey: string, userId: string): Promise<boolean> {
    return (await this.redis.sismember(this.key('seats', callKey), userId)) === 1;
  }

  // ---- voice tokens (by hash only: the token itself never reaches Redis) -----------------------

  async putToken(tokenHash: string, grant: unknown, ttlMs: number): Promise<void> {
    await this.redis.set(this.key('token', tokenHash), JSON.stringify(grant), 'PX', ttlMs);
  }

  async peekToken<T>(tokenHash: string): Promise<T | undefined> {
    const value = await this.redis.get(this.key('token', tokenHash));
    return value ? (JSON.parse(value) as T) : undefined;
  }

  /** Single use: true for the one caller that deleted it. */
  async takeToken(tokenHash: string): Promise<boolean> {
    return (await this.redis.del(this.key('token', tokenHash))) === 1;
  }

  // ---- voice states ---------------------------------------------------------------------------

  async saveState(callKey: string, stored: StoredVoiceState): Promise<void> {
    await this.redis.pipeline().hset(this.key('states', callKey), stored.s.user_id, JSON.stringify(stored)).sadd(this.key('calls'), callKey).exec();
  }

  async state(callKey: string, userId: string): Promise<StoredVoiceState | undefined> {
    const value = await this.redis.hget(this.key('states', callKey), userId);
    return value ? (JSON.parse(value) as StoredVoiceState) : undefined;
  }

  /**
   * Removes a state. True for exactly one caller per stored state (HDEL is atomic), which makes
   * that caller the one node that announces the leave of a dead node's member.
   */
  async removeState(callKey: string, userId: string): Promise<boolean> {
    const removed = (await this.redis.hdel(this.key('states', callKey), userId)) === 1;
    if (removed) await this.redis.eval(UNINDEX_IF_EMPTY, 2, this.key('states', callKey), this.key('calls'), callKey);
    return removed;
  }

  /**
   * The lapse of a dead node's member: removed only if the state still names that node as its
   * session's; true for the one caller that removed it (that node announces the leave). A state
   * another node adopted meanwhile (the session resumed there) stays: removed unconditionally, the
   * resumed member was announced gone and dropped from the call.
   */
  async removeStateOf(callKey: string, userId: string, home: string): Promise<boolean> {
    const removed = (await this.redis.eval(REMOVE_IF_HOME, 1, this.key('states', callKey), userId, home)) === 1;
    if (removed) await this.redis.eval(UNINDEX_IF_EMPTY, 2, this.key('states', callKey), this.key('calls'), callKey);
    return removed;
  }

  /**
   * An adoption's write (the session resumed on this node): only over a state still stored.
   * False when it lapsed before (its leave was announced): written anyway, it came back as a
   * state no node would ever lapse or end.
   */
  async adoptState(callKey: string, stored: StoredVoiceState): Promise<boolean> {
    return (await this.redis.eval(SAVE_IF_PRESENT, 1, this.key('states', callKey), stored.s.user_id, JSON.stringify(stored))) === 1;
  }

  /** Every call's states (a node starting up seeds its view from them). */
  async allStates(): Promise<Map<string, StoredVoiceState[]>> {
    const calls = await this.redis.smembers(this.key('calls'));
    const out = new Map<string, StoredVoiceState[]>();
    for (const callKey of calls) {
      const all = await this.redis.hgetall(this.key('states', callKey));
      const states = Object.values(all).map((v) => JSON.parse(v) as StoredVoiceState);
      if (states.length > 0) out.set(callKey, states);
    }
    return out;
  }

  /** Graceful shutdown: give up claims and liveness at once, so survivors take over without waiting out the TTL. */
  async close(): Promise<void> {
    try {
      for (const call of [...this.owned]) await this.release(call);
      await this.redis.del(this.key('node', this.nodeId));
    } catch {
      // Redis gone: the keys lapse by themselves.
    }
    await this.redis.quit().catch(() => {});
  }

  private ownerValue(): string {
    return `${this.nodeId}\n${this.endpoint()}`;
  }

  private key(kind: string, id?: string): string {
    return id === undefined ? `${this.prefix}${kind}` : `${this.prefix}${kind}:${id}`;
  }
}

function envMs(name: string): number | undefined {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : undefined;
}
