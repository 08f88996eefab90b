/**
 * `npm run bench -- voice-relay-udp`: the voice relay end to end over real UDP sockets on
 * loopback. 10 calls x 10 speakers, played by two client processes (speakers 0-4 of every call
 * in one, 5-9 in the other, so most packets cross from one process to the other), each speaker
 * a real voice client (Gateway, voice gateway, IP discovery, Select Protocol udp) sending sealed
 * 20 ms Opus-sized RTP packets. The relay is the real server in its own process: UDP socket,
 * SSRC and source checks, replay window, transport AEAD opened and re-sealed per receiver.
 * The peer, in the same run and with the same clients and packets, is a bare `dgram` forwarder
 * in its own process that sends each packet unchanged to the sender's call (no crypto): the
 * floor for Node UDP I/O. Phases rotate (relay, raw, raw with the relay's lookup; then starting one later) and medians are kept.
 * Per core = forwarded packets / CPU seconds (user + system) of the forwarding process.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './types.ts';
import { Child, type Message } from './childProcess.ts';

const CALLS = 10;
const SPEAKERS = 10;
const FRAME_BYTES = 120;
const TARGET_PER_CORE = 100_000;
const MODE = (process.env.BENCH_VOICE_UDP_MODE ?? 'aead_aes256_gcm_rtpsize') as 'aead_aes256_gcm_rtpsize';
const ROUNDS = Number(process.env.BENCH_VOICE_UDP_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_VOICE_UDP_SECONDS ?? 3);
/** Packets per second per speaker: 50 is one 20 ms frame each; more stands for more calls. */
const PER_SPEAKER_PPS = Number(process.env.BENCH_VOICE_UDP_PPS ?? 200);
/** BENCH_VOICE_UDP_PROF=1: the relay process writes a V8 CPU profile under bench-results/profiles. */
const PROFILE = process.env.BENCH_VOICE_UDP_PROF === '1';

type Target = 'relay' | 'raw' | 'rawLookup';

