import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReadyData, SocialReadyData, User } from '@social-layer/protocol';
import { profilesFor, withReadyProfiles } from './accounts/applicationProfiles.ts';
import { loadRedisParts } from './cluster/redisParts.ts';
import { type ConnectionTracker, MemoryConnectionTracker } from './events/ConnectionTracker.ts';
import { type EventBus, LocalEventBus } from './events/EventBus.ts';
import { GatewayServer } from './gateway/GatewayServer.ts';
import { SessionStartLimit, type SessionStartLimitOptions } from './gateway/SessionStartLimit.ts';
import { createHttpApp } from './http/createHttpApp.ts';
import { isFirstParty } from './http/auth.ts';
import { expandScopes } from './auth/Principal.ts';
import { type RegisteredRoute, registeredRoutes } from './http/schemas/index.ts';
import { RateLimiter } from './http/RateLimiter.ts';
import { type RouteBudget, routeBudgets } from './http/rateLimitHooks.ts';
import { capConnectionsPerAddress, DEFAULT_MAX_CONNECTIONS_PER_ADDRESS } from './http/connectionLimits.ts';
import { UpgradeRouter } from './http/UpgradeRouter.ts';
import { activityUpgradeHandler } from './activities/activityProxy.ts';
import { gameRoutes } from './http/routes/games.ts';
import { LobbyService } from './lobbies/LobbyService.ts';
import { LinkedChannelService } from './lobbies/LinkedChannelService.ts';
import { type AccountsOptions, type ApplicationSettings, configureApplication, createAccountServices } from './accounts/accountServices.ts';
import type { AccountService } from './accounts/AccountService.ts';
import { SocialServices } from './social/SocialServices.ts';
import { createLogger, type LogLevel, type LogSink } from './log/Logger.ts';
import type { ServerContext } from './ServerContext.ts';
import { PublicUrl } from './http/publicUrl.ts';
import type { ApprovalState, CreatedApplication } from './storage/ApplicationRepo.ts';
import { type DatabaseConfig, openDatabase } from './storage/database.ts';
import { runOnce } from './cluster/runOnce.ts';
import { Store } from './storage/Store.ts';
import { ApplicationService } from './applications/ApplicationService.ts';
import { UrlPolicy } from './config/urlPolicy.ts';
import { resolveTls, type TlsSetting } from './config/serverTls.ts';
import { userToWire } from './storage/UserRepo.ts';
import { CoreCryptoBackend, NodeCryptoBackend, type CryptoBackend } from '@social-layer/core-wasm';
import type { DaveDeliveryFactory } from './voice/dave.ts';
import type { VoiceClusterOptions } from './voice/VoiceCluster.ts';
import { VoiceGatewayServer } from './voice/VoiceGatewayServer.ts';
import { VoiceStateService } from './voice/VoiceStateService.ts';
import { GuildGateway } from './guilds/GuildGateway.ts';
import { GuildPresenceFanout } from './guilds/GuildPresenceFanout.ts';
import { readyStoreFields } from './gateway/readyFields.ts';
import { guildServicesFor } from './guilds/GuildServices.ts';
import { startWebhooks, type WebhookOptions } from './webhooks/startWebhooks.ts';
import type { WebhookService } from './webhooks/WebhookService.ts';
import { type Clock, CommerceEvents, CommerceService, SubscriptionScheduler, systemClock } from './commerce/index.ts';
import { type InteractionOptions, InteractionService } from './interactions/InteractionService.ts';
import { configureAttachmentStore } from './messages/attachmentStoreFor.ts';
import type { S3AttachmentOptions } from './messages/s3AttachmentStore.ts';

/** Concurrent Gateway sockets per client address (issue 9, fix 8): room for a household or a LAN party behind one NAT. */
const DEFAULT_MAX_GATEWAY_SOCKETS_PER_ADDRESS = 64;

