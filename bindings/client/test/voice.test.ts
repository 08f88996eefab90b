// Lobby calls end to end against the real server: two Node clients with audio callbacks,
// a tone through Opus, DAVE and the relay; the gates (PTT, mute, deafen), participant volume,
// a transport cut with automatic recovery, and what the relay can see (E2EE).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioModeType, CallStatus } from '../src/index.ts';
import { sleep, startTestServer, waitFor, type Guest, type TestEnv } from './helpers.ts';
import { rms, spectralPeak, tone } from './voiceAudio.ts';
import { callPair } from './voiceHelpers.ts';

let env: TestEnv;
const guests: Guest[] = [];

beforeAll(async () => {
  env = await startTestServer();
});

afterAll(async () => {
  for (const g of guests) await g.client.destroy();
  await env?.close();
});

async function pair(transports?: Parameters<typeof callPair>[1]) {
  const p = await callPair(env, transports);
  guests.push(...p.guests);
  return p;
}

describe('lobby calls', { timeout: 30_000 }, () => {
  it('a 440 Hz tone from one client arrives at the other as 440 Hz (udp)', async () => {
    const { alice, bob } = await pair(['udp']);
    expect(alice.call.voiceConnection?.transportKind).toBe('udp');
    expect(alice.call.getParticipants().sort()).toEqual([alice.guest.userId, bob.guest.userId].sort());
    alice.call.pushCapturedAudio(tone(440, 1));
    await waitFor(() => bob.recorder.framesOf(alice.guest.userId) >= 35, 'bob hears alice');
    const heard = bob.recorder.samplesOf(alice.guest.userId, 5);
    expect(spectralPeak(heard)).toBe(440);
    expect(rms(heard)).toBeGreaterThan(0.1);
    await waitFor(() => bob.speaking.some(([u, s]) => u === alice.guest.userId && s), 'speaking indicator');
  });
});
