import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import dgram from 'node:dgram';
import { WebSocketServer, type WebSocket } from 'ws';
import { VoiceCloseCode, VoiceTransport } from '@social-layer/protocol';
import type { CryptoBackend } from '@social-layer/core-wasm';
import type { Logger } from '../log/Logger.ts';
import type { DaveDeliveryFactory } from './dave.ts';
import type { MediaSink } from './MediaRelay.ts';
import { createMediaSocket } from './UdpMediaSocket.ts';
import { VoiceCall } from './VoiceCall.ts';
import { VoiceConnection } from './VoiceConnection.ts';
import type { VoiceSession } from './VoiceSession.ts';
import type { VoiceStateService } from './VoiceStateService.ts';

/**
 * What the voice gateway needs of the server's WebSocket upgrade routing: a path to take. startServer
 * passes http/UpgradeRouter.ts, which lies above this folder and is not imported from here.
 */
interface UpgradeRoutes {
  route(path: string, handler: (req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) => void): void;
}

export interface VoiceGatewayOptions {
  heartbeatIntervalMs: number;
  resumeWindowMs: number;
  maxBufferedMessages: number;
  /** Where the UDP media socket binds; port 0 picks one. */
  udpHost: string;
  udpPort: number;
  /** The address clients should send UDP to, when it differs from the bind address. */
  udpPublicHost?: string;
}

const DISCOVERY_LENGTH = 74;

/**
 * The voice gateway (`/voice?v=8`), the websocket media transport (`/voice/media`) and the UDP
 * media socket, over the calls on this node. A call is created on its first Identify and goes
 * away with its last participant.
 */