export interface ServerOptions {
  /** 0 picks a free port. Default: SOCIAL_LAYER_PORT or 3333. */
  port?: number;
  host?: string;
  /** Folder for the embedded SQLite database. Default: SOCIAL_LAYER_DATA or ./data. */
  dataDir?: string;
  /** Attachments (and emoji images) in an S3-compatible bucket instead of <dataDir>/attachments. Default: SOCIAL_LAYER_S3_BUCKET etc., else the folder. */
  attachmentsS3?: S3AttachmentOptions;
  /** Overrides dataDir: SQLite at a given file, or PostgreSQL. */
  database?: DatabaseConfig;
  heartbeatIntervalMs?: number;
  /** How long a Gateway session whose socket dropped can still be resumed. */
  resumeWindowMs?: number;
  /** Dispatches kept per session for Resume. */
  maxBufferedDispatches?: number;
  /**
   * With redisUrl: how old an entry of the Resume streams may get before it is trimmed. The
   * default (the session record's lifetime plus a minute) is the shortest that never trims what a
   * Resume needs (events/resumeKeys.ts); tests set it short to watch the trim.
   */
  resumeStreamMaxAgeMs?: number;
  /** How long a dropped socket still counts as connected, so a quick Resume does not flicker. */
  presenceGraceMs?: number;
  /**
   * With redisUrl: how often this node refreshes its entry in the cluster's connection state and
   * looks for dead nodes (default SOCIAL_LAYER_CLUSTER_HEARTBEAT_MS, else 5000), and how long its
   * entries outlive the last refresh (default SOCIAL_LAYER_CLUSTER_TTL_MS, else 3 x heartbeat).
   */
  clusterHeartbeatMs?: number;
  clusterTtlMs?: number;
  idleSweepIntervalMs?: number;
  logLevel?: LogLevel;
  logSink?: LogSink;
  /** Serve samples/<name>/dist under /games/<name>/. Default true. */
  serveSamples?: boolean;
  samplesDir?: string;
  bus?: EventBus;
  /** Redis for pub/sub between server nodes (scale-out); without it the bus is in-process. */
  redisUrl?: string;
  /**
   * Prefix of every Redis key and channel this node uses (default `sl:`): nodes of one cluster
   * share it; two clusters (or two test files) on one Redis stay apart by choosing different ones.
   */
  redisPrefix?: string;
  /**
   * The platform's public origin (http(s)://host[:port]), from which apiBase, the Gateway URL and
   * the OIDC issuer are built. Default: SOCIAL_LAYER_PUBLIC_URL, else the listen address. Never
   * taken from a request's Host header.
   */
  publicUrl?: string;
  /**
   * HTTP rate limits with the public headers, and the per-address caps on connections and Gateway
   * sockets. Default on; benchmarks of raw throughput turn them off.
   */
  rateLimits?: boolean;
  /** Simultaneous TCP connections (HTTP and WebSocket) per client address. Default 128. */
  maxConnectionsPerAddress?: number;
  /** Concurrent Gateway sockets per client address. Default 64. */
  maxGatewaySocketsPerAddress?: number;
  /** Gateway Identify budgets (GET /gateway/bot's session_start_limit). Default 1000 per 24 h, 16 per 5 s. */
  sessionStartLimit?: SessionStartLimitOptions;
  /**
   * Development mode (`--dev`, SOCIAL_LAYER_DEV=1): http and loopback URLs are accepted where
   * production refuses them (config/urlPolicy.ts). Default false.
   */
  dev?: boolean;
  /** Accounts and the OAuth2 provider: loopback OIDC issuers for tests, device-flow interval, scrypt cost. */
  accounts?: AccountsOptions;
  /** UDP media socket of the voice gateway (port 0 picks one). Default 127.0.0.1:0. */
  voiceUdpHost?: string;
  voiceUdpPort?: number;
  /** Address clients are told to send UDP media to, when behind NAT. */
  voiceUdpPublicHost?: string;
  /**
   * This node's own voice gateway, `host:port/voice` (no scheme), handed out as VOICE_SERVER_UPDATE's
   * `endpoint` for the calls this node owns. With redisUrl every node needs its own, reachable
   * directly (not the load-balanced public URL: a call's media lives on its owner node). Default:
   * SOCIAL_LAYER_VOICE_ENDPOINT; else with redisUrl the listen address and port, alone the public URL's.
   */
  voiceEndpoint?: string;
  /** Voice across nodes (with redisUrl, issue 18): Redis key prefix, claim/liveness TTL, refresh interval. */
  voiceCluster?: VoiceClusterOptions;
  /** Which crypto runs the relay's transport AEAD: core-wasm (default) or node:crypto. */
  voiceCrypto?: 'core-wasm' | 'node';
  /** The DAVE delivery service per call; defaults to @social-layer/dave's. */
  daveFactory?: DaveDeliveryFactory;
  voiceHeartbeatIntervalMs?: number;
  voiceResumeWindowMs?: number;
  /** Webhook delivery: worker on/off, backoff, lease and poll timings (webhooks/startWebhooks.ts). */
  webhooks?: WebhookOptions;
  /** Commerce (issue 14): the clock purchases and the subscription scheduler read; the scheduler's interval, or off. */
  commerce?: { clock?: Clock; schedulerIntervalMs?: number; scheduler?: boolean };
  /** Interactions (issue 13): the first-response deadline (3 s), the token's lifetime (15 min), DNS for the endpoint. */
  interactions?: Omit<InteractionOptions, 'dev'>;
  /** Linked channels (issue 12): the clock lobby channel invites (one hour) are made with. */
  linkedChannels?: { clock?: Clock };
  /**
   * Serve HTTPS/WSS on the listener (config/serverTls.ts): a given certificate, or 'self-signed'
   * (development mode only; production refuses). Default: plain HTTP.
   */
  tls?: TlsSetting;
  /**
   * Embedded apps (issue 17): the activity proxy host, `host[:port]`; an activity is served at
   * `<application_id>.<proxyHost>`. Default: SOCIAL_LAYER_ACTIVITY_PROXY_HOST, else
   * `activities.localhost:<port>` (browsers resolve *.localhost to loopback).
   */
  activities?: { proxyHost?: string };
}

