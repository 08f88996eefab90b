import type { RelayParticipant } from './MediaRelay.ts';
import type { VoiceGrant } from './VoiceStateService.ts';

/** A message kept for a v8 buffered Resume: text (JSON) or binary, already framed with its seq. */
interface Buffered {
  seq: number;
  frame: string | Buffer;
}

export interface VoiceSocket {
  sendText(frame: string): void;
  sendBinary(frame: Buffer): void;
  close(code: number, reason: string): void;
}

/**
 * One user's place in one call. It outlives its voice socket for a resume window: messages sent
 * meanwhile are numbered (u16, wrapping, per protocols.md 3.3) and kept until acknowledged by a
 * heartbeat's `seq_ack`, then replayed after op 7 Resume.
 */
export class VoiceSession {
  private seq = 0;
  private buffer: Buffered[] = [];
  socket: VoiceSocket | null = null;
  expiry: NodeJS.Timeout | null = null;
  /** Secret that lets a media socket (websocket transport) attach to this session. */
  mediaSession: string | null = null;
  /** The UDP address discovered for this session's SSRC. */
  udpRemote: { address: string; port: number } | null = null;
  selectedProtocol: string | null = null;
  speakingFlags = 0;
  /** op 25 went out (after the first Session Description). */
  daveStarted = false;
  /** The webrtc transport's peer connection, closed when the seat ends or another transport is chosen. */
  peer: { close(): void } | null = null;
  /** The relay's view of this session, from Select Protocol on (the mode fixes its cipher). */
  participant: RelayParticipant | null = null;

  constructor(
    readonly grant: VoiceGrant,
    readonly tokenHash: string,
    readonly ssrc: number,
    readonly secretKey: Uint8Array,
    private readonly maxBuffered: number,
  ) {}

  get userId(): string {
    return this.grant.userId;
  }

  /** Sends a replayable JSON message (gets `seq`). */
  sendJson(op: number, d: unknown): void {
    const seq = this.nextSeq();
    const frame = JSON.stringify({ op, d, seq });
    this.keep(seq, frame);
    this.socket?.sendText(frame);
  }

  /** Sends a message outside the replay buffer (Hello, Ready, heartbeat ACK, Resumed). */
  sendUnsequenced(op: number, d: unknown): void {
    this.socket?.sendText(JSON.stringify({ op, d }));
  }

  /** Sends a binary message: `[u16 BE seq][u8 op][payload]` (protocols.md 3.2). */
  sendBinary(op: number, payload: Uint8Array): void {
    const seq = this.nextSeq();
    const frame = Buffer.allocUnsafe(3 + payload.length);
    frame.writeUInt16BE(seq, 0);
    frame.writeUInt8(op, 2);
    frame.set(payload, 3);
    this.keep(seq, frame);
    this.socket?.sendBinary(frame);
  }

  /** Drops everything the client has acknowledged (seq compared modulo 2^16). */
  acknowledge(seqAck: number): void {
    if (!Number.isInteger(seqAck) || seqAck < 0) return;
    let drop = 0;
    for (const b of this.buffer) {
      if (seqNewer(b.seq, seqAck)) break;
      drop++;
    }
    if (drop > 0) this.buffer = this.buffer.slice(drop);
  }

  /** Frames newer than `seqAck`, or null when some were already dropped (resume must fail). */
  replayAfter(seqAck: number): (string | Buffer)[] | null {
    const pending = this.buffer.filter((b) => seqAck < 0 || seqNewer(b.seq, seqAck));
    if (this.buffer.length >= this.maxBuffered && pending.length === this.buffer.length && seqAck >= 0) return null;
    return pending.map((b) => b.frame);
  }

  private nextSeq(): number {
    this.seq = (this.seq + 1) & 0xffff;
    return this.seq;
  }

  private keep(seq: number, frame: string | Buffer): void {
    this.buffer.push({ seq, frame });
    if (this.buffer.length > this.maxBuffered) this.buffer.shift();
  }
}

/** True when u16 sequence `a` comes after `b`, allowing for wrap-around. */
export function seqNewer(a: number, b: number): boolean {
  return ((a - b) & 0xffff) !== 0 && ((a - b) & 0xffff) < 0x8000;
}
