import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { GATEWAY_VERSION, GatewayCloseCode, type ReadyData } from '@social-layer/protocol';
import type { ConnectionTracker } from '../events/ConnectionTracker.ts';
import { type EventBus, userTopic } from '../events/EventBus.ts';
import type { LobbyService } from '../lobbies/LobbyService.ts';
import type { SocialServices } from '../social/SocialServices.ts';
import type { VoiceStateService } from '../voice/VoiceStateService.ts';
import type { Logger } from '../log/Logger.ts';
import type { GuildGateway } from '../guilds/GuildGateway.ts';
import type { GuildPresenceFanout } from '../guilds/GuildPresenceFanout.ts';
import { GatewayConnection } from './GatewayConnection.ts';
import type { RedisSessionStore, SessionMeta } from './RedisSessionStore.ts';
import { Session } from './Session.ts';
import type { SessionStartLimit } from './SessionStartLimit.ts';
import type { ReadyStoreFields } from './readyFields.ts';
import type { GatewayHub, GatewayIdentity } from './GatewayHub.ts';

export type { GatewayIdentity };

/**
 * What the Gateway needs of the server's WebSocket upgrade routing: a path to take. startServer
 * passes http/UpgradeRouter.ts, which lies above this folder and is not imported from here.
 */
interface UpgradeRoutes {
  route(path: string, handler: (req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) => void): void;
}

export interface GatewayServerOptions {
  heartbeatIntervalMs: number;
  resumeWindowMs: number;
  maxBufferedDispatches: number;
  /**
   * The identity behind an Identify's or Resume's token. `scheme` is the prefix it was sent with,
   * if any: `bot` may only be a bot token and `bearer` only a user's token, as on REST; a bare
   * token (what bot libraries send) may be either.
   */
  authenticate(token: string, scheme?: 'bot' | 'bearer'): Promise<GatewayIdentity | undefined>;
  publicWsUrl(): string;
  /** Identify budgets per application and per user (issue 9, fix 8); none: unlimited. */
  sessionStarts?: SessionStartLimit;
  /** Concurrent Gateway sockets per client address; over it, the upgrade answers 429. Default: unlimited. */
  maxSocketsPerAddress?: number;
  /** Sessions shared through Redis, so a Resume works on any node; none: this node's memory only. */
  shared?: RedisSessionStore;
}

/** Bus topic on which the node that took a session over tells the others to let it go. */
const RELEASE_TOPIC = 'gw:release';

/** The Gateway endpoint: accepts sockets on /gateway and keeps the sessions that outlive them. */
export class GatewayServer implements GatewayHub {
  readonly sessions = new Map<string, Session>();
  private readonly unsubscribe = new Map<string, () => void>();
  private readonly connections_ = new Set<GatewayConnection>();
  private readonly wss: WebSocketServer;
  private readonly socketsPerAddress = new Map<string, number>();
  /** Lobby calls (op 4); set by startServer. */
  voice: VoiceStateService | null = null;
  /** Relationships, presence and invites in READY, and op 3; set by startServer. */
  social: SocialServices | null = null;
  /** Guilds in READY, GUILD_CREATE, guild dispatches, op 8 and op 43 (issue 10); set by startServer. */
  guilds: GuildGateway | null = null;
  /** Adds the game profiles of the users READY names (issue 19); set by startServer. */
  readyProfiles: ((applicationId: string, ready: ReadyData) => Promise<ReadyData>) | null = null;
  /** READY's `application` (with its flags) and `private_channels`; set by startServer (gateway/readyFields.ts). */
  readyStoreFields: ((identity: { kind: 'bearer' | 'bot'; applicationId: string; userId: string }) => Promise<ReadyStoreFields>) | null = null;
  /** Bots' sessions on any node (users' are `connections`): a bot is online to its guilds while it has one. Set by startServer. */
  botConnections: ConnectionTracker | null = null;
  /** Guild presences: a bot's op 3 goes here; set by startServer. */
  guildPresences: GuildPresenceFanout | null = null;