export interface RunningServer {
  /** http(s)://host:port of the listener. */
  url: string;
  /** The certificate served when TLS is on (PEM), so tests and tools can trust a self-signed one. */
  tlsCertificate?: string;
  port: number;
  store: Store;
  /** Operator-made applications are approved unless `approval: 'pre_approval'` is asked for. */
  createApplication(input: { name: string; approval?: ApprovalState }): Promise<CreatedApplication>;
  /** Developer-facing application rules: portal edits, approval, the public wire shape. */
  applications: ApplicationService;
  /** Account administration (bans) and the OAuth2 side of applications. */
  accounts: AccountService;
  /** Webhook event settings (PING-verified URL), recent deliveries and "send again". */
  webhooks: WebhookService;
  /** SKUs, entitlements, subscriptions and purchases (issue 14). */
  commerce: CommerceService;
  /** Application commands and interactions (issue 13). */
  interactions: InteractionService;
  /** Renewals and period ends; tests run it by hand with an injected clock. */
  subscriptionScheduler: SubscriptionScheduler;
  /** The developer-portal settings of an application: redirect URIs, OIDC issuers, parent, approved scopes. */
  configureApplication(applicationId: string, settings: ApplicationSettings): Promise<void>;
  /** The voice gateway, for tests and diagnostics (relay statistics, forwarded payloads). */
  voice: VoiceGatewayServer;
  /** Every HTTP route with its rate budget (routes that declare none have the default one). */
  routes(): readonly RouteBudget[];
  /** Runs the idle-lobby sweep now (it also runs on an interval); returns how many were deleted. */
  sweepIdleLobbies(): Promise<number>;
  /** Waits for the linked-channel mirror's queued channel-to-lobby copies (tests; not awaited by requests). */
  drainLinkedChannels(): Promise<void>;
  /** Every HTTP route registered (method, pattern, whether it has a schema): the OpenAPI test holds the document against it. */
  httpRoutes(): readonly RegisteredRoute[];
  close(): Promise<void>;
}

