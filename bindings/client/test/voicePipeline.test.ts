// The media pipeline without a server: two pipelines wired back to back (the sender's sealed
// packets go straight into the receiver), with DAVE keys from one shared base secret. Covers
// the audio rules (tone in, same tone out; PTT, mute, deafen and volume) and loss concealment.
import { afterEach, describe, expect, it } from 'vitest';
import { HashRatchet, TransportMode } from '@social-layer/core-wasm';
import { AudioModeType } from '../src/index.ts';
import { opusScriptCodec } from '../src/voice/codec/OpusScriptCodec.ts';
import { MediaPipeline, type PipelineHost } from '../src/voice/MediaPipeline.ts';
import { Recorder, concat as concatFrames, rms, spectralPeak, tone } from './voiceAudio.ts';
import { sleep, waitFor } from './helpers.ts';

const KEY = new Uint8Array(32).fill(7);
const BASE_SECRET = new Uint8Array(16).fill(9);
const pipelines: MediaPipeline[] = [];

afterEach(() => {
  for (const p of pipelines.splice(0)) p.destroy();
});

interface Pair {
  alice: MediaPipeline;
  bob: MediaPipeline;
  recorder: Recorder;
  speaking: string[];
  /** Drop every n-th packet on the way (0 = none). */
  lossEvery: { n: number };
}

async function pair(): Promise<Pair> {
  const speaking: string[] = [];
  const lossEvery = { n: 0 };
  let count = 0;
  let bob: MediaPipeline | undefined;
  const aliceHost: PipelineHost = {
    sendPacket: (packet) => {
      count++;
      if (lossEvery.n > 0 && count % lossEvery.n === 0) return;
      bob?.receivePacket(packet.slice());
    },
    speaking: (s) => speaking.push(`op5:${s}`),
    playing: (user, s) => speaking.push(`${user}:${s}`),
  };
  const bobHost: PipelineHost = {
    sendPacket: () => {},
    speaking: () => {},
    playing: (user, s) => speaking.push(`${user}:${s}`),
  };
  const alice = await MediaPipeline.create({ codec: opusScriptCodec, selfId: '1', host: aliceHost });
  bob = await MediaPipeline.create({ codec: opusScriptCodec, selfId: '2', host: bobHost });
  pipelines.push(alice, bob);
  for (const p of [alice, bob]) {
    p.setTransportKey(TransportMode.Aes256GcmRtpsize, KEY);
    p.connected = true;
  }
  alice.setSsrc(1111);
  alice.keys.setOwnRatchet(new HashRatchet(alice.core, BASE_SECRET));
  bob.keys.setSenderRatchet('1', new HashRatchet(bob.core, BASE_SECRET));
  bob.mapSsrc(1111, '1');
  const recorder = new Recorder();
  bob.onReceived = recorder.callback;
  alice.start();
  bob.start();
  return { alice, bob, recorder, speaking, lossEvery };
}

