import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from '../log/Logger.ts';
import { SNOWFLAKE_NODES } from '../storage/Snowflake.ts';

/** Refreshes the lease only while it is still ours (a node that stalled past the TTL lost it). */
const REFRESH_IF_MINE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const DELETE_IF_MINE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export interface SnowflakeLeaseOptions {
  url: string;
  /** Key prefix (the node's Redis prefix): clusters and tests sharing one Redis lease apart. */
  prefix: string;
  /** How long a lease lasts without refresh; refreshed every third of it. Default 60 s. */
  ttlMs?: number;
  log: Logger;
  /** Told the new number when a lapsed lease was replaced by another. */
  onChange?: (node: number) => void;
}

/**
 * The node bits of this node's Snowflake IDs (10 bits: Discord's worker and process fields),
 * leased from Redis so that no two live nodes mint with the same ones. Drawn, each node's bits
 * collided: in containers the pid is 1 on every node, which left 5 random bits, and two nodes
 * that shared them minted equal IDs in one millisecond (a primary-key failure of the write that
 * drew it). A node takes the first free number from a shared counter (`SET NX PX`), refreshes it,
 * and releases it on close; a crashed node's number lapses after the TTL. A node that stalled
 * past the TTL finds its number gone at its next refresh and takes another.
 */
export class SnowflakeLease {
  private readonly owner = randomBytes(8).toString('hex');
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;

  private constructor(
    private readonly redis: Redis,
    private readonly options: SnowflakeLeaseOptions & { ttlMs: number },
    private current: number,
  ) {}

  /** Leases a free number; throws when all are held (more than 1,024 live nodes on one prefix). */
  static async acquire(options: SnowflakeLeaseOptions): Promise<SnowflakeLease> {
    const redis = new Redis(options.url, { maxRetriesPerRequest: 3 });
    const resolved = { ...options, ttlMs: options.ttlMs ?? 60_000 };
    try {
      const lease = new SnowflakeLease(redis, resolved, -1);
      lease.current = await lease.take();
      lease.timer = setInterval(() => {
        lease.refreshing ??= lease.refresh().finally(() => (lease.refreshing = null));
      }, Math.max(1, Math.floor(resolved.ttlMs / 3)));
      lease.timer.unref();
      return lease;
    } catch (err) {
      redis.disconnect();
      throw err;
    }
  }

  /** This node's number, 0-1023. */
  get node(): number {
    return this.current;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.refreshing;
    try {
      await this.redis.eval(DELETE_IF_MINE, 1, this.key(this.current), this.owner);
    } finally {
      this.redis.disconnect();
    }
  }

  private key(n: number): string {
    return `${this.options.prefix}snowflake:${n}`;
  }

  /** The first free number from the shared counter on (the counter spreads nodes' first tries). */
  private async take(): Promise<number> {
    const start = await this.redis.incr(`${this.options.prefix}snowflake:next`);
    for (let i = 0; i < SNOWFLAKE_NODES; i++) {
      const n = (start + i) % SNOWFLAKE_NODES;
      if ((await this.redis.set(this.key(n), this.owner, 'PX', this.options.ttlMs, 'NX')) === 'OK') return n;
    }
    throw new Error(`all ${SNOWFLAKE_NODES} Snowflake node numbers under ${this.options.prefix} are leased`);
  }

  private async refresh(): Promise<void> {
    try {
      if ((await this.redis.eval(REFRESH_IF_MINE, 1, this.key(this.current), this.owner, this.options.ttlMs)) === 1) return;
      const lost = this.current;
      this.current = await this.take();
      this.options.log.error({ lost, node: this.current }, 'Snowflake node number lapsed (this node stalled past its lease); took another');
      this.options.onChange?.(this.current);
    } catch (err) {
      // Redis away: the lease runs until its TTL; the next refresh tries again.
      this.options.log.warn({ err }, 'Snowflake node lease not refreshed');
    }
  }
}