const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const log = createLogger({ level: options.logLevel ?? 'warn', sink: options.logSink });
  const dataDir = resolve(options.dataDir ?? process.env.SOCIAL_LAYER_DATA ?? './data');
  // Before any service: messages, interaction responses and emojis all take this store by data folder.
  configureAttachmentStore({ dataDir, ...(options.attachmentsS3 ? { s3: options.attachmentsS3 } : {}) });
  // Before anything opens: production refuses a self-signed certificate here.
  const tls = await resolveTls(options.tls, { dataDir, dev: options.dev === true, host: options.host ?? '127.0.0.1' });
  const onCheckpointFallback = (reason: string) => log.warn({ reason }, 'SQLite checkpoints are back on the event loop');
  const databaseConfig = options.database ?? { dialect: 'sqlite', file: join(dataDir, 'social-layer.sqlite') };
  const database = await openDatabase(databaseConfig.dialect === 'sqlite' ? { onCheckpointFallback, ...databaseConfig } : databaseConfig);
  const store = new Store(database);
  // The cluster's modules (ioredis and what is built on it) are loaded only with Redis.
  const cluster = options.redisUrl ? await loadRedisParts() : null;
  // Each node's Snowflake bits, leased before it mints its first ID (cluster/SnowflakeLease.ts).
  const snowflakeLease = options.redisUrl
    ? await cluster!.SnowflakeLease.acquire({ url: options.redisUrl, prefix: options.redisPrefix ?? 'sl:', log: log.child({ scope: 'cluster' }), onChange: (n) => store.ids.setNode(n) })
    : null;
  if (snowflakeLease) store.ids.setNode(snowflakeLease.node);
  let bus: EventBus;
  if (options.bus) bus = options.bus;
  else if (options.redisUrl) {
    const redis = new cluster!.RedisEventBus(options.redisUrl, options.redisPrefix ?? 'sl:');
    await redis.ready();
    bus = redis;
  } else bus = new LocalEventBus();
  // With Redis, who is connected is the cluster's (a node that dies lapses); alone, this node's.
  const connections: ConnectionTracker = options.redisUrl
    ? await cluster!.RedisConnectionTracker.start({
        url: options.redisUrl,
        prefix: `${options.redisPrefix ?? 'sl:'}conn:`,
        graceMs: options.presenceGraceMs ?? 5000,
        heartbeatMs: options.clusterHeartbeatMs ?? envMs('SOCIAL_LAYER_CLUSTER_HEARTBEAT_MS'),
        ttlMs: options.clusterTtlMs ?? envMs('SOCIAL_LAYER_CLUSTER_TTL_MS'),
        log: log.child({ scope: 'cluster' }),
      })
    : new MemoryConnectionTracker(options.presenceGraceMs ?? 5000);
  // Bots' sessions, tracked apart: a bot is online to its guilds while it has one, and nothing that
  // follows users' connections (lobbies, friends' presence, embedded activities) hears of bots.
  const botConnections: ConnectionTracker = options.redisUrl
    ? await cluster!.RedisConnectionTracker.start({
        url: options.redisUrl,
        prefix: `${options.redisPrefix ?? 'sl:'}botconn:`,
        graceMs: options.presenceGraceMs ?? 5000,
        heartbeatMs: options.clusterHeartbeatMs ?? envMs('SOCIAL_LAYER_CLUSTER_HEARTBEAT_MS'),
        ttlMs: options.clusterTtlMs ?? envMs('SOCIAL_LAYER_CLUSTER_TTL_MS'),
        log: log.child({ scope: 'cluster' }),
      })
    : new MemoryConnectionTracker(options.presenceGraceMs ?? 5000);
  const lobbies = new LobbyService(store, bus, connections, log.child({ scope: 'lobbies' }));
  const social = new SocialServices(store, bus, connections, log.child({ scope: 'social' }));
  const port = options.port ?? Number(process.env.SOCIAL_LAYER_PORT ?? 3333);
  const host = options.host ?? '127.0.0.1';
  const publicUrl = new PublicUrl(options.publicUrl ?? process.env.SOCIAL_LAYER_PUBLIC_URL);

  // With Redis, every node draws on one budget per caller; alone, the counters stay in memory.
  const rateLimiter = options.rateLimits === false ? null : new RateLimiter(options.redisUrl ? new cluster!.RedisRateLimitStore(options.redisUrl, `${options.redisPrefix ?? 'sl:'}rl:`) : undefined);
  const sessionStarts = rateLimiter ? new SessionStartLimit(rateLimiter.store, options.sessionStartLimit) : null;
  const accountServices = createAccountServices(store, log, options.accounts);
  const urlPolicy = new UrlPolicy(options.dev === true);
  const webhooks = await startWebhooks(store, log.child({ scope: 'webhooks' }), options.dev === true, options.webhooks);
  // Before the routes: Get User Voice State reads it; the Gateway's op 4 writes it.
  const voiceStates = new VoiceStateService(store, bus, log.child({ scope: 'voice' }));
  const commerceClock = options.commerce?.clock ?? systemClock;
  const commerceEvents = new CommerceEvents(store, bus);
  const commerce = new CommerceService(store, commerceEvents, commerceClock);
  const subscriptionScheduler = new SubscriptionScheduler(store, commerce.machine, commerceEvents, commerceClock, log.child({ scope: 'commerce' }), { intervalMs: options.commerce?.schedulerIntervalMs ?? 30_000 });
  const interactions = new InteractionService(store, bus, commerce, urlPolicy, log.child({ scope: 'interactions' }), { dev: options.dev === true, dataDir, publicUrl: () => publicUrl.http(), ...options.interactions });
  interactions.startSweeper();
  const ctx: ServerContext = {
    interactions,
    urlPolicy,
    commerce,
    webhooks: webhooks.service,
    applications: new ApplicationService(store, urlPolicy, webhooks.service, interactions),
    ...accountServices,
    store,
    rateLimiter,
    sessionStarts,
    bus,
    connections,
    lobbies,
    linkedChannels: new LinkedChannelService(store, bus, lobbies, log.child({ scope: 'linked-channels' }), options.linkedChannels?.clock),
    social,
    log,
    // Never the request's Host (issue 9, fix 7): configuration, or the listen address.
    publicHttpUrl: () => publicUrl.http(),
    publicWsUrl: () => publicUrl.gateway(),
    dataDir,
    voiceStates,
    activityProxyHost: activityProxyHostOf(options.activities?.proxyHost ?? process.env.SOCIAL_LAYER_ACTIVITY_PROXY_HOST, () => publicUrl.http()),
  };

  const app = await createHttpApp(ctx, tls);
  // One address cannot hold every socket (issue 9, fix 3); see http/connectionLimits.ts.
  if (options.rateLimits !== false) capConnectionsPerAddress(app.server, options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS);
  if (options.serveSamples ?? true) {
    await gameRoutes(app, ctx, options.samplesDir ?? join(REPO_ROOT, 'samples'), async () => (await store.applications.first())?.id);
  }
  await app.ready();

  const upgrades = new UpgradeRouter(app.server);
  upgrades.intercept(activityUpgradeHandler(ctx));
  const gatewayTimings = {
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
    resumeWindowMs: options.resumeWindowMs ?? 120_000,
    maxBufferedDispatches: options.maxBufferedDispatches ?? 5000,
    ...(options.resumeStreamMaxAgeMs !== undefined ? { streamMaxAgeMs: options.resumeStreamMaxAgeMs } : {}),
  };
  const gateway = new GatewayServer(
    upgrades,
    {
      ...gatewayTimings,
      // Resume on any node (issue 18): with Redis, sessions and their dispatches are shared.
      ...(cluster ? cluster.sharedGatewaySessions(bus, options.redisUrl, gatewayTimings) : {}),
      publicWsUrl: ctx.publicWsUrl,
      ...(sessionStarts ? { sessionStarts, maxSocketsPerAddress: options.maxGatewaySocketsPerAddress ?? DEFAULT_MAX_GATEWAY_SOCKETS_PER_ADDRESS } : {}),
      authenticate: async (token, scheme) => {
        const grant = scheme === 'bot' ? undefined : await store.tokens.resolve(token);
        if (grant) {
          const user = await store.users.get(grant.userId);
          if (!user) return undefined;
          // READY's user carries its own game profiles for this application (issue 19).
          const application_profiles = await profilesFor(store, { kind: 'bearer', ...grant }, user.id);
          const guildEvents = (await isFirstParty(store, grant.applicationId)) || expandScopes(grant.scopes).includes('rpc');
          return { kind: 'bearer', user: { ...userToWire(user), application_profiles }, applicationId: grant.applicationId, guildEvents };
        }
        const application = scheme === 'bearer' ? undefined : await store.applications.findByBotToken(token);
        if (!application) return undefined;
        const bot = await store.users.get(application.bot_user_id);
        return bot ? { kind: 'bot', user: userToWire(bot) as User, applicationId: application.id, guildEvents: true } : undefined;
      },
    },
    bus,
    connections,
    lobbies,
    log.child({ scope: 'gateway' }),
  );
  // Revoked tokens close their live Gateway sessions with 4004.
  accountServices.accounts.gateway = gateway;

  gateway.social = social;
  gateway.readyProfiles = (applicationId, ready) => withReadyProfiles(store, applicationId, ready as ReadyData & SocialReadyData);
  // Op 8's all-members limit is one per bot and guild across nodes: with Redis, the shared counters.
  const op8Store = options.redisUrl ? (rateLimiter?.store ?? new cluster!.RedisRateLimitStore(options.redisUrl, `${options.redisPrefix ?? 'sl:'}rl:`)) : undefined;
  gateway.guilds = new GuildGateway(guildServicesFor(store, bus), bus, op8Store);
  // Guild members' presences (PRESENCE_UPDATE with guild_id, GUILD_CREATE and op 8 presences).
  const guildPresences = new GuildPresenceFanout(store, bus, social.presence, botConnections, log.child({ scope: 'guild-presence' }));
  gateway.guilds.presences = guildPresences;
  gateway.guildPresences = guildPresences;
  gateway.botConnections = botConnections;
  gateway.readyStoreFields = (identity) => readyStoreFields(store, bus, identity);
  gateway.voice = voiceStates;
  // Modify Guild Member's mute, deaf and channel_id act on guild voice seats (held on this node).
  guildServicesFor(store, bus).members.voice = voiceStates;
  voiceStates.sessionDispatch = (sessionId, t, json) => {
    const s = gateway.sessions.get(sessionId);
    if (!s || s.closed) return false;
    s.send(t, json);
    return true;
  };
  voiceStates.voiceEndpoint = () => ctx.publicWsUrl().replace(/^wss?:\/\//, '').replace(/\/gateway$/, '/voice');
  gateway.guilds.voiceStates = (guildId) => voiceStates.guildVoiceStates(guildId);
  lobbies.voiceStates = (lobbyId) => voiceStates.voiceStates(lobbyId);
  lobbies.onMemberGone((lobbyId, userId) => {
    voiceStates.memberGone(lobbyId, userId).catch((err) => log.error({ err }, 'voice cleanup failed'));
  });
  const cryptoBackend: CryptoBackend = options.voiceCrypto === 'node' ? await NodeCryptoBackend.create() : await CoreCryptoBackend.create();
  const voice = new VoiceGatewayServer(
    upgrades,
    voiceStates,
    cryptoBackend,
    options.daveFactory ?? defaultDaveFactory,
    {
      heartbeatIntervalMs: options.voiceHeartbeatIntervalMs ?? 13_750,
      resumeWindowMs: options.voiceResumeWindowMs ?? 60_000,
      maxBufferedMessages: 1000,
      udpHost: options.voiceUdpHost ?? host,
      udpPort: options.voiceUdpPort ?? 0,
      udpPublicHost: options.voiceUdpPublicHost,
    },
    log.child({ scope: 'voice' }),
  );
  await voice.start();
  // Voice across nodes: states, tokens and call owners in Redis; endpoints name each node directly.
  let listenedPort = 0;
  const voiceEndpoint = options.voiceEndpoint ?? process.env.SOCIAL_LAYER_VOICE_ENDPOINT;
  if (voiceEndpoint) voiceStates.voiceEndpoint = () => voiceEndpoint;
  if (options.redisUrl) {
    const wildcard = host === '0.0.0.0' || host === '::';
    const direct = () => `${wildcard ? new URL(publicUrl.http()).hostname : host.includes(':') ? `[${host}]` : host}:${listenedPort}/voice`;
    // Its keys under the node's Redis prefix too, so clusters sharing one Redis keep their calls apart.
    const voiceCluster = new cluster!.VoiceCluster(options.redisUrl, voiceEndpoint ? () => voiceEndpoint : direct, { prefix: `${options.redisPrefix ?? 'sl:'}voice:`, ...options.voiceCluster });
    await voiceCluster.ready();
    await voiceStates.attachCluster(voiceCluster);
  }

  await app.listen({ port, host });
  const actualPort = (app.server.address() as AddressInfo).port;
  listenedPort = actualPort;
  voiceStates.startClusterRounds();
  publicUrl.listening(host, actualPort, tls !== undefined);
  if (!options.publicUrl && !process.env.SOCIAL_LAYER_PUBLIC_URL && (host === '0.0.0.0' || host === '::')) {
    log.warn({ publicUrl: publicUrl.http() }, 'listening on every interface without --public-url: the URLs handed out name loopback');
  }
  const sweepEvery = options.idleSweepIntervalMs ?? 10_000;
  // Every node sweeps, one at a time across the cluster (runOnce): two at once would both delete a
  // lobby and both send its LOBBY_DELETE.
  const sweepIdleOnce = async () => {
    const r = await runOnce(database, 'lobby-idle-sweep', () => lobbies.sweepIdle());
    return r.ran ? r.value : 0;
  };
  // One round at a time on a node: a round longer than the interval (a backlog) is not run twice at once.
  let sweeping: Promise<unknown> | null = null;
  const sweeper = setInterval(() => {
    sweeping ??= sweepIdleOnce()
      .catch((err) => log.error({ err }, 'idle sweep failed'))
      .finally(() => (sweeping = null));
  }, sweepEvery);
  sweeper.unref();
  // Whatever came due while this node was down is picked up by the first run.
  if (options.commerce?.scheduler !== false) subscriptionScheduler.start();

  let closed = false;
  return {
    url: `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${actualPort}`,
    ...(tls ? { tlsCertificate: tls.cert.toString() } : {}),
    port: actualPort,
    store,
    createApplication: ({ name, approval }) => store.applications.create(name, { approval: approval ?? 'approved' }),
    applications: ctx.applications,
    accounts: accountServices.accounts,
    webhooks: webhooks.service,
    commerce,
    subscriptionScheduler,
    interactions,
    configureApplication: (id, settings) => configureApplication(store, id, settings),
    voice,
    routes: () => routeBudgets(app),
    sweepIdleLobbies: sweepIdleOnce,
    drainLinkedChannels: async () => ctx.linkedChannels?.drain(),
    httpRoutes: () => registeredRoutes(app),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweeper);
      await sweeping;
      await subscriptionScheduler.stop();
      interactions.close();
      await webhooks.close();
      await voice.close();
      await voiceStates.close();
      social.close();
      guildPresences.close();
      await gateway.close();
      await gateway.guilds?.close();
      if (op8Store && op8Store !== rateLimiter?.store) await op8Store.close();
      await connections.close();
      await botConnections.close();
      await rateLimiter?.close();
      await app.close();
      await lobbies.drain();
      await ctx.linkedChannels?.drain();
      ctx.linkedChannels?.close();
      await bus.close();
      await snowflakeLease?.close();
      await store.close();
    },
  };
}

/**
 * The DAVE delivery service of each call (bindings/dave): MLS external sender and delivery service.
 * Loaded with the first call: the MLS stack is about 24 MB of a fresh server's resident memory
 * (gateway-idle's load accounting), and a node may never carry a call.
 */
const defaultDaveFactory: DaveDeliveryFactory = async (callId) => (await import('@social-layer/dave')).DaveDeliveryService.create(callId);

/** A duration in milliseconds from the environment, or undefined when unset. */
function envMs(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number of milliseconds`);
  return n;
}

/**
 * The activity proxy's host: the configured one, else `activities.localhost` on the platform's
 * port. Asked on every request (the proxy's onRequest hook), so the default is worked out once per
 * public URL (which is known only after listen) instead of parsing two URLs each time.
 */
function activityProxyHostOf(configured: string | undefined, http: () => string): () => string {
  if (configured) return () => configured;
  let memo: { http: string; host: string } | undefined;
  return () => {
    const url = http();
    if (memo?.http !== url) {
      const port = new URL(url).port;
      memo = { http: url, host: `activities.localhost${port ? `:${port}` : ''}` };
    }
    return memo.host;
  };
}
