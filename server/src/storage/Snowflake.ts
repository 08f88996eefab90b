import { randomInt } from 'node:crypto';
import { SNOWFLAKE_EPOCH_MS } from '@social-layer/protocol';

/**
 * Snowflake IDs (protocols.md 2.4): 42 bits of milliseconds, 5 worker bits, 5 process bits and
 * a 12-bit counter. The worker ID lets several server nodes mint IDs without coordination.
 */
export class SnowflakeGenerator {
  private lastMs = 0;
  private counter = 0;

  // Without a configured worker ID each process draws one: two nodes on one machine whose pids
  // agree in the low 5 bits minted equal IDs in the same millisecond (the webhook crash test's
  // two PostgreSQL nodes hit a duplicate primary key). Ten bits now differ unless both collide.
  constructor(private readonly workerId = randomInt(32), private readonly processId = process.pid & 0x1f) {}

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
      (BigInt(this.workerId & 0x1f) << 17n) |
      (BigInt(this.processId & 0x1f) << 12n) |
      BigInt(this.counter);
    return id.toString();
  }
}