export class VoiceGatewayServer {
  private readonly calls = new Map<string, VoiceCall>();
  private readonly bySsrc = new Map<number, { session: VoiceSession; call: VoiceCall }>();
  private readonly pendingCalls = new Map<string, Promise<VoiceCall>>();
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });
  private readonly mediaWss = new WebSocketServer({ noServer: true, maxPayload: 4096 });
  private readonly udp: dgram.Socket;
  readonly transports = [VoiceTransport.Udp, VoiceTransport.WebSocket, VoiceTransport.WebRtc] as const;
  udpAddress = { address: '127.0.0.1', port: 0 };

  constructor(
    upgrades: UpgradeRoutes,
    readonly states: VoiceStateService,
    private readonly backend: CryptoBackend,
    private readonly daveFactory: DaveDeliveryFactory,
    private readonly options: VoiceGatewayOptions,
    private readonly log: Logger,
  ) {
    upgrades.route('/voice', (req, socket, head) =>
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        // A version must be passed (no default), and those below 4 are discontinued (spec, voice 4).
        const version = voiceGatewayVersion(req.url);
        if (version === undefined) return ws.close(VoiceCloseCode.BadRequest, 'Pass v=4 to v=8: no other voice gateway version is served');
        new VoiceConnection(this, ws, version);
      }),
    );
    upgrades.route('/voice/media', (req, socket, head) => this.mediaWss.handleUpgrade(req, socket, head, (ws) => this.acceptMedia(ws)));
    this.udp = createMediaSocket(options.udpHost);
    this.udp.on('message', (msg, rinfo) => this.onUdp(msg, rinfo));
    this.udp.on('error', (err) => this.log.warn({ err }, 'udp error'));
    states.hasVoiceSession = (lobbyId, userId) => this.calls.get(lobbyId)?.sessions.has(userId) ?? false;
    states.onFlags((lobbyId, userId, state) => {
      const participant = this.calls.get(lobbyId)?.sessions.get(userId)?.participant;
      if (participant) {
        // Deaf by themself or by the server; silent without SPEAK (suppress) or server-muted.
        participant.selfDeaf = state.self_deaf || state.deaf;
        participant.canSpeak = state.suppress !== true && state.mute !== true;
      }
    });
    // Leaving by the main Gateway (op 4 null, lobby left, session ended) ends the voice seat.
    states.onLeave((lobbyId, userId) => {
      const call = this.calls.get(lobbyId);
      if (!call) return;
      call.leave(userId, VoiceCloseCode.Disconnected, 'Disconnected');
      this.dropIfEmpty(call);
    });
  }

  /** Whether a user is deaf in a call, by the main Gateway's account (applied at Select Protocol). */
  selfDeaf(lobbyId: string, userId: string): boolean {
    return this.states.isDeaf(lobbyId, userId);
  }

  get heartbeatIntervalMs(): number {
    return this.options.heartbeatIntervalMs;
  }

  get resumeWindowMs(): number {
    return this.options.resumeWindowMs;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.udp.once('error', reject);
      this.udp.bind(this.options.udpPort, this.options.udpHost, () => {
        this.udp.off('error', reject);
        resolve();
      });
    });
    const a = this.udp.address();
    this.udpAddress = { address: this.options.udpPublicHost ?? a.address, port: a.port };
  }

  async callFor(lobbyId: string): Promise<VoiceCall> {
    const existing = this.calls.get(lobbyId);
    if (existing) return existing;
    let pending = this.pendingCalls.get(lobbyId);
    if (!pending) {
      pending = this.daveFactory(lobbyId).then((dave) => {
        const call = new VoiceCall(lobbyId, dave, this.backend, this.log, this.options.maxBufferedMessages, this.bySsrc, (userId, present) => this.states.seatChanged(lobbyId, userId, present));
        this.calls.set(lobbyId, call);
        this.pendingCalls.delete(lobbyId);
        return call;
      });
      this.pendingCalls.set(lobbyId, pending);
    }
    return pending;
  }

  existingCall(lobbyId: string): VoiceCall | undefined {
    return this.calls.get(lobbyId);
  }

  /** The voice seat a Resume names by its token (any call: a guild call is keyed by channel, resumed by guild). */
  sessionByToken(tokenHash: string, sessionId: string): { session: VoiceSession; call: VoiceCall } | undefined {
    for (const call of this.calls.values()) {
      for (const session of call.sessions.values()) if (session.tokenHash === tokenHash && session.grant.sessionId === sessionId) return { session, call };
    }
    return undefined;
  }

  dropIfEmpty(call: VoiceCall): void {
    if (!call.empty || this.calls.get(call.lobbyId) !== call) return;
    this.calls.delete(call.lobbyId);
    call.close(VoiceCloseCode.CallTerminated, 'Call ended');
  }

  udpSink(remote: { address: string; port: number }): MediaSink {
    // dgram keeps the buffer until sent: copy the relay's scratch view (pooled, small).
    return { send: (packet) => this.udp.send(Buffer.from(packet), remote.port, remote.address) };
  }

  /** Relay statistics of a call, for tests and diagnostics. */
  relayOf(lobbyId: string) {
    return this.calls.get(lobbyId)?.relay;
  }

  /** The websocket transport: one text frame names the session, then every binary frame is a packet. */
  private acceptMedia(ws: WebSocket): void {
    let session: VoiceSession | null = null;
    let call: VoiceCall | null = null;
    const timeout = setTimeout(() => ws.close(VoiceCloseCode.NotAuthenticated, 'No media_session'), 10_000);
    ws.on('error', () => {});
    ws.on('message', (data: Buffer, isBinary) => {
      if (!session) {
        clearTimeout(timeout);
        let name: unknown;
        try {
          name = isBinary ? undefined : (JSON.parse(data.toString('utf8')) as { media_session?: unknown }).media_session;
        } catch {
          name = undefined;
        }
        const found = typeof name === 'string' ? this.findMediaSession(name) : undefined;
        if (!found || !found.session.participant) return ws.close(VoiceCloseCode.AuthenticationFailed, 'Unknown media session');
        ({ session, call } = found);
        const participant = found.session.participant;
        // ws may queue the bytes: copy the relay's scratch view (pooled, small).
        participant.sink = { send: (packet) => ws.readyState === ws.OPEN && ws.send(Buffer.from(packet), { binary: true }) };
        ws.once('close', () => {
          if (participant.sink && session?.participant === participant) participant.sink = null;
        });
        return;
      }
      if (!isBinary || !call) return ws.close(VoiceCloseCode.DecodeError, 'Media frames are binary');
      if (!this.media(call, session, new Uint8Array(data.buffer, data.byteOffset, data.length))) ws.close(VoiceCloseCode.BadRequest, 'Too many bad packets');
    });
  }

  /**
   * One inbound packet from any transport. Returns false when the sender was closed for abuse
   * (the caller then drops its transport too).
   */
  media(call: VoiceCall, session: VoiceSession, packet: Uint8Array): boolean {
    if (!session.participant) return true;
    if (call.relay.handle(session.participant, packet) !== 'abusive') return true;
    session.socket?.close(VoiceCloseCode.BadRequest, 'Too many bad packets');
    return false;
  }

  /** Where the webrtc transport binds its ICE candidates (the UDP media host). */
  get webRtcBindAddress(): string {
    return this.options.udpHost;
  }

  private findMediaSession(name: string): { session: VoiceSession; call: VoiceCall } | undefined {
    for (const call of this.calls.values()) {
      for (const session of call.sessions.values()) if (session.mediaSession === name && session.selectedProtocol === VoiceTransport.WebSocket) return { session, call };
    }
    return undefined;
  }

  private onUdp(msg: Buffer, rinfo: dgram.RemoteInfo): void {
    if (msg.length === DISCOVERY_LENGTH && msg.readUInt16BE(0) === 1 && msg.readUInt16BE(2) === 70) {
      const found = this.findBySsrc(msg.readUInt32BE(4));
      if (!found) return;
      found.session.udpRemote = { address: rinfo.address, port: rinfo.port };
      const reply = Buffer.alloc(DISCOVERY_LENGTH);
      reply.writeUInt16BE(2, 0);
      reply.writeUInt16BE(70, 2);
      reply.writeUInt32BE(found.session.ssrc, 4);
      reply.write(rinfo.address, 8, 63, 'ascii');
      reply.writeUInt16BE(rinfo.port, 72);
      this.udp.send(reply, rinfo.port, rinfo.address);
      return;
    }
    // Keep-alives (8 bytes) and anything too short to be RTP are ignored.
    if (msg.length < 12) return;
    const found = this.findBySsrc(msg.readUInt32BE(8));
    if (!found || !found.session.participant || found.session.selectedProtocol !== VoiceTransport.Udp) return;
    const remote = found.session.udpRemote;
    // Packets must come from the address that did IP discovery for this SSRC: no spoofed senders.
    if (!remote || remote.address !== rinfo.address || remote.port !== rinfo.port) return;
    this.media(found.call, found.session, new Uint8Array(msg.buffer, msg.byteOffset, msg.length));
  }

  private findBySsrc(ssrc: number): { session: VoiceSession; call: VoiceCall } | undefined {
    return this.bySsrc.get(ssrc);
  }

  async close(): Promise<void> {
    for (const call of this.calls.values()) call.close(VoiceCloseCode.VoiceServerCrashed, 'Server shutting down');
    this.calls.clear();
    await new Promise<void>((r) => this.wss.close(() => r()));
    await new Promise<void>((r) => this.mediaWss.close(() => r()));
    await new Promise<void>((r) => this.udp.close(() => r()));
  }
}

/** The voice gateway version a connection asked for (`?v=`), when it is one served: 4 to 8. */
export function voiceGatewayVersion(url: string | undefined): number | undefined {
  const v = new URL(url ?? '/', 'http://voice').searchParams.get('v');
  if (v === null || !/^[0-9]$/.test(v)) return undefined;
  const n = Number(v);
  return n >= 4 && n <= 8 ? n : undefined;
}
