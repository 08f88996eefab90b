/**
 * Client-pipeline figures for the `voice` benchmark.
 *
 * Latency: two real clients in one lobby call over the real server's relay on loopback (UDP, as
 * Node clients choose). The sender pushes a 20 ms burst after silence; the time until the
 * receiver's audio callback plays a loud frame is the pipeline's added latency (gate, Opus,
 * DAVE, RTP + transport AEAD, relay, jitter buffer, decode), including the wait for the next
 * 20 ms frame tick on each side.
 *
 * CPU: two media pipelines back to back in one process (no server), 10 s of speech-like tone;
 * process CPU time per second of audio per participant (one side sends, the other receives, so
 * the pair is one participant's work), against opusscript encoding and decoding the same frames.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { HashRatchet, TransportMode } from '@social-layer/core-wasm';
import { AudioModeType, AuthenticationExternalAuthType, AuthorizationTokenType, CallStatus, Client, type ClientOptions } from '@social-layer/client';
import { startServer } from '@social-layer/server';
import { opusScriptCodec } from '../../../bindings/client/src/voice/codec/OpusScriptCodec.ts';
import { MediaPipeline, type PipelineHost } from '../../../bindings/client/src/voice/MediaPipeline.ts';
import { nowMs, percentile } from './stats.ts';

const FRAME = 960;

function tone(hz: number, seconds: number, amplitude = 0.6): Int16Array {
  const n = Math.round(48_000 * seconds);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * hz * i) / 48_000));
  return out;
}

function rms(samples: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += (samples[i]! / 32768) ** 2;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

async function until(probe: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function measureLatency(trials: number): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-voice-'));
  const server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error', rateLimits: false });
  const clients: Client[] = [];
  try {
    const app = await server.createApplication({ name: 'voice bench' });
    const guest = async () => {
      const client = new Client({ apiBase: server.url, voice: { transports: ['udp'] } } as ClientOptions);
      clients.push(client);
      const token = await client.getProvisionalToken(app.id, AuthenticationExternalAuthType.DeviceId, randomBytes(16).toString('hex'));
      await client.updateToken(AuthorizationTokenType.Bearer, token.accessToken);
      await client.connect();
      return client;
    };
    const alice = await guest();
    const bob = await guest();
    const lobbyId = await alice.createOrJoinLobby('voice-bench');
    await bob.createOrJoinLobby('voice-bench');
    const aliceId = alice.getCurrentUserV2()!.id;
    let heardAt = 0;
    let listening = false;
    const aliceCall = alice.startCallWithAudioCallbacks(lobbyId, null, null)!;
    const bobCall = bob.startCallWithAudioCallbacks(
      lobbyId,
      (userId, samples) => {
        if (listening && userId === aliceId && rms(samples) > 0.05) {
          heardAt = nowMs();
          listening = false;
        }
      },
      null,
    )!;
    await until(() => aliceCall.getStatus() === CallStatus.Connected && bobCall.getStatus() === CallStatus.Connected, 15_000, 'both calls connected');
    await until(() => aliceCall.isE2eeReady() && bobCall.isE2eeReady(), 15_000, 'E2EE keys');
    aliceCall.setAudioMode(AudioModeType.MODE_PTT);
    aliceCall.setPTTActive(true);

    const burst = tone(1000, FRAME / 48_000, 0.8);
    const latencies: number[] = [];
    for (let i = 0; i < trials + 5; i++) {
      // Silence long enough for the receiver to drain, as between two words.
      await new Promise((r) => setTimeout(r, 250));
      heardAt = 0;
      listening = true;
      const t0 = nowMs();
      aliceCall.pushCapturedAudio(burst);
      await until(() => heardAt > 0, 2000, 'the burst at the receiver');
      if (i >= 5) latencies.push(heardAt - t0);
    }
    return latencies;
  } finally {
    for (const c of clients) await c.destroy().catch(() => {});
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface CpuFigures {
  pipelineCpuMsPerAudioSecond: number;
  opusOnlyCpuMsPerAudioSecond: number;
}

export async function measureCpu(seconds: number): Promise<CpuFigures> {
  const key = new Uint8Array(randomBytes(32));
  const secret = new Uint8Array(randomBytes(16));
  let bob: MediaPipeline | undefined;
  let received = 0;
  let wanted = Infinity;
  let reached: () => void = () => {};
  const aliceHost: PipelineHost = { sendPacket: (p) => bob?.receivePacket(p.slice()), speaking: () => {}, playing: () => {} };
  const bobHost: PipelineHost = { sendPacket: () => {}, speaking: () => {}, playing: () => {} };
  const alice = await MediaPipeline.create({ codec: opusScriptCodec, selfId: '1', host: aliceHost });
  bob = await MediaPipeline.create({ codec: opusScriptCodec, selfId: '2', host: bobHost });
  for (const p of [alice, bob]) {
    p.setTransportKey(TransportMode.Aes256GcmRtpsize, key);
    p.connected = true;
  }
  alice.setSsrc(4242);
  alice.keys.setOwnRatchet(new HashRatchet(alice.core, secret));
  bob.keys.setSenderRatchet('1', new HashRatchet(bob.core, secret));
  bob.mapSsrc(4242, '1');
  bob.onReceived = () => {
    if (++received >= wanted) reached();
  };
  alice.gate.mode = AudioModeType.MODE_PTT;
  alice.gate.setPTTActive(true, nowMs());
  alice.start();
  bob.start();
  try {
    // Warm up first: the codecs load and compile lazily on the first frame, which is not
    // the per-second cost being measured.
    alice.pushCapturedAudio(tone(220, 1, 0.5));
    await until(() => received >= 40, 5000, 'the warm-up audio');
    await new Promise((r) => setTimeout(r, 300));
    received = 0;
    const speech = tone(220, seconds, 0.5);
    // No polling inside the measured window: the receive callback ends it.
    wanted = Math.floor((seconds * 1000) / 20) - 5;
    const done = new Promise<void>((resolve) => (reached = resolve));
    const before = process.cpuUsage();
    const wallStart = nowMs();
    alice.pushCapturedAudio(speech);
    await done;
    const used = process.cpuUsage(before);
    const wall = (nowMs() - wallStart) / 1000;
    const pipelineCpuMsPerAudioSecond = (used.user + used.system) / 1000 / wall;

    // The peer: opusscript alone encoding and decoding the same frames.
    const encoder = await opusScriptCodec.createEncoder();
    const decoder = await opusScriptCodec.createDecoder();
    for (let i = 0; i < 50; i++) encoder.encode(speech.subarray(i * FRAME, (i + 1) * FRAME), (packet) => decoder.decode(packet, () => {}));
    const opusBefore = process.cpuUsage();
    for (let i = 0; i + FRAME <= speech.length; i += FRAME) {
      encoder.encode(speech.subarray(i, i + FRAME), (packet) => decoder.decode(packet, () => {}));
    }
    const opusUsed = process.cpuUsage(opusBefore);
    return { pipelineCpuMsPerAudioSecond, opusOnlyCpuMsPerAudioSecond: (opusUsed.user + opusUsed.system) / 1000 / seconds };
  } finally {
    alice.destroy();
    bob.destroy();
  }
}

export { percentile };
