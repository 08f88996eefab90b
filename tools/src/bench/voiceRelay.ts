/**
 * Relay throughput, shared by the `voice` benchmark: 10 calls of 10 speakers on one core. Every
 * inbound packet is authenticated and opened with the sender's key, then re-sealed for the 9
 * other participants. Sinks copy and discard, so this is the relay's own CPU cost per packet.
 */
import { randomBytes } from 'node:crypto';
import { CoreCryptoBackend, NodeCryptoBackend, type CryptoBackend, type TransportMode } from '@social-layer/core-wasm';
import { MediaRelay, RelayParticipant } from '../../../server/src/voice/MediaRelay.ts';

const CALLS = 10;
const SPEAKERS = 10;
/** A 20 ms Opus voice frame plus DAVE's supplemental bytes. */
const FRAME_BYTES = 120;

export interface RelayThroughput {
  inboundPerSecond: number;
  forwardedPerSecond: number;
  packets: number;
}

export async function relayThroughput(backendName: 'core-wasm' | 'node', mode: TransportMode, seconds: number): Promise<RelayThroughput> {
  const backend: CryptoBackend = backendName === 'core-wasm' ? await CoreCryptoBackend.create() : await NodeCryptoBackend.create();
  const calls: { relay: MediaRelay; speakers: { p: RelayParticipant; packets: Uint8Array[] }[] }[] = [];
  let ssrc = 1;
  for (let c = 0; c < CALLS; c++) {
    const relay = new MediaRelay();
    const speakers: { p: RelayParticipant; packets: Uint8Array[] }[] = [];
    for (let s = 0; s < SPEAKERS; s++) {
      const key = new Uint8Array(randomBytes(32));
      const p = new RelayParticipant(`${c}-${s}`, ssrc++, mode, backend.createTransportCipher(mode, key), backend);
      p.speakingAnnounced = true;
      // Real sinks copy the packet out of the relay's scratch (see MediaSink); so does this one.
      p.sink = { send: (packet) => void Buffer.from(packet) };
      relay.add(p);
      // The client side: a separate cipher over the same key seals what the participant sends.
      const client = backend.createTransportCipher(mode, key);
      const packets: Uint8Array[] = [];
      for (let i = 0; i < 4096; i++) {
        const buf = new Uint8Array(12 + FRAME_BYTES + 20);
        buf[0] = 0x80;
        buf[1] = 0x78;
        new DataView(buf.buffer).setUint16(2, i);
        new DataView(buf.buffer).setUint32(4, i * 960);
        new DataView(buf.buffer).setUint32(8, p.ssrc);
        buf.set(randomBytes(FRAME_BYTES), 12);
        const n = client.seal(buf, 12 + FRAME_BYTES, i + 1);
        packets.push(buf.subarray(0, n));
      }
      speakers.push({ p, packets });
    }
    calls.push({ relay, speakers });
  }
  // Packets go out round-robin across calls and speakers, as concurrent calls would.
  let sent = 0;
  let forwarded = 0;
  const before = calls.reduce((n, c) => n + c.relay.stats.forwarded, 0);
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(seconds * 1e9));
  let i = 0;
  outer: for (;;) {
    for (const call of calls) {
      for (const s of call.speakers) {
        const verdict = call.relay.handle(s.p, s.packets[i]!);
        if (verdict !== 'relayed') throw new Error(`relay refused a valid packet: ${verdict}`);
        sent++;
      }
    }
    i++;
    if (i === 4096) break;
    if ((i & 15) === 0 && process.hrtime.bigint() > deadline) break outer;
  }
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  forwarded = calls.reduce((n, c) => n + c.relay.stats.forwarded, 0) - before;
  for (const c of calls) c.relay.close();
  return { inboundPerSecond: sent / elapsed, forwardedPerSecond: forwarded / elapsed, packets: sent };
}
