/**
 * "At most once per interval for each key", in bounded memory. The Resume streams' upkeep (the
 * key's expiry renewed with `PEXPIRE`, the age trim with `TIME` plus an `XTRIM` or an `XRANGE`,
 * inside the append scripts) ran on every append: six of the 13 Redis commands of a dispatch,
 * nearly always renewing an expiry far off and finding nothing to trim. Each node now asks for it
 * about once per interval per stream; a stream the scripts create gets its expiry at once
 * whatever this says (XADD NOMKSTREAM tells them). A trim that comes later only keeps entries a
 * little longer (memory); none that a Resume needs ever goes earlier, since the bound itself is
 * unchanged (resumeKeys.streamMaxAgeMs). The interval is a sixteenth of the expiry too, so a
 * stream is renewed long before its expiry while it is written.
 *
 * Two generations of keys, swapped every interval: a key that was due is not due again until it
 * has left both, one to two intervals later. Memory is the keys seen in the last two intervals.
 */
export class TrimClock {
  private current = new Set<string>();
  private previous = new Set<string>();
  private swappedAt: number;

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.swappedAt = now();
  }

  due(key: string): boolean {
    const now = this.now();
    if (now - this.swappedAt >= this.intervalMs) {
      // Two intervals or more since the last swap: nothing in either generation is recent.
      this.previous = now - this.swappedAt >= 2 * this.intervalMs ? new Set() : this.current;
      this.current = new Set();
      this.swappedAt = now;
    }
    if (this.current.has(key) || this.previous.has(key)) return false;
    this.current.add(key);
    return true;
  }
}

/**
 * How often a stream's upkeep runs at most: a sixteenth of the age bound or of the expiry,
 * whichever is shorter (about 12.7 s by default), so entries outlive the bound by at most two of
 * these (about 10% of it by default) and an expiry is renewed long before it could lapse.
 */
export function trimIntervalMs(maxAgeMs: number, ttlMs: number): number {
  return Math.max(1, Math.floor(Math.min(maxAgeMs, ttlMs) / 16));
}
