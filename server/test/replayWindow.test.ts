import { describe, expect, it } from 'vitest';
import { ReplayWindow } from '../src/voice/ReplayWindow.ts';

/** A plain Set-based model of the rules: accepted once, within 64 of the highest accepted. */
class Model {
  private highest = 0;
  private readonly seen = new Set<number>();
  check(n: number): boolean {
    if (n <= 0 || n >= 0x8000_0000) return false;
    if (n > this.highest) return true;
    return this.highest - n < 64 && !this.seen.has(n);
  }
  accept(n: number): void {
    this.seen.add(n);
    if (n > this.highest) this.highest = n;
  }
}

describe('ReplayWindow', () => {
  it('accepts each nonce once, reordering within 64, nothing older, nothing out of range', () => {
    const w = new ReplayWindow();
    expect(w.check(0)).toBe(false);
    expect(w.check(0x8000_0000)).toBe(false);
    expect(w.check(1)).toBe(true);
    w.accept(1);
    expect(w.check(1)).toBe(false);
    w.accept(100);
    expect(w.check(37)).toBe(true);
    expect(w.check(36)).toBe(false);
    w.accept(37);
    expect(w.check(37)).toBe(false);
    expect(w.check(68)).toBe(true);
  });

  it('agrees with a set-based model over random jumps, reorders and replays (every shift of both words)', () => {
    let seed = 12345;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) % n);
    for (let run = 0; run < 20; run++) {
      const w = new ReplayWindow();
      const m = new Model();
      let next = 1 + rand(10);
      for (let i = 0; i < 5000; i++) {
        const r = rand(10);
        // Mostly forward (by 1 to 70, so shifts across and beyond the 32-bit word), some old or replayed.
        const n = r < 6 ? (next += 1 + rand(r < 3 ? 2 : 70)) : Math.max(1, next - rand(80));
        const expected = m.check(n);
        expect(w.check(n), `nonce ${n} after ${next}`).toBe(expected);
        if (expected) {
          w.accept(n);
          m.accept(n);
        }
      }
    }
  });
});
