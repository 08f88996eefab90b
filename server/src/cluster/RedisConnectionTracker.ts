import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { ConnectionListener, ConnectionTracker } from '../events/ConnectionTracker.ts';
import { connectionKey, LocalSessionCounts } from '../events/LocalSessionCounts.ts';
import type { Logger } from '../log/Logger.ts';
import { ATTACH, DETACH, HEARTBEAT, JOIN, LEAVE, REAP } from './connectionScripts.ts';
import { ConnectionMirror, splitKey } from './ConnectionMirror.ts';

export interface RedisConnectionTrackerOptions {
  url: string;
  /** Prefix of the tracker's keys and channel; nodes of one cluster share it. */
  prefix: string;
  /** How long a dropped socket still counts (a quick Resume does not flicker). */
  graceMs: number;
  /** How often the node refreshes its liveness and looks for dead nodes. Default 5000. */
  heartbeatMs?: number;
  /** How long the node's entries outlive its last refresh. Default 3 x heartbeatMs. */
  ttlMs?: number;
  log?: Logger;
}

/** Shared keys outlive an abandoned cluster by this much (renewed on every heartbeat). */
const KEEP_MS = 24 * 3600_000;

type ScriptReply = (string | number)[];
type Scripts = Record<'slcAttach' | 'slcDetach' | 'slcJoin' | 'slcHeartbeat' | 'slcReap' | 'slcLeave', (...args: (string | number)[]) => Promise<unknown>>;

/**
 * Connection state shared by every node through Redis (issue 18). Each node keeps its own
 * session counts (with the grace period) in memory and records in Redis which (application,
 * user) it holds, under a liveness key it refreshes every heartbeat. A user is connected while any
 * live node holds them. When a node stops refreshing (killed, frozen, cut off) its liveness
 * lapses; the first survivor to look reaps it in one atomic script, and the users nobody else
 * holds go offline, announced once (by that survivor, or by the node that announced the user's
 * previous transition moments before: see connectionScripts.ts). Reads come from a local mirror of the cluster's state kept current by the
 * scripts' own notifications. See connectionScripts.ts for the keys.
 */
export class RedisConnectionTracker implements ConnectionTracker {
  readonly nodeId = randomBytes(8).toString('hex');
  private readonly redis: Redis & Scripts;
  private readonly sub: Redis;
  private readonly listeners = new Set<ConnectionListener>();
  private readonly local: LocalSessionCounts;
  private readonly mirror = new ConnectionMirror();
  private readonly heartbeatMs: number;
  private readonly ttlMs: number;
  private readonly channel: string;
  /** Notifications that arrived before the snapshot: applied after it, in order. */
  private early: string[] | null = [];
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<unknown>>();
  private closing = false;

  static async start(options: RedisConnectionTrackerOptions): Promise<RedisConnectionTracker> {
    const tracker = new RedisConnectionTracker(options);
    try {
      await tracker.open();
    } catch (err) {
      tracker.abandon();
      throw err;
    }
    return tracker;
  }

  private constructor(private readonly options: RedisConnectionTrackerOptions) {
    this.heartbeatMs = options.heartbeatMs ?? 5000;
    this.ttlMs = options.ttlMs ?? this.heartbeatMs * 3;
    if (!(this.heartbeatMs > 0) || !(this.ttlMs > this.heartbeatMs)) throw new Error('cluster heartbeat must be positive and shorter than the TTL');
    this.channel = `${options.prefix}events`;
    this.redis = new Redis(options.url, { maxRetriesPerRequest: 3 }) as Redis & Scripts;
    // Named, so an operator (or a test) can tell this node's subscriber among Redis's clients.
    this.sub = new Redis(options.url, { maxRetriesPerRequest: 3, connectionName: `slc-sub-${this.nodeId}` });
    // ioredis reconnects by itself; without a listener each failed attempt would print to stderr.
    for (const c of [this.redis, this.sub]) c.on('error', (err: Error) => this.options.log?.debug({ err }, 'cluster redis connection error'));
    for (const [name, lua] of [
      ['slcAttach', ATTACH],
      ['slcDetach', DETACH],
      ['slcJoin', JOIN],
      ['slcHeartbeat', HEARTBEAT],
      ['slcReap', REAP],
      ['slcLeave', LEAVE],
    ] as const) {
      this.redis.defineCommand(name, { numberOfKeys: 0, lua });
    }
    this.local = new LocalSessionCounts(options.graceMs, (applicationId, userId, connected) => this.localTransition(applicationId, userId, connected));
  }

