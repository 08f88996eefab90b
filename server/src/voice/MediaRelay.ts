import { VOICE_MAX_PACKET_BYTES } from '@social-layer/protocol';
import type { CryptoBackend, TransportCipher, TransportMode } from '@social-layer/core-wasm';
import { ReplayWindow } from './ReplayWindow.ts';

/**
 * Where the relay sends one participant's packets (a WebSocket, a UDP address, a data channel).
 * `packet` is a view of the relay's scratch memory, valid only during the call: a sink that
 * queues it (ws, dgram) copies it first.
 */
export interface MediaSink {
  send(packet: Uint8Array): void;
}

/** One participant's media state in the relay. */
export class RelayParticipant {
  readonly replay = new ReplayWindow();
  sink: MediaSink | null = null;
  /** Set once the participant announced itself with op 5: before that its packets are dropped. */
  speakingAnnounced = false;
  selfDeaf = false;
  /** False without SPEAK in a guild voice channel: what it sends is dropped, it still hears. */
  canSpeak = true;
  private sendCounter = 0;
  private badPackets: number[] = [];
  /** Scratch for this participant's packets: allocated once by the crypto backend, reused. */
  readonly inbound: Uint8Array;
  readonly outbound: Uint8Array;

  constructor(
    readonly userId: string,
    readonly ssrc: number,
    readonly mode: TransportMode,
    readonly cipher: TransportCipher,
    backend: CryptoBackend,
  ) {
    this.inbound = backend.allocate(VOICE_MAX_PACKET_BYTES + 64);
    this.outbound = backend.allocate(VOICE_MAX_PACKET_BYTES + 64);
  }

  /** The next server-side nonce: upper half of the counter space, never reusing a client nonce. */
  nextNonce(): number {
    this.sendCounter = (this.sendCounter + 1) & 0x7fff_ffff;
    if (this.sendCounter === 0) this.sendCounter = 1;
    return (0x8000_0000 | this.sendCounter) >>> 0;
  }

  /** Counts a bad packet; true when the sender has sent too many in the last 10 s. */
  recordBad(now: number): boolean {
    this.badPackets.push(now);
    while (this.badPackets.length > 0 && this.badPackets[0]! < now - 10_000) this.badPackets.shift();
    return this.badPackets.length > 50;
  }
}

export type RelayVerdict = 'relayed' | 'dropped' | 'abusive';

export interface RelayStats {
  relayed: number;
  forwarded: number;
  dropped: number;
  /** Packets not sent to a receiver whose transport was backed up (WebRTC buffer bound). */
  congested: number;
}

/**
 * Forwards each participant's RTP packets to everyone else in the call: checks the SSRC is the
 * sender's, refuses replayed nonces, authenticates and opens the transport layer with the
 * sender's key, and seals it anew for each receiver with theirs. The payload inside is a DAVE
 * frame: the relay holds transport keys only, never media keys (contracts-voice.md 2).
 */
export class MediaRelay {
  readonly participants = new Map<string, RelayParticipant>();
  /** The same participants as an array, rebuilt on join/leave: the per-packet loop avoids Map iteration. */
  private list: RelayParticipant[] = [];
  readonly stats: RelayStats = { relayed: 0, forwarded: 0, dropped: 0, congested: 0 };
  /** Test and diagnostics hook: sees each forwarded payload (the opened, still DAVE-encrypted frame). */
  onForward: ((from: string, frame: Uint8Array) => void) | null = null;

  add(p: RelayParticipant): void {
    this.participants.set(p.userId, p);
    this.list = [...this.participants.values()];
  }

  remove(userId: string): void {
    const p = this.participants.get(userId);
    if (!p) return;
    this.participants.delete(userId);
    this.list = [...this.participants.values()];
    p.cipher.destroy();
  }

  bySsrc(ssrc: number): RelayParticipant | undefined {
    for (const p of this.participants.values()) if (p.ssrc === ssrc) return p;
    return undefined;
  }

  handle(sender: RelayParticipant, packet: Uint8Array): RelayVerdict {
    const length = packet.length;
    // 12-byte header + 16-byte tag + 4-byte nonce is the smallest sealed packet.
    if (length < 32 || length > VOICE_MAX_PACKET_BYTES) return this.bad(sender);
    if (packet[0]! >> 6 !== 2) return this.bad(sender);
    const ssrc = ((packet[8]! << 24) | (packet[9]! << 16) | (packet[10]! << 8) | packet[11]!) >>> 0;
    if (ssrc !== sender.ssrc || !sender.speakingAnnounced) return this.bad(sender);
    if (!sender.canSpeak) {
      this.stats.dropped++;
      return 'dropped';
    }
    const nonce = ((packet[length - 4]! << 24) | (packet[length - 3]! << 16) | (packet[length - 2]! << 8) | packet[length - 1]!) >>> 0;
    if (!sender.replay.check(nonce)) {
      // A replay is not the sender's fault when the network duplicates: drop without counting.
      this.stats.dropped++;
      return 'dropped';
    }
    const buf = sender.inbound;
    buf.set(packet);
    const frameLength = sender.cipher.open(buf, length);
    if (frameLength < 0) return this.bad(sender);
    sender.replay.accept(nonce);
    const frameOffset = sender.cipher.frameOffset;
    const headerLength = 12 + 4 * (buf[0]! & 0x0f);
    const frame = buf.subarray(frameOffset, frameOffset + frameLength);
    this.stats.relayed++;
    this.onForward?.(sender.userId, frame);

    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const r = list[i]!;
      if (r === sender || r.sink === null || r.selfDeaf) continue;
      const out = r.outbound;
      // The header byte by byte: a subarray per receiver was an allocation per forwarded packet.
      // The relay re-frames without the extension body and padding it already stripped.
      out[0] = buf[0]! & ~0x30;
      for (let h = 1; h < headerLength; h++) out[h] = buf[h]!;
      out.set(frame, headerLength);
      const sealed = r.cipher.seal(out, headerLength + frameLength, r.nextNonce());
      if (sealed < 0) continue;
      r.sink.send(out.subarray(0, sealed));
      this.stats.forwarded++;
    }
    return 'relayed';
  }

  private bad(sender: RelayParticipant): RelayVerdict {
    this.stats.dropped++;
    return sender.recordBad(Date.now()) ? 'abusive' : 'dropped';
  }

  close(): void {
    for (const id of [...this.participants.keys()]) this.remove(id);
  }
}