  constructor(
    upgrades: UpgradeRoutes,
    private readonly options: GatewayServerOptions,
    private readonly bus: EventBus,
    readonly connections: ConnectionTracker,
    readonly lobbies: LobbyService,
    private readonly log: Logger,
  ) {
    // maxPayload is a backstop well above the 4096-byte protocol limit, which the connection
    // checks itself so it can close with 4002 instead of ws's generic 1009.
    this.wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
    upgrades.route('/gateway', (req, socket, head, url) => {
      // One address cannot hold every Gateway socket (issue 9, fix 8): the excess is refused
      // before the upgrade, as an HTTP 429 the client can read.
      const address = req.socket.remoteAddress ?? 'unknown';
      const open = this.socketsPerAddress.get(address) ?? 0;
      if (open >= (this.options.maxSocketsPerAddress ?? Infinity)) {
        socket.end('HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 32\r\n\r\nToo many Gateway connections.\r\n\r\n');
        return;
      }
      this.socketsPerAddress.set(address, open + 1);
      let counted = true;
      const release = () => {
        if (!counted) return;
        counted = false;
        const left = (this.socketsPerAddress.get(address) ?? 1) - 1;
        if (left <= 0) this.socketsPerAddress.delete(address);
        else this.socketsPerAddress.set(address, left);
      };
      socket.once('close', release);
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, socket, req, url));
    });
    if (options.shared) {
      this.unsubscribeRelease = bus.subscribe(RELEASE_TOPIC, (d) => this.onRelease(d.t, d.json));
      this.unsubscribeResubscribed = bus.onResubscribed?.(() => this.handBack('bus subscriber reconnected'));
    }
  }

  private unsubscribeRelease: (() => void) | null = null;
  private unsubscribeResubscribed: (() => void) | undefined;

  get shared(): RedisSessionStore | undefined {
    return this.options.shared;
  }

  get heartbeatIntervalMs(): number {
    return this.options.heartbeatIntervalMs;
  }

  get maxBufferedDispatches(): number {
    return this.options.maxBufferedDispatches;
  }

  /** Counts an Identify against the session start budgets; false when the session must not start. */
  sessionStartAllowed(identity: GatewayIdentity): Promise<boolean> {
    return this.options.sessionStarts?.start({ kind: identity.kind, applicationId: identity.applicationId, userId: identity.user.id }) ?? Promise.resolve(true);
  }

  authenticate(token: string): Promise<GatewayIdentity | undefined> {
    const prefixed = /^(Bearer|Bot)\s+/i.exec(token);
    if (!prefixed) return this.options.authenticate(token);
    return this.options.authenticate(token.slice(prefixed[0].length), prefixed[1]!.toLowerCase() as 'bot' | 'bearer');
  }

  private accept(ws: WebSocket, raw: Duplex, req: IncomingMessage, url: URL): void {
    const v = url.searchParams.get('v');
    const encoding = url.searchParams.get('encoding');
    if (v !== null && Number(v) !== GATEWAY_VERSION && Number(v) !== 9) {
      ws.close(GatewayCloseCode.InvalidApiVersion, 'Invalid API version');
      return;
    }
    if (encoding !== null && encoding !== 'json') {
      ws.close(GatewayCloseCode.DecodeError, 'Only encoding=json is supported');
      return;
    }
    const conn = new GatewayConnection(this, ws, raw, this.options.publicWsUrl());
    this.connections_.add(conn);
    ws.on('close', () => this.connections_.delete(conn));
  }

  /**
   * Subscribes the session to its user's topic; resolves when the subscription is live. With
   * shared sessions the record is written first, so from then on the user's dispatches are
   * streamed, and the session's frames are written out as they are sent.
   */
  async register(session: Session, meta: SessionMeta): Promise<void> {
    this.sessions.set(session.id, session);
    const topic = userTopic(session.applicationId, session.userId);
    this.unsubscribe.set(session.id, this.bus.subscribe(topic, (d) => session.dispatch(d)));
    const shared = this.options.shared;
    if (shared) {
      await shared.open(session.id, topic, session.userId, session.applicationId, session.token, meta);
      session.onFrame = (s, frame, u) => this.storeFrame(session, s, frame, u);
    }
    await this.bus.whenSubscribed(topic);
    if (shared) await shared.markFrom(session.id, topic);
  }

  /** A heartbeat: a shared session's record is kept alive (a dead node's sessions lapse). */
  heartbeat(session: Session): void {
    this.options.shared?.refresh(session.id, userTopic(session.applicationId, session.userId));
  }

  /** A session of this node has a socket again (Identify or Resume): its user, or its bot, counts as connected. */
  track(session: Session, kind: 'bearer' | 'bot'): void {
    if (kind === 'bot') this.botConnections?.attach(session.applicationId, session.userId);
    else this.connections.attach(session.applicationId, session.userId);
  }

  /** A session's socket went: each tracker forgets it (the one that never counted it ignores it). */
  private untrack(session: Session, graceful: boolean): void {
    this.connections.detach(session.applicationId, session.userId, graceful);
    this.botConnections?.detach(session.applicationId, session.userId, graceful);
  }

  /** A socket closed. A clean close (1000/1001) ends the session; anything else leaves it resumable. */
  detach(session: Session, graceful: boolean): void {
    this.untrack(session, graceful);
    if (graceful) {
      this.endSession(session);
      return;
    }
    this.orphan(session);
  }

  /** The session has no socket: it waits for a Resume (here or, when shared, on any node) until the window ends. */
  orphan(session: Session): void {
    const shared = this.options.shared;
    shared?.detached(session.id, userTopic(session.applicationId, session.userId));
    session.detach(this.options.resumeWindowMs, () => {
      if (!shared) return this.endSession(session);
      // Shared: the window ran out here, but the session may live on another node now (its
      // takeover announcement missed, as pub/sub drops on a reconnect). Ending it would take
      // its voice seats from under the node that holds it; this copy just goes.
      void shared.owner(session.id).then((owner) => {
        if (session.closed || session.attached || this.sessions.get(session.id) !== session) return;
        if (owner !== null && owner !== shared.nodeId) this.releaseSession(session);
        else this.endSession(session);
      });
    });
  }

  /**
   * The session a Resume names, ready to be attached: this node's own, or (shared) one taken over
   * from another node, rebuilt from Redis. Null when unknown, expired, not this token's, or when
   * frames it needs are gone: the client gets op 9.
   */
  async resumable(sessionId: string, token: string, identity: GatewayIdentity): Promise<Session | null> {
    const local = this.sessions.get(sessionId);
    const shared = this.options.shared;
    const matches = (s: { userId: string; applicationId: string }) => s.userId === identity.user.id && s.applicationId === identity.applicationId;
    if (!shared) return local && !local.closed && matches(local) ? local : null;
    const claimed = await shared.claim(sessionId, token);
    if (!claimed || !matches(claimed)) return null;
    // It never left this node: the frames in memory are the whole story.
    if (local && !local.closed && claimed.previousNode === shared.nodeId) return local;
    if (local) this.releaseSession(local);
    if (claimed.previousNode !== shared.nodeId) this.bus.publish(RELEASE_TOPIC, { t: shared.nodeId, json: JSON.stringify(sessionId) });
    const session = new Session(sessionId, claimed.userId, claimed.applicationId, token, this.options.maxBufferedDispatches);
    const topic = userTopic(claimed.applicationId, claimed.userId);
    this.sessions.set(sessionId, session);
    // Subscribe first and hold what arrives (the session starts in its pre-READY state), then
    // read the streams: nothing published in between falls through, and duplicates are dropped.
    this.unsubscribe.set(sessionId, this.bus.subscribe(topic, (d) => session.dispatch(d)));
    try {
      await this.bus.whenSubscribed(topic);
      const restored = await shared.restore(sessionId, topic, claimed.from, claimed.trimmedUpTo);
      if (restored === 'lost' || session.closed) {
        this.endSession(session);
        return null;
      }
      session.onFrame = (s, frame, u) => this.storeFrame(session, s, frame, u);
      session.restore(restored.frames, restored.missed, restored.seen);
      await this.guilds?.attach(session, claimed.intents, claimed.capabilities, identity.user.bot === true, !identity.guildEvents);
      return session;
    } catch (err) {
      // Redis or the database failed mid-rebuild (the client is closed with 4000): the half-built
      // copy goes, record kept, so the client's next Resume rebuilds it. Kept, no socket ever
      // reached it, and it held every dispatch to the user in memory for as long as the node ran.
      if (!session.closed) this.releaseSession(session);
      throw err;
    }
  }

  private storeFrame(session: Session, s: number, frame: string, u: string): void {
    this.options.shared!.append(session.id, s, frame, u).then(
      (owned) => {
        // Another node took the session over: this copy stops buffering, quietly.
        if (!owned && !session.closed && this.sessions.get(session.id) === session) this.releaseSession(session);
      },
      () => {},
    );
  }

  /** Another node announced a takeover: let our copy go, once Redis confirms we no longer own it. */
  private onRelease(byNode: string, json: string): void {
    const shared = this.options.shared;
    if (!shared || byNode === shared.nodeId) return;
    let sessionId: unknown;
    try {
      sessionId = JSON.parse(json);
    } catch {
      return;
    }
    const session = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    if (!session) return;
    // A stale announcement must not drop a session this node took back since: ask the record.
    void shared.owner(session.id).then((owner) => {
      if (owner !== shared.nodeId && this.sessions.get(session.id) === session) this.releaseSession(session);
    });
  }

  /**
   * This node lets a session go without ending it (another node holds it now, or this node shuts
   * down): no voice cleanup, no record deleted, only the local copy and any socket still on it.
   */
  releaseSession(session: Session): void {
    for (const c of this.connections_) {
      if (c.owns(session)) {
        this.untrack(session, false);
        c.release();
      }
    }
    this.guilds?.detach(session.id);
    session.close();
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
    this.unsubscribe.get(session.id)?.();
    this.unsubscribe.delete(session.id);
  }

  /** Another socket resumed `session`: an old socket still holding it is closed without ending it. */
  takeOver(session: Session, by: object): void {
    for (const c of this.connections_) {
      if (c !== by && c.owns(session)) {
        this.untrack(session, false);
        c.release();
      }
    }
  }

  endSession(session: Session): void {
    // A session that ends leaves its calls (a dropped socket alone does not: it may resume).
    void this.voice?.sessionEnded(session.id).catch((err) => this.log.error({ err }, 'voice cleanup failed'));
    this.guilds?.detach(session.id);
    const live = !session.closed;
    session.close();
    if (live) void this.options.shared?.ended(session.id);
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
    this.unsubscribe.get(session.id)?.();
    this.unsubscribe.delete(session.id);
  }

  /**
   * The tokens behind a user's sessions were revoked (deauthorized, unlinked, merged away or
   * banned): each socket closes with 4004 and its session ends, so no Resume brings it back.
   * Without an application, every application's sessions of the user close.
   */
  closeUserSessions(userId: string, applicationId?: string): void {
    for (const session of [...this.sessions.values()]) {
      if (session.userId !== userId || (applicationId !== undefined && session.applicationId !== applicationId)) continue;
      this.endSession(session);
      for (const c of this.connections_) if (c.owns(session)) c.close(GatewayCloseCode.AuthenticationFailed, 'Authentication failed.');
    }
  }

  /**
   * Shared: every client is told to reconnect (op 7) and every session goes back to Redis,
   * records kept, so each Resume, here or on another node, rebuilds its session from the streams
   * (RedisSessionStore.restore). On shutdown; and when the bus's subscriber was cut and is back,
   * for the dispatches published to this node meanwhile are lost to its sessions but are in
   * their users' streams (user topics; a guild topic's are not: see server/README.md).
   */
  private handBack(why: string): void {
    const shared = this.options.shared;
    if (!shared) return;
    if (why !== 'shutdown' && this.sessions.size > 0) this.log.warn({ sessions: this.sessions.size, why }, 'gateway sessions handed back for Resume');
    for (const c of this.connections_) c.reconnect();
    for (const s of [...this.sessions.values()]) {
      shared.detached(s.id, userTopic(s.applicationId, s.userId));
      this.releaseSession(s);
    }
  }

  async close(): Promise<void> {
    this.unsubscribeResubscribed?.();
    if (this.options.shared) this.handBack('shutdown');
    else {
      for (const c of this.connections_) c.reconnect();
      for (const s of [...this.sessions.values()]) this.endSession(s);
    }
    this.unsubscribeRelease?.();
    await this.options.shared?.close();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    this.log.debug('gateway closed');
  }
}