  onChange(listener: ConnectionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  isConnected(applicationId: string, userId: string): boolean {
    // This node's own sessions count at once, before Redis has answered (READY shows its user connected).
    return this.local.count(applicationId, userId) > 0 || this.mirror.has(applicationId, userId);
  }

  appsOf(userId: string): ReadonlySet<string> {
    return new Set([...this.local.appsOf(userId), ...this.mirror.appsOf(userId)]);
  }

  attach(applicationId: string, userId: string): void {
    if (!this.closing) this.local.attach(applicationId, userId);
  }

  detach(applicationId: string, userId: string, graceful: boolean): void {
    if (!this.closing) this.local.detach(applicationId, userId, graceful);
  }

  /**
   * Graceful shutdown: sessions closing now are not dropped one by one; the node's entries lapse
   * after the grace period instead, so its players reconnecting elsewhere meanwhile never look
   * offline, and a survivor announces those who do not come back.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.stopTimers();
    await this.ticking;
    await Promise.allSettled([...this.inFlight]);
    try {
      await this.redis.slcLeave(this.options.prefix, this.nodeId, this.options.graceMs);
    } catch (err) {
      this.options.log?.warn({ err }, 'cluster leave failed; the node will lapse by expiry');
    }
    await Promise.allSettled([this.redis.quit(), this.sub.quit()]);
  }

  /**
   * Stops refreshing and drops the Redis connections without a word, as a killed process would:
   * the other nodes find out by expiry. For tests of node death.
   */
  abandon(): void {
    this.closing = true;
    this.stopTimers();
    this.redis.disconnect();
    this.sub.disconnect();
  }

  // ---- internals ----------------------------------------------------------------------------

  private async open(): Promise<void> {
    this.sub.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.onNotification(message);
    });
    await this.sub.subscribe(this.channel);
    // Subscribed first, then the snapshot: a transition is either in it or heard after it.
    const [[, seq], [, keys]] = (await this.redis.multi().get(`${this.options.prefix}seq`).hkeys(`${this.options.prefix}holders`).exec()) as [[null, string | null], [null, string[]]];
    this.mirror.load(Number(seq ?? 0), keys);
    const early = this.early ?? [];
    this.early = null;
    for (const m of early) this.onNotification(m);
    await this.join();
    // ioredis reconnects and subscribes again by itself, but what was published meanwhile is gone.
    this.sub.on('ready', () => this.resync());
    this.timer = setInterval(() => this.tick(), this.heartbeatMs);
    // The first look for dead nodes comes after the services have subscribed to onChange.
    setImmediate(() => this.tick());
  }

  /**
   * The subscriber is back after a drop: the mirror is loaded again from a snapshot, as at start
   * (notifications that arrive meanwhile are held and applied after it). Without it the node read
   * the cluster's state as it was before the drop until each user's next transition. Transitions
   * published during the drop are not announced again: the mirror comes right, but one this node
   * was to announce (the announce window names it for a transition another node's script made)
   * is not heard by its listeners.
   */
  private resync(): void {
    if (this.closing || this.early) return;
    this.early = [];
    this.track(
      (async () => {
        try {
          // Resolves once the subscription is live again (ioredis's own resubscribe may still be on its way).
          await this.sub.subscribe(this.channel);
          const [[, seq], [, keys]] = (await this.redis.multi().get(`${this.options.prefix}seq`).hkeys(`${this.options.prefix}holders`).exec()) as [[null, string | null], [null, string[]]];
          this.mirror.load(Number(seq ?? 0), keys);
          this.options.log?.warn({ nodeId: this.nodeId }, 'cluster subscription was cut; connection state reloaded');
        } finally {
          const early = this.early ?? [];
          this.early = null;
          for (const m of early) this.onNotification(m);
        }
      })(),
    );
  }

  private onNotification(message: string): void {
    if (this.early) {
      this.early.push(message);
      return;
    }
    if (message === 'reap') {
      if (!this.closing) this.tick();
      return;
    }
    const [seq, connected, k, by] = message.split('\n');
    if (!seq || !k) return;
    this.deliver(Number(seq), connected === '1', k, by ?? '');
  }

  private localTransition(applicationId: string, userId: string, connected: boolean): void {
    if (this.closing) return;
    const k = connectionKey(applicationId, userId);
    this.track(
      (connected ? this.redis.slcAttach(this.options.prefix, this.nodeId, k) : this.redis.slcDetach(this.options.prefix, this.nodeId, k)).then(async (reply) => {
        const r = reply as ScriptReply;
        // Reaped while alive (a stall longer than the TTL): join again with everything held here.
        if (r[0] === -1) await this.join();
        else this.announce(r);
      }),
    );
  }

  private async join(): Promise<void> {
    const keys = [...this.local.entries()].map(([a, u]) => connectionKey(a, u));
    this.announce((await this.redis.slcJoin(this.options.prefix, this.nodeId, this.ttlMs, KEEP_MS, ...keys)) as ScriptReply);
  }

  /** One heartbeat: refresh liveness (joining again if reaped meanwhile), then reap the dead. */
  private tick(): void {
    if (this.ticking || this.closing) return;
    this.ticking = (async () => {
      try {
        const alive = await this.redis.slcHeartbeat(this.options.prefix, this.nodeId, this.ttlMs, KEEP_MS);
        if (this.closing) return;
        if (alive === 0) {
          this.options.log?.warn({ nodeId: this.nodeId }, 'this node was taken for dead; joining again');
          await this.join();
        }
        if (this.closing) return;
        this.announce((await this.redis.slcReap(this.options.prefix, this.nodeId)) as ScriptReply);
        this.mirror.prune();
      } catch (err) {
        if (!this.closing) this.options.log?.warn({ err }, 'cluster heartbeat failed');
      } finally {
        this.ticking = null;
      }
    })();
  }

  /** Transitions this node's script made (the same ones come back on the channel later). */
  private announce(reply: ScriptReply): void {
    for (let i = 0; i + 3 < reply.length; i += 4) this.deliver(Number(reply[i]), Number(reply[i + 1]) === 1, String(reply[i + 2]), String(reply[i + 3]));
  }

  /**
   * One transition, from a script's reply or from the channel, whichever comes first: the mirror
   * takes it (so listeners read the new state), and the listeners hear it only on the node the
   * script named as its announcer, and only while it is the key's newest transition. The channel
   * brings a key's transitions in order, and the scripts keep a key's announcer for transitions in
   * quick succession, so the listeners of one node hear them in order and the last one they hear
   * is the key's state (a reply overtaken by a newer transition is not announced).
   */
  private deliver(seq: number, connected: boolean, k: string, by: string): void {
    const [applicationId, userId] = splitKey(k);
    if (!this.mirror.apply(applicationId, userId, seq, connected) || by !== this.nodeId) return;
    for (const l of this.listeners) l(applicationId, userId, connected);
  }

  /** Runs one heartbeat and reap now, after any in progress (tests drive the steps with it). */
  async lookForDead(): Promise<void> {
    await this.ticking;
    this.tick();
    await this.ticking;
  }

  private track(p: Promise<unknown>): void {
    const guarded = p.catch((err: unknown) => {
      if (!this.closing) this.options.log?.error({ err }, 'cluster connection update failed');
    });
    this.inFlight.add(guarded);
    void guarded.finally(() => this.inFlight.delete(guarded));
  }

  private stopTimers(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.local.close();
  }
}
