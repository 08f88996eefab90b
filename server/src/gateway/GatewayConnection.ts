import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import {
  DispatchEvent,
  GATEWAY_VERSION,
  GatewayCloseCode,
  GatewayLimits,
  GatewayOpcode,
  type ReadyData,
} from '@social-layer/protocol';
import type { GatewayHub } from './GatewayHub.ts';
import { Session } from './Session.ts';
import { beforeWrite, flushNow } from './writeCoalescer.ts';
import { largeThresholdOf } from '../guilds/guildCreatePresences.ts';

/** Bits 0-25 are the documented intents (protocols.md 1.10); anything above is invalid (4013). */
const VALID_INTENT_MASK = (1 << 26) - 1;

/** A frame is a text message whether it comes as a string or as its UTF-8 bytes (dispatchFrame.ts). */
const TEXT = { binary: false } as const;

/**
 * The protocol on one socket: Hello, heartbeats, Identify or Resume, then dispatches from the
 * session it is attached to. Every way a client can misbehave ends in the documented close code.
 */
export class GatewayConnection {
  private session: Session | null = null;
  /** Whose session this socket holds: a bot's op 3 is its guild presence, a user's is their social presence. */
  private kind: 'bearer' | 'bot' = 'bearer';
  private heartbeatDeadline: NodeJS.Timeout | null = null;
  private identifyDeadline: NodeJS.Timeout | null = null;
  private sendTimes: number[] = [];
  private closing = false;

  constructor(
    private readonly hub: GatewayHub,
    private readonly socket: WebSocket,
    /** The TCP (or TLS) socket under `socket`, corked by writeCoalescer.ts in a burst. */
    private readonly raw: Duplex,
    private readonly resumeUrl: string,
  ) {
    socket.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    socket.on('close', (code) => this.onClose(code));
    socket.on('error', () => {});
    this.sendRaw({ op: GatewayOpcode.Hello, d: { heartbeat_interval: hub.heartbeatIntervalMs }, s: null, t: null });
    this.identifyDeadline = setTimeout(() => this.close(GatewayCloseCode.SessionTimedOut, 'Identify timeout'), hub.heartbeatIntervalMs);
    this.armHeartbeatDeadline();
  }

  close(code: number, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    this.clearTimers();
    this.socket.close(code, reason);
    flushNow(this, this.raw);
  }

