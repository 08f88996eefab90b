import type { WebSocket } from 'ws';
import { DAVE_PROTOCOL_VERSION, VoiceCloseCode, VoiceOpcode, VoiceTransport } from '@social-layer/protocol';
import { isTransportMode, SUPPORTED_TRANSPORT_MODES } from '@social-layer/core-wasm';
import { hashSecret } from '../auth/secrets.ts';
import type { VoiceCall } from './VoiceCall.ts';
import type { MediaSink } from './MediaRelay.ts';
import type { VoiceSession, VoiceSocket } from './VoiceSession.ts';
import type { VoiceStateService } from './VoiceStateService.ts';
import { answerWebRtcOffer, dataChannelSink } from './WebRtcTransport.ts';

/**
 * What a voice connection needs of the voice gateway that accepted it (VoiceGatewayServer, which
 * passes itself): its settings, its calls and its media paths. An interface, so the gateway and
 * its connections do not import each other.
 */
export interface VoiceConnectionHost {
  readonly states: Pick<VoiceStateService, 'redeem' | 'canSpeak'>;
  readonly transports: readonly VoiceTransport[];
  readonly udpAddress: { address: string; port: number };
  readonly heartbeatIntervalMs: number;
  readonly resumeWindowMs: number;
  readonly webRtcBindAddress: string;
  selfDeaf(lobbyId: string, userId: string): boolean;
  callFor(lobbyId: string): Promise<VoiceCall>;
  sessionByToken(tokenHash: string, sessionId: string): { session: VoiceSession; call: VoiceCall } | undefined;
  dropIfEmpty(call: VoiceCall): void;
  udpSink(remote: { address: string; port: number }): MediaSink;
  media(call: VoiceCall, session: VoiceSession, packet: Uint8Array): boolean;
}

/** Client payloads per second a voice socket may send before 4021 (heartbeats, speaking, DAVE). */
const MAX_MESSAGES_PER_10S = 200;

/**
 * The voice gateway protocol on one socket (protocols.md 3, contracts-voice.md 2): Identify or
 * Resume, Select Protocol, Speaking, heartbeats with `seq_ack`, and the DAVE opcodes, which are
 * handed to the call's delivery service untouched.
 */
export class VoiceConnection implements VoiceSocket {
  private session: VoiceSession | null = null;
  private call: VoiceCall | null = null;
  private heartbeatDeadline: NodeJS.Timeout | null = null;
  private closed = false;
  private recent: number[] = [];

  constructor(
    private readonly gw: VoiceConnectionHost,
    private readonly ws: WebSocket,
    /** The voice gateway version asked for (4 to 8): 8 adds the buffered resume. */
    private readonly version: number,
  ) {
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on('close', (code) => this.onClose(code));
    ws.on('error', () => {});
    this.sendText(JSON.stringify({ op: VoiceOpcode.Hello, d: { heartbeat_interval: gw.heartbeatIntervalMs, v: version } }));
    this.armHeartbeat();
  }

