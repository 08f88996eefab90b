import { randomInt } from 'node:crypto';
import { SNOWFLAKE_EPOCH_MS } from '@social-layer/protocol';

/** Node numbers a Snowflake can tell apart: its 5 worker and 5 process bits together. */
export const SNOWFLAKE_NODES = 1024;

/**
 * Snowflake IDs (protocols.md 2.4): 42 bits of milliseconds, 5 worker bits, 5 process bits and
 * a 12-bit counter. The worker and process bits (the node number, 0-1023) let several server
 * nodes mint IDs without coordinating each ID: in a cluster each node leases its number from
 * Redis (cluster/SnowflakeLease.ts) and sets it here before it mints anything.
 */
export class SnowflakeGenerator {
  private lastMs = 0;
  private counter = 0;
  private workerId: number;
  private processId: number;

  // Alone (no Redis) each process draws its bits: two nodes on one machine whose pids agree in
  // the low 5 bits minted equal IDs in the same millisecond (the webhook crash test's two
  // PostgreSQL nodes hit a duplicate primary key). Ten bits differ unless both collide.
  constructor(workerId = randomInt(32), processId = process.pid & 0x1f) {
    this.workerId = workerId & 0x1f;
    this.processId = processId & 0x1f;
  }

  /** The node number in use (worker and process bits), 0-1023. */
  get node(): number {
    return (this.workerId << 5) | this.processId;
  }

  /** Mint with these node bits from now on (a leased number). */
  setNode(node: number): void {
    if (!Number.isInteger(node) || node < 0 || node >= SNOWFLAKE_NODES) throw new RangeError(`Snowflake node ${node} is not in 0-${SNOWFLAKE_NODES - 1}`);
    this.workerId = node >> 5;
    this.processId = node & 0x1f;
  }

  next(now = Date.now()): string {
    let ms = Math.max(now, this.lastMs);
    if (ms === this.lastMs) {
      this.counter = (this.counter + 1) & 0xfff;
      // Counter wrapped inside one millisecond: borrow the next millisecond so IDs stay unique and ordered.
      if (this.counter === 0) ms += 1;
    } else {
      this.counter = 0;
    }
    this.lastMs = ms;
    const id =
      (BigInt(ms - SNOWFLAKE_EPOCH_MS) << 22n) |
      (BigInt(this.workerId) << 17n) |
      (BigInt(this.processId) << 12n) |
      BigInt(this.counter);
    return id.toString();
  }
}