interface Phase {
  target: Target;
  perCore: number;
  forwardedPerSecond: number;
  inboundPerSecond: number;
  cpuShare: number;
  deliveredShare: number;
  dropped: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export default async function voiceRelayUdp(): Promise<BenchResult> {
  const profDir = resolve(fileURLToPath(new URL('../../../bench-results/profiles', import.meta.url)));
  if (PROFILE) mkdirSync(profDir, { recursive: true });
  const relay = new Child(new URL('./voiceRelayUdp/relayNode.ts', import.meta.url), PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []);
  const raw = new Child(new URL('./voiceRelayUdp/rawForwarder.ts', import.meta.url));
  const rawLookup = new Child(new URL('./voiceRelayUdp/rawForwarder.ts', import.meta.url), [], { RAW_LITERAL_LOOKUP: '1' });
  const clients = [new Child(new URL('./voiceRelayUdp/participants.ts', import.meta.url)), new Child(new URL('./voiceRelayUdp/participants.ts', import.meta.url))];
  try {
    const relayReady = await relay.once('ready');
    const rawReady = await raw.once('ready');
    const rawLookupReady = await rawLookup.once('ready');
    await Promise.all(clients.map((c) => c.once('ready')));
    const runId = randomBytes(6).toString('hex');
    const half = SPEAKERS / 2;
    const members = [Array.from({ length: half }, (_, i) => i), Array.from({ length: half }, (_, i) => half + i)];
    const everyone: { call: number; ssrc: number; port: number }[] = [];
    const lobbies = new Set<string>();
    // One process after the other: the first creates the lobbies, the second joins them.
    for (let i = 0; i < clients.length; i++) {
      const r = await clients[i]!.request({ type: 'setup', setup: { url: relayReady.url, appId: relayReady.appId, calls: CALLS, members: members[i], mode: MODE, frameBytes: FRAME_BYTES, runId } }, 300_000);
      everyone.push(...(r.participants as typeof everyone));
      for (const [, id] of r.lobbies as [number, string][]) lobbies.add(id);
    }
    if (lobbies.size !== CALLS) throw new Error(`expected ${CALLS} lobbies, got ${lobbies.size}`);
    const routes = everyone.map((p) => [p.ssrc, everyone.filter((o) => o.call === p.call && o !== p).map((o) => ({ port: o.port, address: '127.0.0.1' }))]);
    await raw.request({ type: 'routes', routes });
    await rawLookup.request({ type: 'routes', routes });

    const sampleOf = async (target: Child) => {
      const [t, ...c] = await Promise.all([target.request({ type: 'sample', lobbies: [...lobbies] }), ...clients.map((x) => x.request({ type: 'sample' }))]);
      return { target: t, received: c.reduce((n, m) => n + (m.received as number), 0), verified: c.reduce((n, m) => n + (m.verified as number), 0), verifyFailed: c.reduce((n, m) => n + (m.verifyFailed as number), 0) };
    };
    const phases: Phase[] = [];
    let verified = 0;
    let verifyFailed = 0;
    /** The relay process's CPU share while the raw phases run: the server's own background (timers, 200 idle sockets). */
    const relayIdleShares: number[] = [];
    const relayCpuAt = async () => {
      const m = await relay.request({ type: 'sample', lobbies: [] });
      return { cpu: (m.cpuUs as number) / 1e6, at: (m.at as number) / 1000 };
    };
    const runPhase = async (which: Target) => {
      const target = which === 'relay' ? relay : which === 'raw' ? raw : rawLookup;
      const rawPort = which === 'rawLookup' ? rawLookupReady.port : rawReady.port;
      await Promise.all(clients.map((c) => c.request({ type: 'phase', target: which === 'relay' ? 'relay' : 'raw', rawPort, perSpeakerPps: PER_SPEAKER_PPS })));
      // Warm-up: JIT, socket buffers and the first burst do not count.
      await sleep(700);
      const idleA = which === 'relay' ? null : await relayCpuAt();
      const a = await sampleOf(target);
      await sleep(SECONDS * 1000);
      const b = await sampleOf(target);
      if (idleA) {
        const idleB = await relayCpuAt();
        relayIdleShares.push((idleB.cpu - idleA.cpu) / (idleB.at - idleA.at));
      }
      await Promise.all(clients.map((c) => c.request({ type: 'phase', target: 'idle' })));
      await sleep(300);
      const at = (m: Message) => m.at as number;
      const wall = (at(b.target) - at(a.target)) / 1000;
      const cpu = ((b.target.cpuUs as number) - (a.target.cpuUs as number)) / 1e6;
      const forwarded = (b.target.forwarded as number) - (a.target.forwarded as number);
      const inbound = (b.target.inbound as number) - (a.target.inbound as number);
      if (which === 'relay') {
        verified += b.verified - a.verified;
        verifyFailed += b.verifyFailed - a.verifyFailed;
      }
      phases.push({
        target: which,
        perCore: forwarded / cpu,
        forwardedPerSecond: forwarded / wall,
        inboundPerSecond: inbound / wall,
        cpuShare: cpu / wall,
        deliveredShare: forwarded > 0 ? (b.received - a.received) / forwarded : 0,
        dropped: (b.target.dropped as number) - (a.target.dropped as number),
      });
    };
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate which goes first so drift in the machine's load favours none.
      const order: Target[] = ['relay', 'raw', 'rawLookup'];
      for (let k = 0; k < order.length; k++) await runPhase(order[(r + k) % order.length]!);
    }
    const of = (t: Target, k: keyof Omit<Phase, 'target'>) => median(phases.filter((p) => p.target === t).map((p) => p[k]));
    const ours = of('relay', 'perCore');
    const idleShare = median(relayIdleShares);
    // Per-packet cost alone: the relay's CPU less what the same process spends with no media.
    const oursNet = median(phases.filter((p) => p.target === 'relay').map((p) => p.forwardedPerSecond / Math.max(1e-6, p.cpuShare - idleShare)));
    const peer = of('raw', 'perCore');
    const floor = of('rawLookup', 'perCore');
    const offered = CALLS * SPEAKERS * PER_SPEAKER_PPS;
    return {
      description: `Voice relay over real UDP on loopback: ${CALLS} calls x ${SPEAKERS} speakers as real voice clients in 2 processes, ${FRAME_BYTES}-byte frames (${MODE}), through the real server in its own process, beside a bare dgram forwarder (no crypto) in the same run; per core = forwarded / relay-process CPU seconds.`,
      figures: {
        relay_forwarded_pps_per_core: Math.round(ours),
        raw_dgram_forwarded_pps_per_core: Math.round(peer),
        ratio_relay_over_raw_dgram: ours / peer,
        raw_dgram_literal_lookup_forwarded_pps_per_core: Math.round(floor),
        ratio_relay_over_raw_dgram_literal_lookup: ours / floor,
        ratio_relay_over_target_100k: ours / TARGET_PER_CORE,
        target_met: ours >= TARGET_PER_CORE ? 'yes' : 'no',
        relay_idle_process_cores: idleShare,
        relay_forwarded_pps_per_core_net_of_idle: Math.round(oursNet),
        ratio_relay_net_over_raw_dgram_literal_lookup: oursNet / floor,
        ratio_relay_net_over_target_100k: oursNet / TARGET_PER_CORE,
        relay_forwarded_pps_wall: Math.round(of('relay', 'forwardedPerSecond')),
        raw_dgram_forwarded_pps_wall: Math.round(of('raw', 'forwardedPerSecond')),
        raw_dgram_literal_lookup_forwarded_pps_wall: Math.round(of('rawLookup', 'forwardedPerSecond')),
        relay_inbound_pps_wall: Math.round(of('relay', 'inboundPerSecond')),
        offered_inbound_pps: offered,
        relay_process_cores_used: of('relay', 'cpuShare'),
        raw_process_cores_used: of('raw', 'cpuShare'),
        relay_received_by_clients_share: of('relay', 'deliveredShare'),
        raw_received_by_clients_share: of('raw', 'deliveredShare'),
        relay_packets_dropped_by_checks: phases.filter((p) => p.target === 'relay').reduce((n, p) => n + p.dropped, 0),
        receiver_checks_opened_ok: verified,
        receiver_checks_failed: verifyFailed,
        rounds: ROUNDS,
        seconds_per_phase: SECONDS,
        relay_per_core_by_round: phases.filter((p) => p.target === 'relay').map((p) => Math.round(p.perCore)).join(' '),
        raw_per_core_by_round: phases.filter((p) => p.target === 'raw').map((p) => Math.round(p.perCore)).join(' '),
        raw_literal_lookup_per_core_by_round: phases.filter((p) => p.target === 'rawLookup').map((p) => Math.round(p.perCore)).join(' '),
      },
      notes: [
        `Target: >= ${TARGET_PER_CORE.toLocaleString('en-US')} forwarded packets/s per core through real sockets.`,
        `Each speaker sends ${PER_SPEAKER_PPS} packets/s (50 = one 20 ms frame; the surplus stands for more calls), ${offered.toLocaleString('en-US')} inbound/s offered, 9 forwarded per inbound.`,
        'Per core divides by the forwarding process\'s own CPU time (process.cpuUsage, user + system, all its threads), so the clients\' CPU on the same cores does not count against either side; wall-clock rates are printed too.',
        'Two floors, each a bare dgram forwarder in its own process: raw_dgram with stock dgram.createSocket (every send resolves its address through dns.lookup), and raw_dgram_literal_lookup whose socket answers IP literals at once, as the relay\'s media socket does (UdpMediaSocket.ts); the second is the stricter floor.',
        'Net of idle: the relay process also runs the rest of the server (Gateway and voice heartbeats of 200 sockets, timers); its CPU share with no media (measured during the raw phases) is subtracted. At the low rates a shared machine lets the clients offer, that fixed cost is a visible part of the gross figure (relay_idle_process_cores against relay_process_cores_used); on a busy relay it is amortised.',
        'Receivers open one packet in 64 with their own key in relay phases (checks_opened_ok): the relay re-sealed it for them. The raw forwarder passes the sender\'s sealing through.',
        'DAVE MLS messages travel on the voice WebSocket, not UDP: the relay node uses a DAVE delivery that sends none (as voiceRelay.test.ts), clients do no MLS; the UDP path is the production one.',
        'Shared machine (2 cores, other work running): medians of alternating phases; the figure is noisy.',
      ],
    };
  } finally {
    await Promise.all([relay, raw, rawLookup, ...clients].map((c) => c.stop().catch(() => c.proc.kill('SIGKILL'))));
  }
}