  sendText(frame: string): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(frame);
  }

  sendBinary(frame: Buffer): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(frame, { binary: true });
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeatDeadline) clearTimeout(this.heartbeatDeadline);
    this.ws.close(code, reason);
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.closed) return;
    const now = Date.now();
    this.recent.push(now);
    while (this.recent.length > 0 && this.recent[0]! < now - 10_000) this.recent.shift();
    if (this.recent.length > MAX_MESSAGES_PER_10S) return this.close(VoiceCloseCode.RateLimited, 'Rate limited');

    if (isBinary) {
      if (!this.session || !this.call || data.length < 1) return this.close(VoiceCloseCode.NotAuthenticated, 'Not authenticated');
      const op = data[0]!;
      const body = new Uint8Array(data.buffer, data.byteOffset + 1, data.length - 1);
      if (op === VoiceOpcode.DaveMlsKeyPackage) return this.call.deliver(this.call.dave.keyPackage(this.session.userId, body));
      if (op === VoiceOpcode.DaveMlsCommitWelcome) return this.call.deliver(this.call.dave.commitWelcome(this.session.userId, body));
      return this.close(VoiceCloseCode.UnknownOpcode, 'Unknown opcode');
    }

    let msg: { op?: unknown; d?: unknown };
    try {
      msg = JSON.parse(data.toString('utf8'));
    } catch {
      return this.close(VoiceCloseCode.DecodeError, 'Failed to decode payload');
    }
    if (typeof msg !== 'object' || msg === null || typeof msg.op !== 'number') return this.close(VoiceCloseCode.DecodeError, 'Failed to decode payload');
    const d = (typeof msg.d === 'object' && msg.d !== null ? msg.d : {}) as Record<string, unknown>;
    switch (msg.op) {
      case VoiceOpcode.Identify:
        return void this.identify(d);
      case VoiceOpcode.Resume:
        return this.resume(d);
      case VoiceOpcode.Heartbeat:
        return this.heartbeat(msg.d);
    }
    if (!this.session || !this.call) return this.close(VoiceCloseCode.NotAuthenticated, 'Not authenticated');
    switch (msg.op) {
      case VoiceOpcode.SelectProtocol:
        return void this.selectProtocol(d).catch(() => this.close(VoiceCloseCode.BadRequest, 'Transport setup failed'));
      case VoiceOpcode.Speaking:
        return this.speaking(d);
      case VoiceOpcode.DaveTransitionReady:
        if (!Number.isInteger(d.transition_id)) return this.close(VoiceCloseCode.DecodeError, 'Bad transition_id');
        return this.call.deliver(this.call.dave.transitionReady(this.session.userId, d.transition_id as number));
      case VoiceOpcode.DaveMlsInvalidCommitWelcome:
        if (!Number.isInteger(d.transition_id)) return this.close(VoiceCloseCode.DecodeError, 'Bad transition_id');
        return this.call.deliver(this.call.dave.invalidCommitWelcome(this.session.userId, d.transition_id as number));
      default:
        return this.close(VoiceCloseCode.UnknownOpcode, 'Unknown opcode');
    }
  }

  private async identify(d: Record<string, unknown>): Promise<void> {
    if (this.session) return this.close(VoiceCloseCode.AlreadyAuthenticated, 'Already authenticated');
    // server_id: the lobby, or for a guild voice channel the guild (or the channel, from our SDK).
    const { server_id: serverId, user_id: userId, session_id: sessionId, token } = d;
    if (typeof serverId !== 'string' || typeof userId !== 'string' || typeof sessionId !== 'string' || typeof token !== 'string') {
      return this.close(VoiceCloseCode.DecodeError, 'Invalid identify payload');
    }
    const dave = d.max_dave_protocol_version;
    // From 2026-03-01 only end-to-end encrypted calls exist (spec, Versioning 4).
    if (typeof dave !== 'number' || dave < DAVE_PROTOCOL_VERSION) return this.close(VoiceCloseCode.E2eeRequired, 'End-to-end encryption (DAVE) is required');
    const grant = await this.gw.states.redeem(token, serverId, userId, sessionId);
    if (!grant) return this.close(VoiceCloseCode.AuthenticationFailed, 'Authentication failed');
    const call = await this.gw.callFor(grant.lobbyId);
    if (this.closed) return;
    const session = call.join(grant, hashSecret(token));
    this.session = session;
    this.call = call;
    session.socket = this;

    const others = [...call.sessions.values()].filter((s) => s !== session);
    session.sendUnsequenced(VoiceOpcode.Ready, {
      ssrc: session.ssrc,
      ip: this.gw.udpAddress.address,
      port: this.gw.udpAddress.port,
      modes: SUPPORTED_TRANSPORT_MODES,
      heartbeat_interval: this.gw.heartbeatIntervalMs,
      transports: this.gw.transports,
    });
    if (others.length > 0) session.sendJson(VoiceOpcode.ClientsConnect, { user_ids: others.map((s) => s.userId) });
    for (const o of others) {
      o.sendJson(VoiceOpcode.ClientsConnect, { user_ids: [session.userId] });
      // Receivers only accept SSRCs they have seen in op 5: tell the newcomer who is who.
      if (o.speakingFlags !== 0 || o.participant?.speakingAnnounced) session.sendJson(VoiceOpcode.Speaking, { speaking: o.speakingFlags, ssrc: o.ssrc, user_id: o.userId });
    }
    call.deliver(call.dave.memberConnected(session.userId));
  }

  private resume(d: Record<string, unknown>): void {
    if (this.session) return this.close(VoiceCloseCode.AlreadyAuthenticated, 'Already authenticated');
    const { server_id: serverId, session_id: sessionId, token, seq_ack: seqAck } = d;
    if (typeof serverId !== 'string' || typeof sessionId !== 'string' || typeof token !== 'string') return this.close(VoiceCloseCode.DecodeError, 'Invalid resume payload');
    const tokenHash = hashSecret(token);
    // The seat is found by its token; server_id must still name its call (lobby, guild or channel).
    const found = this.gw.sessionByToken(tokenHash, sessionId);
    const call = found && (found.call.lobbyId === serverId || found.session.grant.guildId === serverId) ? found.call : undefined;
    const session = call ? found!.session : undefined;
    if (!call || !session) return this.close(VoiceCloseCode.SessionNoLongerValid, 'Session no longer valid');
    // Buffered resume is version 8's: before it, a resume takes up from now, nothing replayed.
    const frames = this.version >= 8 ? session.replayAfter(typeof seqAck === 'number' ? seqAck : -1) : [];
    if (frames === null) return this.close(VoiceCloseCode.SessionNoLongerValid, 'Missed messages are gone');
    if (session.expiry) clearTimeout(session.expiry);
    session.expiry = null;
    if (session.socket && session.socket !== this) session.socket.close(VoiceCloseCode.SessionNoLongerValid, 'Resumed elsewhere');
    this.session = session;
    this.call = call;
    session.socket = this;
    session.sendUnsequenced(VoiceOpcode.Resumed, null);
    for (const f of frames) (typeof f === 'string' ? this.sendText(f) : this.sendBinary(f));
  }

  private heartbeat(d: unknown): void {
    let nonce: unknown = d;
    if (typeof d === 'object' && d !== null) {
      const { t, seq_ack: seqAck } = d as { t?: unknown; seq_ack?: unknown };
      nonce = t;
      if (typeof seqAck === 'number') this.session?.acknowledge(seqAck);
    }
    this.armHeartbeat();
    this.sendText(JSON.stringify({ op: VoiceOpcode.HeartbeatAck, d: { t: nonce ?? null } }));
  }

  private async selectProtocol(d: Record<string, unknown>): Promise<void> {
    const session = this.session!;
    const call = this.call!;
    const protocol = d.protocol;
    const data = (typeof d.data === 'object' && d.data !== null ? d.data : {}) as Record<string, unknown>;
    if (typeof protocol !== 'string' || !(this.gw.transports as readonly string[]).includes(protocol)) return this.close(VoiceCloseCode.UnknownProtocol, 'Unknown protocol');
    const mode = data.mode;
    if (typeof mode !== 'string' || !isTransportMode(mode)) return this.close(VoiceCloseCode.UnknownEncryptionMode, 'Unknown encryption mode');
    const participant = call.select(session, mode);
    participant.selfDeaf = this.gw.selfDeaf(call.lobbyId, session.userId);
    // Without SPEAK in a guild voice channel the relay drops what this participant sends.
    participant.canSpeak = this.gw.states.canSpeak(call.lobbyId, session.userId);
    session.selectedProtocol = protocol;
    const description: Record<string, unknown> = { mode, secret_key: [...session.secretKey], dave_protocol_version: DAVE_PROTOCOL_VERSION };
    if (protocol === VoiceTransport.WebSocket) {
      description.media_session = call.newMediaSession(session);
    } else if (protocol === VoiceTransport.Udp) {
      const address = typeof data.address === 'string' ? data.address : undefined;
      const port = typeof data.port === 'number' ? data.port : undefined;
      // Media is accepted from the address IP discovery saw; the client's report is a fallback.
      const remote = session.udpRemote ?? (address && port ? { address, port } : null);
      if (!remote) return this.close(VoiceCloseCode.BadRequest, 'UDP needs IP discovery first');
      session.udpRemote = remote;
      participant.sink = this.gw.udpSink(remote);
    } else if (protocol === VoiceTransport.WebRtc) {
      let answer;
      try {
        answer = await answerWebRtcOffer(data.sdp, { bindAddress: this.gw.webRtcBindAddress }, (channel) => {
          channel.onOpen(() => {
            if (session.participant !== participant) return;
            participant.sink = dataChannelSink(channel, () => call.relay.stats.congested++);
          });
          channel.onClosed(() => {
            if (participant.sink && session.participant === participant) participant.sink = null;
          });
          channel.onMessage((msg) => {
            if (typeof msg === 'string' || session.participant !== participant) return;
            const bytes = msg instanceof ArrayBuffer ? new Uint8Array(msg) : new Uint8Array(msg.buffer, msg.byteOffset, msg.length);
            if (!this.gw.media(call, session, bytes)) channel.close();
          });
        });
      } catch {
        return this.close(VoiceCloseCode.BadRequest, 'Invalid WebRTC offer');
      }
      if (this.closed || session.participant !== participant) {
        answer.peer.close();
        return;
      }
      session.peer = answer.peer;
      description.sdp = answer.sdp;
    }
    session.sendJson(VoiceOpcode.SessionDescription, description);
    // DAVE starts after op 4: clients (@discordjs/voice among them) ignore binary opcodes before it.
    if (!session.daveStarted) {
      session.daveStarted = true;
      session.sendBinary(VoiceOpcode.DaveMlsExternalSender, call.dave.externalSenderPayload());
    }
  }

  private speaking(d: Record<string, unknown>): void {
    const session = this.session!;
    const { speaking, ssrc } = d;
    if (typeof speaking !== 'number' || !Number.isInteger(speaking) || speaking < 0 || speaking > 7) return this.close(VoiceCloseCode.DecodeError, 'Bad speaking flags');
    if (ssrc !== undefined && ssrc !== session.ssrc) return this.close(VoiceCloseCode.BadRequest, 'Not your SSRC');
    session.speakingFlags = speaking;
    if (session.participant) session.participant.speakingAnnounced = true;
    for (const o of this.call!.sessions.values()) {
      if (o !== session) o.sendJson(VoiceOpcode.Speaking, { speaking, ssrc: session.ssrc, user_id: session.userId });
    }
  }

  private armHeartbeat(): void {
    if (this.heartbeatDeadline) clearTimeout(this.heartbeatDeadline);
    this.heartbeatDeadline = setTimeout(() => this.close(VoiceCloseCode.SessionTimeout, 'Session timed out'), this.gw.heartbeatIntervalMs * 2);
  }

  private onClose(code: number): void {
    this.closed = true;
    if (this.heartbeatDeadline) clearTimeout(this.heartbeatDeadline);
    const session = this.session;
    const call = this.call;
    if (!session || !call || session.socket !== this) return;
    session.socket = null;
    if (code === 1000 || code === 1001) {
      call.leave(session.userId, 1000, 'Left');
      this.gw.dropIfEmpty(call);
      return;
    }
    // Anything else may be a network cut: keep the seat for a Resume.
    session.expiry = setTimeout(() => {
      call.leave(session.userId, VoiceCloseCode.SessionTimeout, 'Resume window passed');
      this.gw.dropIfEmpty(call);
    }, this.gw.resumeWindowMs);
  }
}
