// The receive side sizes its jitter buffer from the measured interarrival jitter (RFC 3550):
// a quiet network plays after 2 frames (40 ms), a jittery one waits for more.
import { describe, expect, it } from 'vitest';
import { JitterPop, VoiceCore } from '@social-layer/core-wasm';
import { ReceiveStream } from '../src/voice/ReceiveStream.ts';

const FRAME = new Uint8Array([1, 2, 3, 4]);

/** Pushes `n` frames (seq from `start`) and reports how many pops give a frame before Empty. */
function playable(stream: ReceiveStream, start: number, n: number): number {
  for (let i = 0; i < n; i++) stream.jitter.push(start + i, (start + i) * 960, FRAME, FRAME.length);
  let played = 0;
  while (stream.jitter.pop() >= 0) played++;
  return played;
}

describe('adaptive jitter buffer depth', () => {
  it('plays after 2 frames on a steady network and holds more under jitter', async () => {
    const core = await VoiceCore.create();
    const steady = new ReceiveStream(core, '1', -1, new Int16Array(960));
    for (let i = 0; i < 50; i++) steady.arrived(i * 960, 1000 + i * 20);
    expect(steady.estimatedJitterMs).toBeLessThan(1);
    expect(steady.jitter.pop()).toBe(JitterPop.Empty);
    expect(playable(steady, 0, 1)).toBe(0);
    steady.jitter.reset();
    expect(playable(steady, 100, 2)).toBe(2);

    const jittery = new ReceiveStream(core, '2', -1, new Int16Array(960));
    // Arrivals swing +-25 ms around the 20 ms cadence.
    for (let i = 0; i < 200; i++) jittery.arrived(i * 960, 1000 + i * 20 + (i % 2 === 0 ? 25 : -25));
    expect(jittery.estimatedJitterMs).toBeGreaterThan(20);
    expect(playable(jittery, 0, 4)).toBe(0);
    jittery.jitter.reset();
    expect(playable(jittery, 100, 8)).toBe(8);
    steady.destroy();
    jittery.destroy();
  });
});