  /** Asks the client to reconnect and resume elsewhere (server shutdown). */
  reconnect(): void {
    this.sendRaw({ op: GatewayOpcode.Reconnect, d: null, s: null, t: null });
    this.close(4000, 'Reconnect');
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.closing) return;
    if (!this.withinRateLimit()) return this.close(GatewayCloseCode.RateLimited, 'You are being rate limited.');
    if (isBinary) return this.close(GatewayCloseCode.DecodeError, 'Binary frames are not supported with encoding=json');
    if (data.length > GatewayLimits.maxPayloadBytes) return this.close(GatewayCloseCode.DecodeError, 'Payload too large');
    let payload: unknown;
    try {
      payload = JSON.parse(data.toString('utf8'));
    } catch {
      return this.close(GatewayCloseCode.DecodeError, 'Error while decoding payload.');
    }
    if (typeof payload !== 'object' || payload === null || typeof (payload as { op?: unknown }).op !== 'number') {
      return this.close(GatewayCloseCode.DecodeError, 'Error while decoding payload.');
    }
    const { op, d } = payload as { op: number; d: unknown };
    switch (op) {
      case GatewayOpcode.Heartbeat:
        return this.onHeartbeat(d);
      case GatewayOpcode.Identify:
        return void this.onIdentify(d).catch(() => this.close(GatewayCloseCode.UnknownError, 'Unknown error'));
      case GatewayOpcode.Resume:
        return void this.onResume(d).catch(() => this.close(GatewayCloseCode.UnknownError, 'Unknown error'));
      case GatewayOpcode.VoiceStateUpdate:
        if (!this.session) return this.close(GatewayCloseCode.NotAuthenticated, 'Not authenticated.');
        return void this.onVoiceStateUpdate(d).catch(() => this.close(GatewayCloseCode.UnknownError, 'Unknown error'));
      case GatewayOpcode.PresenceUpdate:
        if (!this.session) return this.close(GatewayCloseCode.NotAuthenticated, 'Not authenticated.');
        return void this.onPresenceUpdate(d).catch(() => this.close(GatewayCloseCode.UnknownError, 'Unknown error'));
      case GatewayOpcode.RequestGuildMembers:
      case GatewayOpcode.RequestChannelInfo:
        // Guilds (issue 10): op 8 answers with GUILD_MEMBERS_CHUNK or RATE_LIMITED, op 43 with CHANNEL_INFO.
        if (!this.session) return this.close(GatewayCloseCode.NotAuthenticated, 'Not authenticated.');
        return void this.onGuildRequest(op, d).catch(() => this.close(GatewayCloseCode.UnknownError, 'Unknown error'));
      case GatewayOpcode.RequestSoundboardSounds:
        // Known opcode whose feature arrives with a later slice: accepted, nothing to do yet.
        if (!this.session) return this.close(GatewayCloseCode.NotAuthenticated, 'Not authenticated.');
        return;
      default:
        return this.close(GatewayCloseCode.UnknownOpcode, 'Unknown opcode.');
    }
  }

  private onHeartbeat(d: unknown): void {
    if (d !== null && d !== undefined && !(typeof d === 'number' && Number.isInteger(d))) {
      return this.close(GatewayCloseCode.DecodeError, 'Invalid heartbeat.');
    }
    if (typeof d === 'number') this.session?.acknowledge(d);
    if (this.session) this.hub.heartbeat(this.session);
    this.armHeartbeatDeadline();
    this.sendRaw({ op: GatewayOpcode.HeartbeatAck, d: null, s: null, t: null });
  }

  private async onIdentify(d: unknown): Promise<void> {
    if (this.session) return this.close(GatewayCloseCode.AlreadyAuthenticated, 'You sent more than one identify payload.');
    if (typeof d !== 'object' || d === null) return this.close(GatewayCloseCode.DecodeError, 'Invalid identify payload.');
    const { token, intents, capabilities, large_threshold: largeThreshold } = d as { token?: unknown; intents?: unknown; capabilities?: unknown; large_threshold?: unknown };
    if (typeof token !== 'string' || token.length === 0 || token.length > 512) return this.close(GatewayCloseCode.AuthenticationFailed, 'Authentication failed.');
    if (intents !== undefined && (typeof intents !== 'number' || !Number.isInteger(intents) || intents < 0 || (intents & ~VALID_INTENT_MASK) !== 0)) {
      return this.close(GatewayCloseCode.InvalidIntents, 'Invalid intent(s).');
    }
    const identity = await this.hub.authenticate(token);
    if (this.closing) return;
    if (!identity) return this.close(GatewayCloseCode.AuthenticationFailed, 'Authentication failed.');
    // Privileged intents the application has not enabled close the socket with 4014 (issue 10).
    if (identity.kind === 'bot' && this.hub.guilds && !(await this.hub.guilds.privilegedIntentsAllowed(identity.applicationId, (intents as number | undefined) ?? 0))) {
      if (this.closing) return;
      return this.close(GatewayCloseCode.DisallowedIntents, 'Disallowed intent(s).');
    }
    if (this.closing) return;
    // Session start limit (GET /gateway/bot's session_start_limit): over it, op 9 and 4008.
    const allowed = await this.hub.sessionStartAllowed(identity);
    if (this.closing) return;
    if (!allowed) {
      this.sendRaw({ op: GatewayOpcode.InvalidSession, d: false, s: null, t: null });
      return this.close(GatewayCloseCode.RateLimited, 'Session start limit reached.');
    }
    if (this.identifyDeadline) clearTimeout(this.identifyDeadline);
    const session = new Session(randomBytes(16).toString('hex'), identity.user.id, identity.applicationId, token, this.hub.maxBufferedDispatches);
    this.session = session;
    session.attach((frame, mayWait) => this.sendFrame(frame, mayWait));
    // Count the connection before reading the lobbies, so READY already shows this user connected;
    // and before any await, so a socket that closes meanwhile is uncounted by onClose in step.
    // A bot counts too, in its own tracker: it is online to its guilds while it has a session.
    this.kind = identity.kind;
    this.hub.track(session, identity.kind);
    const meta = { kind: identity.kind, intents: (intents as number | undefined) ?? 0, capabilities: typeof capabilities === 'number' && Number.isInteger(capabilities) ? capabilities : 0 };
    await this.hub.register(session, meta);
    // Guild dispatches filtered by this session's intents and capabilities; READY lists the guilds as unavailable.
    // A session that hears no guild still gets its own voice state (the SDK's guild voice call).
    await this.hub.guilds?.attach(session, meta.intents, meta.capabilities, identity.user.bot === true, !identity.guildEvents, largeThresholdOf(largeThreshold));
    const guildHub = identity.guildEvents ? this.hub.guilds : undefined;
    const guilds = guildHub ? await guildHub.readyGuilds(identity.user.id) : [];
    const stored = await this.hub.readyStoreFields?.({ kind: identity.kind, applicationId: identity.applicationId, userId: identity.user.id });
    const ready: ReadyData = {
      v: GATEWAY_VERSION,
      user: identity.user,
      session_id: session.id,
      resume_gateway_url: this.resumeUrl,
      application: stored?.application ?? { id: identity.applicationId, flags: 0 },
      guilds,
      // Always present, as in the public READY (clients iterate it): empty for bots.
      private_channels: stored?.private_channels ?? [],
      session_type: 'normal',
      lobbies: identity.kind === 'bearer' ? await this.hub.lobbies.lobbiesOf(identity.applicationId, identity.user.id) : [],
      // Relationships, friends' presences, own status and open invites (issue 6).
      ...(identity.kind === 'bearer' && this.hub.social ? await this.hub.social.readyData(identity.applicationId, identity.user.id) : {}),
    };
    // The session was subscribed before the lobbies were read, so a change made meanwhile is
    // either in READY or held and sent right after it; none falls between the two.
    session.sendReady(JSON.stringify(identity.kind === 'bearer' && this.hub.readyProfiles ? await this.hub.readyProfiles(identity.applicationId, ready) : ready));
    // One GUILD_CREATE per guild in READY (discord.js waits for them before `ready`).
    await guildHub?.sendGuildCreates(session, guilds.map((g) => g.id));
    // An initial presence in Identify is applied as an op 3 right after READY.
    const presence = (d as { presence?: unknown }).presence;
    if (presence !== undefined && presence !== null) await this.onPresenceUpdate(presence);
  }

  /**
   * Op 3: a user's status and this game's activity, validated as `PUT /users/@me/activities` is;
   * a bot's status, activities, afk and since (public Update Presence), seen by its guilds. Else 4001.
   */
  private async onPresenceUpdate(d: unknown): Promise<void> {
    const session = this.session;
    if (session && this.kind === 'bot') {
      if (!this.hub.guildPresences) return;
      if (!(await this.hub.guildPresences.botUpdate(session.userId, d))) this.close(GatewayCloseCode.UnknownOpcode, 'Invalid payload for opcode.');
      return;
    }
    if (!session || !this.hub.social || !this.hub.connections.isConnected(session.applicationId, session.userId)) return;
    const ok = await this.hub.social.gatewayPresenceUpdate(session.applicationId, session.userId, d);
    if (!ok) this.close(GatewayCloseCode.UnknownOpcode, 'Invalid payload for opcode.');
  }

  private async onResume(d: unknown): Promise<void> {
    if (this.session) return this.close(GatewayCloseCode.AlreadyAuthenticated, 'Already authenticated.');
    if (typeof d !== 'object' || d === null) return this.close(GatewayCloseCode.DecodeError, 'Invalid resume payload.');
    const { token, session_id: sessionId, seq } = d as { token?: unknown; session_id?: unknown; seq?: unknown };
    if (typeof token !== 'string' || typeof sessionId !== 'string' || !(seq === null || (typeof seq === 'number' && Number.isInteger(seq)))) {
      return this.close(GatewayCloseCode.DecodeError, 'Invalid resume payload.');
    }
    // Unknown here and not shared: no need to look the token up.
    if (!this.hub.shared && !this.hub.sessions.has(sessionId)) return this.invalidSession();
    const identity = await this.hub.authenticate(token);
    if (this.closing) return;
    if (!identity) return this.invalidSession();
    // This node's session, or (with Redis) one taken over from the node the client was cut from.
    const session = await this.hub.resumable(sessionId, token, identity);
    if (!session) return this.closing ? undefined : this.invalidSession();
    // A session rebuilt from Redis has no socket and no expiry yet: if this socket does not take
    // it (gone meanwhile, or a bad seq), it waits for the next Resume like any dropped session.
    const unattached = () => {
      if (!session.attached && !session.waiting) this.hub.orphan(session);
    };
    if (this.closing) return unattached();
    const frames = session.framesAfter(seq ?? 0);
    if (frames === 'invalid-seq') {
      unattached();
      return this.close(GatewayCloseCode.InvalidSeq, 'Invalid seq.');
    }
    if (frames === 'lost') {
      this.hub.endSession(session);
      return this.invalidSession();
    }
    if (this.identifyDeadline) clearTimeout(this.identifyDeadline);
    // The same session may still hold an old socket (a half-open connection): that one loses.
    this.hub.takeOver(session, this);
    this.session = session;
    for (const f of frames) this.sendFrame(f);
    session.attach((frame, mayWait) => this.sendFrame(frame, mayWait));
    session.send(DispatchEvent.Resumed, '{}');
    this.kind = identity.kind;
    this.hub.track(session, identity.kind);
    // Voice states follow the session to this node (issue 18): refreshed here from now on, and a
    // fresh VOICE_SERVER_UPDATE when its call moved while it was away. Nothing without Redis.
    void this.hub.voice?.adoptSession(session.id).catch(() => {});
  }

  /** Op 4: join or leave a lobby's call (contracts-voice.md 1) or a guild voice channel (with `guild_id`). */
  private async onVoiceStateUpdate(d: unknown): Promise<void> {
    const session = this.session!;
    const cmd = d as { guild_id?: unknown; channel_id?: unknown; self_mute?: unknown; self_deaf?: unknown; lobby_id?: unknown } | null;
    const snowflake = (v: unknown) => typeof v === 'string' && /^\d{1,20}$/.test(v);
    if (
      typeof cmd !== 'object' || cmd === null ||
      !(cmd.channel_id === null || snowflake(cmd.channel_id)) ||
      !(cmd.lobby_id === undefined || cmd.lobby_id === null || snowflake(cmd.lobby_id)) ||
      !(cmd.guild_id === undefined || cmd.guild_id === null || snowflake(cmd.guild_id)) ||
      typeof cmd.self_mute !== 'boolean' || typeof cmd.self_deaf !== 'boolean'
    ) {
      return this.close(GatewayCloseCode.UnknownOpcode, 'Invalid payload for opcode.');
    }
    if (!this.hub.voice) return;
    const joined = await this.hub.voice.update(
      { id: session.id, userId: session.userId, applicationId: session.applicationId },
      {
        channel_id: cmd.channel_id as string | null,
        self_mute: cmd.self_mute,
        self_deaf: cmd.self_deaf,
        ...(typeof cmd.lobby_id === 'string' ? { lobby_id: cmd.lobby_id } : {}),
        ...(typeof cmd.guild_id === 'string' ? { guild_id: cmd.guild_id } : {}),
      },
    );
    if (!joined || session.closed) return;
    // The call owner's voice gateway (issue 18: in a cluster, maybe another node's; alone, this one's).
    const endpoint = joined.endpoint;
    // The voice token goes to the requesting session only, not to the user's other sessions.
    // guild_id for a guild voice channel (Discord clients key their voice connection on it); lobby_id is the call key either way.
    session.send(DispatchEvent.VoiceServerUpdate, JSON.stringify({ token: joined.token, guild_id: joined.guildId, lobby_id: joined.lobbyId, endpoint }));
  }

  /** Op 8 and op 43 (issue 10): a malformed payload closes with 4001, as op 3 does. */
  private async onGuildRequest(op: number, d: unknown): Promise<void> {
    const session = this.session;
    if (!session || !this.hub.guilds) return;
    const ok = op === GatewayOpcode.RequestGuildMembers ? await this.hub.guilds.requestGuildMembers(session, d) : await this.hub.guilds.requestChannelInfo(session, d);
    if (!ok) this.close(GatewayCloseCode.UnknownOpcode, 'Invalid payload for opcode.');
  }

  private invalidSession(): void {
    this.sendRaw({ op: GatewayOpcode.InvalidSession, d: false, s: null, t: null });
  }

  owns(session: Session): boolean {
    return this.session === session;
  }

  /** Detaches from the session without ending it (another socket resumed it). */
  release(): void {
    this.session = null;
    this.close(GatewayCloseCode.SessionTimedOut, 'Session resumed elsewhere');
  }

  private onClose(code: number): void {
    this.clearTimers();
    this.closing = true;
    const session = this.session;
    this.session = null;
    if (!session) return;
    this.hub.detach(session, code === 1000 || code === 1001);
  }

  private armHeartbeatDeadline(): void {
    if (this.heartbeatDeadline) clearTimeout(this.heartbeatDeadline);
    // The first heartbeat may come up to one interval late (client jitter); allow half more for latency.
    this.heartbeatDeadline = setTimeout(() => this.close(GatewayCloseCode.SessionTimedOut, 'Session timed out'), this.hub.heartbeatIntervalMs * 1.5);
  }

  private withinRateLimit(): boolean {
    const now = Date.now();
    const windowStart = now - GatewayLimits.sendWindowMs;
    while (this.sendTimes.length > 0 && this.sendTimes[0]! < windowStart) this.sendTimes.shift();
    this.sendTimes.push(now);
    return this.sendTimes.length <= GatewayLimits.sendsPerWindow;
  }

  private clearTimers(): void {
    if (this.heartbeatDeadline) clearTimeout(this.heartbeatDeadline);
    if (this.identifyDeadline) clearTimeout(this.identifyDeadline);
    this.heartbeatDeadline = null;
    this.identifyDeadline = null;
  }

  private sendRaw(payload: { op: number; d: unknown; s: null; t: null }): void {
    this.sendFrame(JSON.stringify(payload));
  }

  /** writeCoalescer.ts's record of this socket's writes. */
  lastTurn = -1;
  corkedTurn = -1;
  lastWriteAt = 0;
  holding = false;

  /** `mayWait`: a roster frame, which writeCoalescer.ts may hold for the frames after it. */
  private sendFrame(frame: string | Buffer, mayWait = false): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    beforeWrite(this, this.raw, mayWait);
    this.socket.send(frame, TEXT);
  }
}
