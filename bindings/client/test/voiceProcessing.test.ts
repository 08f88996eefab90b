// Issue 19, the audio processing and voice diagnostics of the Client in Node, against the real
// server with two clients in a lobby call: RNNoise noise suppression (setNoiseSuppression and
// setNoiseCancellation), the no-input callback (silence fires it, a tone does not), the AEC dump
// (a WAV with the microphone on the left and the call's playback on the right), and the voice
// log file. The browser side (live capture-track constraints, a fake microphone, the download)
// is test/audioBrowser.test.ts.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallStatus, LoggingSeverity } from '../src/index.ts';
import { connectGuest, newSecret, sleep, waitFor, type Guest } from './helpers.ts';
import { goertzel, rms, spectralPeak, tone } from './voiceAudio.ts';
import { startPeer, startVoiceServer, VoiceLab, type CallPeer } from './voiceHelpers.ts';

let env: Awaited<ReturnType<typeof startVoiceServer>>;
const guests: Guest[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  env = await startVoiceServer();
});

afterAll(async () => {
  for (const g of guests) await g.client.destroy();
  await env?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Two guests in one lobby call over websocket; `before` runs on each client before its call starts. */
async function pair(before: (guest: Guest, index: number) => void = () => undefined): Promise<{ alice: CallPeer; bob: CallPeer }> {
  const labs = [new VoiceLab(), new VoiceLab()];
  const [a, b] = await Promise.all(labs.map((lab) => connectGuest(env, undefined, { voice: { transports: ['websocket'], webSocket: lab.ctor as never } })));
  guests.push(a!, b!);
  before(a!, 0);
  before(b!, 1);
  const secret = newSecret();
  const lobbyId = await a!.client.createOrJoinLobby(secret);
  await b!.client.createOrJoinLobby(secret);
  await waitFor(() => a!.client.getLobbyHandle(lobbyId)?.getLobbyMemberHandle(b!.userId), 'bob in the lobby');
  const alice = startPeer(a!, lobbyId, labs[0]!);
  const bob = startPeer(b!, lobbyId, labs[1]!);
  await waitFor(() => alice.call.getStatus() === CallStatus.Connected && bob.call.getStatus() === CallStatus.Connected, 'both calls connected');
  await waitFor(() => alice.call.isE2eeReady() && bob.call.isE2eeReady(), 'E2EE keys on both sides', 10_000);
  return { alice, bob };
}

/** White noise, `seconds` long, at `amplitude` of full scale (a fixed seed: the same every run). */
function noise(seconds: number, amplitude: number): Int16Array {
  let seed = 12345;
  const out = new Int16Array(Math.round(48_000 * seconds));
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out[i] = Math.round(((seed / 0x7fffffff) * 2 - 1) * amplitude * 32767);
  }
  return out;
}

async function pushAndWait(peer: CallPeer, samples: Int16Array): Promise<void> {
  peer.call.pushCapturedAudio(samples);
  await waitFor(() => peer.call.getCapturedFramesQueued() === 0, 'the audio to be sent', (samples.length / 48) + 5000);
  await sleep(200);
}

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

describe('audio processing in Node', { timeout: 60_000 }, () => {
  it('noise suppression runs RNNoise on what is pushed: white noise arrives much weaker with it on', async () => {
    const { alice, bob } = await pair();
    const from = alice.guest.userId;
    // Off by default in Node: what a program pushes is sent as it is.
    expect(alice.guest.client.getAudioProcessing().noiseSuppression).toBe(false);
    // RNNoise settles within a few hundred ms; the second second is compared. (Its reduction
    // depends on the level: about 15 dB at -27 dBFS, much less for very loud noise.)
    const NOISE = () => noise(2, 0.08);
    const settled = () => rms(bob.recorder.samplesOf(from, 50));
    await pushAndWait(alice, NOISE());
    const plain = settled();
    expect(plain).toBeGreaterThan(0.02);

    bob.recorder.clear();
    await alice.guest.client.setNoiseSuppression(true);
    await pushAndWait(alice, NOISE());
    expect(settled()).toBeLessThan(plain * 0.3);

    // The Krisp switch: turns suppression off and cancels noise in its place (RNNoise here).
    await alice.guest.client.setNoiseCancellation(true);
    expect(alice.guest.client.getAudioProcessing()).toMatchObject({ noiseSuppression: false, noiseCancellation: true });
    bob.recorder.clear();
    await pushAndWait(alice, NOISE());
    expect(settled()).toBeLessThan(plain * 0.3);

    await alice.guest.client.setNoiseCancellation(false);
    bob.recorder.clear();
    await pushAndWait(alice, NOISE());
    expect(settled()).toBeGreaterThan(plain * 0.6);
  });

  it('the no-input callback fires for a silent input and not for a tone; it reports the input coming back', async () => {
    const reports: [string, boolean][] = [];
    const { alice, bob } = await pair((guest, index) => {
      guest.client.setNoAudioInputThreshold(-50);
      guest.client.setNoAudioInputCallback((detected) => reports.push([index === 0 ? 'alice' : 'bob', detected]));
    });
    // Alice's headset is muted: 1.5 s of digital silence. Bob talks: a 440 Hz tone.
    await Promise.all([pushAndWait(alice, new Int16Array(48_000 * 1.5)), pushAndWait(bob, tone(440, 1.5, 0.3))]);
    expect(reports).toEqual([['alice', false]]);
    await pushAndWait(alice, tone(440, 0.2, 0.3));
    expect(reports).toEqual([['alice', false], ['alice', true]]);
    // Quiet but not silent (-40 dBFS, over the threshold) is input too.
    await pushAndWait(bob, tone(440, 1.5, 0.01 * Math.SQRT2));
    expect(reports).toEqual([['alice', false], ['alice', true]]);

    // Settings that only count before the first call are ignored now, with a warning on the voice log.
    alice.guest.client.setOpusHardwareCoding(false, false);
    alice.guest.client.setEngineManagedAudioSession(true);
    expect(alice.guest.logs.filter((l) => / ignored: it must be called before/.test(l))).toHaveLength(2);
  });

  it('an AEC dump of the call holds the microphone (left) and what was played (right); the voice log goes to its file', async () => {
    const dir = await tempDir('sl-aec-');
    const { alice, bob } = await pair((guest, index) => {
      if (index === 0) guest.client.setVoiceLogDir(dir, LoggingSeverity.Info);
    });
    alice.guest.client.setAecDump(true);
    // Alice speaks at 660 Hz, then bob at 440 Hz (alice's speakers play it).
    await pushAndWait(alice, tone(660, 1, 0.3));
    await pushAndWait(bob, tone(440, 1, 0.3));
    alice.guest.client.setAecDump(false);
    expect(alice.guest.client.getAecDump()).toBe(false);

    const files = (await readdir(dir)).filter((f) => f.endsWith('.wav'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^social-layer-aec-dump-\d+-\d+\.wav$/);
    const wav = await readFile(join(dir, files[0]!));
    expect(wav.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(wav.subarray(8, 16).toString('ascii')).toBe('WAVEfmt ');
    const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
    expect([view.getUint16(22, true), view.getUint32(24, true), view.getUint16(34, true)]).toEqual([2, 48_000, 16]);
    const dataBytes = view.getUint32(40, true);
    expect(dataBytes).toBe(wav.length - 44);
    const frames = dataBytes / 4;
    const left = new Int16Array(frames);
    const right = new Int16Array(frames);
    for (let i = 0; i < frames; i++) {
      left[i] = view.getInt16(44 + i * 4, true);
      right[i] = view.getInt16(46 + i * 4, true);
    }
    expect(frames).toBeGreaterThan(48_000 * 1.5);
    expect(Math.abs(spectralPeak(left) - 660)).toBeLessThanOrEqual(10);
    expect(Math.abs(spectralPeak(right) - 440)).toBeLessThanOrEqual(10);
    // Each channel holds its own side only.
    expect(goertzel(left, 440)).toBeLessThan(goertzel(left, 660) / 100);
    expect(goertzel(right, 660)).toBeLessThan(goertzel(right, 440) / 10);

    const log = await readFile(join(dir, 'social-layer-voice.log'), 'utf8');
    expect(log).toContain(`AEC dump of call`);
    expect(log).not.toContain(alice.guest.token);
    // setVoiceLogDir after the first call is ignored, as in the native SDK.
    const other = await tempDir('sl-aec-late-');
    alice.guest.client.setVoiceLogDir(other, LoggingSeverity.Info);
    expect(await readdir(other)).toEqual([]);
  });
});