describe('media pipeline', { timeout: 20_000 }, () => {
  it('a 440 Hz tone arrives as a 440 Hz tone, E2EE-encrypted on the wire', async () => {
    const { alice, bob, recorder } = await pair();
    const encoded: Uint8Array[] = [];
    const wire: Uint8Array[] = [];
    alice.taps.encoded = (opus) => encoded.push(opus.slice());
    bob.taps.received = (_user, frame) => wire.push(frame.slice());
    alice.pushCapturedAudio(tone(440, 0.8));
    await waitFor(() => recorder.framesOf('1') >= 30, 'bob hears alice');
    const heard = recorder.samplesOf('1', 5);
    expect(Math.abs(spectralPeak(heard) - 440)).toBeLessThanOrEqual(10);
    expect(rms(heard)).toBeGreaterThan(0.15);
    expect(encoded.length).toBeGreaterThan(10);
    // Under the transport layer every frame is a DAVE frame (FA FA marker) or the silence frame,
    // and no Opus payload appears in the clear.
    for (const frame of wire) {
      const silence = frame.length === 3 && frame[0] === 0xf8;
      expect(silence || (frame.at(-1) === 0xfa && frame.at(-2) === 0xfa)).toBe(true);
    }
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    const wireHex = wire.map(hex).join('|');
    for (const opus of encoded.filter((o) => o.length > 8)) expect(wireHex.includes(hex(opus.subarray(0, 8)))).toBe(false);
  });

  it('push-to-talk sends only while active (and for the release delay)', async () => {
    const { alice, recorder } = await pair();
    alice.gate.mode = AudioModeType.MODE_PTT;
    alice.pushCapturedAudio(tone(440, 0.4));
    await sleep(500);
    expect(recorder.loudFrames('1')).toBe(0);
    alice.gate.setPTTActive(true, performance.now());
    alice.pushCapturedAudio(tone(440, 0.4));
    await waitFor(() => recorder.loudFrames('1') >= 10, 'audio while PTT is held');
    alice.gate.pttReleaseDelayMs = 0;
    alice.gate.setPTTActive(false, performance.now());
    await sleep(300);
    recorder.clear();
    alice.pushCapturedAudio(tone(440, 0.4));
    await sleep(600);
    expect(recorder.loudFrames('1')).toBe(0);
  });

  it('self-mute and deafen stop the audio', async () => {
    const { alice, bob, recorder } = await pair();
    alice.setSelfMute(true);
    alice.pushCapturedAudio(tone(440, 0.4));
    await sleep(600);
    expect(recorder.loudFrames('1')).toBe(0);
    alice.setSelfMute(false);
    bob.setSelfDeaf(true);
    alice.pushCapturedAudio(tone(440, 0.4));
    await sleep(600);
    expect(recorder.loudFrames('1')).toBe(0);
    bob.setSelfDeaf(false);
    alice.pushCapturedAudio(tone(440, 0.6));
    await waitFor(() => recorder.loudFrames('1') >= 10, 'audio after undeafen');
  });

  it('participant volume scales what is heard', async () => {
    const { alice, bob, recorder } = await pair();
    alice.pushCapturedAudio(tone(440, 0.6));
    await waitFor(() => recorder.framesOf('1') >= 25, 'full volume audio');
    const full = rms(recorder.samplesOf('1', 8).subarray(0, 960 * 12));
    await sleep(400);
    recorder.clear();
    bob.setParticipantVolume('1', 50);
    alice.pushCapturedAudio(tone(440, 0.6));
    await waitFor(() => recorder.framesOf('1') >= 25, 'half volume audio');
    const half = rms(recorder.samplesOf('1', 8).subarray(0, 960 * 12));
    expect(half / full).toBeGreaterThan(0.4);
    expect(half / full).toBeLessThan(0.6);
  });

  it('conceals lost packets and reports speaking', async () => {
    const { alice, bob, recorder, speaking, lossEvery } = await pair();
    lossEvery.n = 5;
    alice.pushCapturedAudio(tone(440, 0.8));
    await waitFor(() => recorder.framesOf('1') >= 35, 'audio with loss');
    expect(bob.stats.framesConcealed).toBeGreaterThan(3);
    // With one packet in five concealed, the tone survives within one 10 Hz analysis step.
    expect(Math.abs(spectralPeak(recorder.samplesOf('1', 5)) - 440)).toBeLessThanOrEqual(10);
    await waitFor(() => speaking.includes('1:false') && speaking.includes('op5:false'), 'speaking stops');
    expect(speaking).toContain('1:true');
    expect(speaking).toContain('op5:true');
  });

  it('input volume scales what is sent; output volume scales the mix', async () => {
    const { alice, bob, recorder } = await pair();
    const mixed: Int16Array[] = [];
    bob.onMixed = (frame) => mixed.push(frame.slice());
    alice.pushCapturedAudio(tone(440, 0.6));
    await waitFor(() => recorder.framesOf('1') >= 25, 'reference audio');
    const heardFull = rms(recorder.samplesOf('1', 8).subarray(0, 960 * 12));
    const mixedFull = rms(concatFrames(mixed.slice(8, 20)));
    await sleep(400);
    recorder.clear();
    mixed.length = 0;
    alice.setInputVolume(50);
    bob.setOutputVolume(200);
    alice.pushCapturedAudio(tone(440, 0.6));
    await waitFor(() => recorder.framesOf('1') >= 25, 'scaled audio');
    const heardHalf = rms(recorder.samplesOf('1', 8).subarray(0, 960 * 12));
    const mixedAfter = rms(concatFrames(mixed.slice(8, 20)));
    // Input at 50 halves what arrives; output at 200 doubles it again in the mix.
    expect(heardHalf / heardFull).toBeGreaterThan(0.4);
    expect(heardHalf / heardFull).toBeLessThan(0.6);
    expect(mixedAfter / mixedFull).toBeGreaterThan(0.85);
    expect(mixedAfter / mixedFull).toBeLessThan(1.15);
  });
});
