/**
 * "At most once per interval for each key", in bounded memory. The Resume streams' age trims (a
 * Redis `TIME` plus an `XTRIM` or an `XRANGE`, inside the append scripts) ran on every append:
 * four of the 13 Redis commands of a dispatch, nearly always finding nothing to trim. Each node
 * now asks for them at most about once per interval per stream. A trim that comes later only keeps
 * entries a little longer (memory); none that a Resume needs ever goes earlier, since the bound
 * itself is unchanged (resumeKeys.streamMaxAgeMs).
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
 * How often a stream's age trim runs at most: a sixteenth of the age bound (about 16 s by
 * default), so entries outlive the bound by at most two of these (about 12% of it).
 */
export function trimIntervalMs(maxAgeMs: number): number {
  return Math.max(1, Math.floor(maxAgeMs / 16));
}
