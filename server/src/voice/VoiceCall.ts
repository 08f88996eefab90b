import { randomBytes, randomInt } from 'node:crypto';
import { VoiceCloseCode, VoiceOpcode } from '@social-layer/protocol';
import type { CryptoBackend, TransportMode } from '@social-layer/core-wasm';
import type { Logger } from '../log/Logger.ts';
import type { DaveDelivery, DaveOutput } from './dave.ts';
import { MediaRelay, RelayParticipant } from './MediaRelay.ts';
import { VoiceSession } from './VoiceSession.ts';
import type { VoiceGrant } from './VoiceStateService.ts';

/**
 * One lobby's call on this node: its voice sessions, its media relay and its DAVE delivery
 * service. Everything that must reach participants goes through `deliver`, so DAVE's plain
 * instructions and the gateway's own messages take the same path.
 */
export class VoiceCall {
  readonly relay = new MediaRelay();
  readonly sessions = new Map<string, VoiceSession>();
  private readonly daveTimer: NodeJS.Timeout;

  constructor(
    readonly lobbyId: string,
    readonly dave: DaveDelivery,
    private readonly backend: CryptoBackend,
    private readonly log: Logger,
    private readonly maxBuffered: number,
    /** The gateway's SSRC index, kept in step with `sessions` (UDP packets are routed by SSRC). */
    private readonly ssrcIndex: Map<number, { session: VoiceSession; call: VoiceCall }>,
    /** A user's seat came or went (cluster mode records it in Redis for op 4 on other nodes). */
    private readonly onSeat: (userId: string, present: boolean) => void = () => {},
  ) {
    // DAVE transitions execute on all-ready or on timeout; the clock lives here.
    this.daveTimer = setInterval(() => this.deliver(this.dave.tick(Date.now())), 250);
    this.daveTimer.unref();
  }

  get empty(): boolean {
    return this.sessions.size === 0;
  }

  /** Adds (or replaces) a user's session after a successful Identify. */
  join(grant: VoiceGrant, tokenHash: string): VoiceSession {
    const old = this.sessions.get(grant.userId);
    if (old) this.leave(grant.userId, VoiceCloseCode.SessionNoLongerValid, 'Replaced by a new voice session');
    const secretKey = new Uint8Array(randomBytes(32));
    const session = new VoiceSession(grant, tokenHash, this.newSsrc(), secretKey, this.maxBuffered);
    this.sessions.set(grant.userId, session);
    this.ssrcIndex.set(session.ssrc, { session, call: this });
    this.onSeat(grant.userId, true);
    return session;
  }

  /** Select Protocol: the cipher for the chosen mode, and the session joins the relay. */
  select(session: VoiceSession, mode: TransportMode): RelayParticipant {
    const before = session.participant;
    this.relay.remove(session.userId);
    session.peer?.close();
    session.peer = null;
    const participant = new RelayParticipant(session.userId, session.ssrc, mode, this.backend.createTransportCipher(mode, session.secretKey), this.backend);
    participant.speakingAnnounced = session.speakingFlags !== 0 || (before?.speakingAnnounced ?? false);
    session.participant = participant;
    this.relay.add(participant);
    return participant;
  }

  /** Removes a user from the call, closing their socket with `code` if one is attached. */
  leave(userId: string, code: number, reason: string): void {
    const session = this.sessions.get(userId);
    if (!session) return;
    this.sessions.delete(userId);
    this.ssrcIndex.delete(session.ssrc);
    this.onSeat(userId, false);
    session.peer?.close();
    session.peer = null;
    if (session.expiry) clearTimeout(session.expiry);
    session.socket?.close(code, reason);
    session.socket = null;
    this.relay.remove(userId);
    for (const other of this.sessions.values()) other.sendJson(VoiceOpcode.ClientDisconnect, { user_id: userId });
    this.deliver(this.dave.memberDisconnected(userId));
  }

  deliver(output: DaveOutput | void): void {
    if (!output) return;
    for (const m of output) {
      const targets = m.to === 'all' ? [...this.sessions.values()] : m.to.map((id) => this.sessions.get(id)).filter((s): s is VoiceSession => s !== undefined);
      for (const s of targets) {
        if (m.binary) s.sendBinary(m.op, m.binary);
        else s.sendJson(m.op, m.json ?? null);
      }
    }
  }

  /** A fresh SSRC, unique in this call and never 0. */
  private newSsrc(): number {
    for (;;) {
      const ssrc = randomInt(1, 0xffff_ffff);
      if (!this.ssrcIndex.has(ssrc)) return ssrc;
    }
  }

  newMediaSession(session: VoiceSession): string {
    session.mediaSession = randomBytes(24).toString('base64url');
    return session.mediaSession;
  }

  close(code: number, reason: string): void {
    clearInterval(this.daveTimer);
    for (const id of [...this.sessions.keys()]) this.leave(id, code, reason);
    this.relay.close();
    this.log.debug({ lobbyId: this.lobbyId }, 'call closed');
  }
}
