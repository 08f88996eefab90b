import { describe, expect, it } from 'vitest';
import { TrimClock, trimIntervalMs } from '../src/events/trimClock.ts';

describe('TrimClock (how often the Resume streams are age-trimmed)', () => {
  it('is due once per key, then again one to two intervals later, never sooner', () => {
    let now = 1_000;
    const clock = new TrimClock(100, () => now);
    expect(clock.due('a')).toBe(true);
    expect(clock.due('a')).toBe(false);
    expect(clock.due('b')).toBe(true);
    now += 99;
    expect(clock.due('a')).toBe(false);
    now += 1; // one interval: a moves to the previous generation, still not due
    expect(clock.due('a')).toBe(false);
    expect(clock.due('c')).toBe(true);
    now += 100; // two intervals: a has left both generations
    expect(clock.due('a')).toBe(true);
    // c was marked in the generation that just became the previous one.
    expect(clock.due('c')).toBe(false);
  });

  it('forgets everything after a quiet spell of two intervals (memory is the recent keys only)', () => {
    let now = 0;
    const clock = new TrimClock(50, () => now);
    for (let i = 0; i < 1000; i++) expect(clock.due(`k${i}`)).toBe(true);
    now += 250;
    for (let i = 0; i < 1000; i++) expect(clock.due(`k${i}`)).toBe(true);
  });

  it('keeps a stream a sixteenth of the age bound or of its expiry apart, whichever is shorter', () => {
    expect(trimIntervalMs(262_500, 202_500)).toBe(12_656);
    expect(trimIntervalMs(1_500, 202_500)).toBe(93);
    expect(trimIntervalMs(10, 10)).toBe(1);
  });
});
