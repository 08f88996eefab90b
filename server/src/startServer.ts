import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReadyData, SocialReadyData, User } from '@social-layer/protocol';
import { profilesFor, withReadyProfiles } from './accounts/applicationProfiles.ts';
import { ConnectionTracker } from './events/ConnectionTracker.ts';
import { type EventBus, LocalEventBus } from './events/EventBus.ts';
import { RedisEventBus } from './events/RedisEventBus.ts';
import { RedisRateLimitStore } from './events/RedisRateLimitStore.ts';
import { GatewayServer } from './gateway/GatewayServer.ts';
import { SessionStartLimit, type SessionStartLimitOptions } from './gateway/SessionStartLimit.ts';
import { createHttpApp } from './http/createHttpApp.ts';
import { type RegisteredRoute, registeredRoutes } from './http/schemas/index.ts';
import { RateLimiter } from './http/RateLimiter.ts';
import { type RouteBudget, routeBudgets } from './http/rateLimitHooks.ts';
import { capConnectionsPerAddress, DEFAULT_MAX_CONNECTIONS_PER_ADDRESS } from './http/connectionLimits.ts';
import { UpgradeRouter } from './http/UpgradeRouter.ts';
import { gameRoutes } from './http/routes/games.ts';
import { LobbyService } from './lobbies/LobbyService.ts';
import { type AccountsOptions, type ApplicationSettings, configureApplication, createAccountServices } from './accounts/accountServices.ts';
import type { AccountService } from './accounts/AccountService.ts';
import { SocialServices } from './social/SocialServices.ts';
import { createLogger, type LogLevel, type LogSink } from './log/Logger.ts';
import type { ServerContext } from './ServerContext.ts';
import { PublicUrl } from './http/publicUrl.ts';
import type { ApprovalState, CreatedApplication } from './storage/ApplicationRepo.ts';
import { type DatabaseConfig, openDatabase } from './storage/database.ts';
import { Store } from './storage/Store.ts';
import { ApplicationService } from './applications/ApplicationService.ts';
import { UrlPolicy } from './config/urlPolicy.ts';
import { resolveTls, type TlsSetting } from './config/serverTls.ts';
import { userToWire } from './storage/UserRepo.ts';
import { CoreCryptoBackend, NodeCryptoBackend, type CryptoBackend } from '@social-layer/core-wasm';
import { DaveDeliveryService } from '@social-layer/dave';
import type { DaveDeliveryFactory } from './voice/dave.ts';
import { VoiceGatewayServer } from './voice/VoiceGatewayServer.ts';
import { VoiceStateService } from './voice/VoiceStateService.ts';
import { GuildGateway } from './guilds/GuildGateway.ts';
import { guildServicesFor } from './guilds/GuildServices.ts';
import { startWebhooks, type WebhookOptions } from './webhooks/startWebhooks.ts';
import type { WebhookService } from './webhooks/WebhookService.ts';
import { type Clock, CommerceEvents, CommerceService, SubscriptionScheduler, systemClock } from './commerce/index.ts';

/** Concurrent Gateway sockets per client address (issue 9, fix 8): room for a household or a LAN party behind one NAT. */
const DEFAULT_MAX_GATEWAY_SOCKETS_PER_ADDRESS = 64;

export interface ServerOptions {
  /** 0 picks a free port. Default: SOCIAL_LAYER_PORT or 3333. */
  port?: number;
  host?: string;
  /** Folder for the embedded SQLite database. Default: SOCIAL_LAYER_DATA or ./data. */
  dataDir?: string;
  /** Overrides dataDir: SQLite at a given file, or PostgreSQL. */
  database?: DatabaseConfig;
  heartbeatIntervalMs?: number;
  /** How long a Gateway session whose socket dropped can still be resumed. */
  resumeWindowMs?: number;
  /** Dispatches kept per session for Resume. */
  maxBufferedDispatches?: number;
  /** How long a dropped socket still counts as connected, so a quick Resume does not flicker. */
  presenceGraceMs?: number;
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
  /**
   * Serve HTTPS/WSS on the listener (config/serverTls.ts): a given certificate, or 'self-signed'
   * (development mode only; production refuses). Default: plain HTTP.
   */
  tls?: TlsSetting;
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
  /** Every HTTP route registered (method, pattern, whether it has a schema): the OpenAPI test holds the document against it. */
  httpRoutes(): readonly RegisteredRoute[];
  close(): Promise<void>;
}

const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const log = createLogger({ level: options.logLevel ?? 'warn', sink: options.logSink });
  const dataDir = resolve(options.dataDir ?? process.env.SOCIAL_LAYER_DATA ?? './data');
  // Before anything opens: production refuses a self-signed certificate here.
  const tls = await resolveTls(options.tls, { dataDir, dev: options.dev === true, host: options.host ?? '127.0.0.1' });
  const database = await openDatabase(options.database ?? { dialect: 'sqlite', file: join(dataDir, 'social-layer.sqlite') });
  const store = new Store(database);
  let bus: EventBus;
  if (options.bus) bus = options.bus;
  else if (options.redisUrl) {
    const redis = new RedisEventBus(options.redisUrl);
    await redis.ready();
    bus = redis;
  } else bus = new LocalEventBus();
  const connections = new ConnectionTracker(options.presenceGraceMs ?? 5000);
  const lobbies = new LobbyService(store, bus, connections, log.child({ scope: 'lobbies' }));
  const social = new SocialServices(store, bus, connections, log.child({ scope: 'social' }));
  const port = options.port ?? Number(process.env.SOCIAL_LAYER_PORT ?? 3333);
  const host = options.host ?? '127.0.0.1';
  const publicUrl = new PublicUrl(options.publicUrl ?? process.env.SOCIAL_LAYER_PUBLIC_URL);

  // With Redis, every node draws on one budget per caller; alone, the counters stay in memory.
  const rateLimiter = options.rateLimits === false ? null : new RateLimiter(options.redisUrl ? new RedisRateLimitStore(options.redisUrl) : undefined);
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
  const ctx: ServerContext = {
    urlPolicy,
    commerce,
    webhooks: webhooks.service,
    applications: new ApplicationService(store, urlPolicy, webhooks.service),
    ...accountServices,
    store,
    rateLimiter,
    sessionStarts,
    bus,
    connections,
    lobbies,
    social,
    log,
    // Never the request's Host (issue 9, fix 7): configuration, or the listen address.
    publicHttpUrl: () => publicUrl.http(),
    publicWsUrl: () => publicUrl.gateway(),
    dataDir,
    voiceStates,
  };

  const app = await createHttpApp(ctx, tls);
  // One address cannot hold every socket (issue 9, fix 3); see http/connectionLimits.ts.
  if (options.rateLimits !== false) capConnectionsPerAddress(app.server, options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS);
  if (options.serveSamples ?? true) {
    await gameRoutes(app, ctx, options.samplesDir ?? join(REPO_ROOT, 'samples'), async () => (await store.applications.first())?.id);
  }
  await app.ready();

  const upgrades = new UpgradeRouter(app.server);
  const gateway = new GatewayServer(
    upgrades,
    {
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
      resumeWindowMs: options.resumeWindowMs ?? 120_000,
      maxBufferedDispatches: options.maxBufferedDispatches ?? 5000,
      publicWsUrl: ctx.publicWsUrl,
      ...(sessionStarts ? { sessionStarts, maxSocketsPerAddress: options.maxGatewaySocketsPerAddress ?? DEFAULT_MAX_GATEWAY_SOCKETS_PER_ADDRESS } : {}),
      authenticate: async (token) => {
        const grant = await store.tokens.resolve(token);
        if (grant) {
          const user = await store.users.get(grant.userId);
          if (!user) return undefined;
          // READY's user carries its own game profiles for this application (issue 19).
          const application_profiles = await profilesFor(store, { kind: 'bearer', ...grant }, user.id);
          return { kind: 'bearer', user: { ...userToWire(user), application_profiles }, applicationId: grant.applicationId };
        }
        const application = await store.applications.findByBotToken(token);
        if (!application) return undefined;
        const bot = await store.users.get(application.bot_user_id);
        return bot ? { kind: 'bot', user: userToWire(bot) as User, applicationId: application.id } : undefined;
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
  gateway.guilds = new GuildGateway(guildServicesFor(store, bus), bus);
  gateway.voice = voiceStates;
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

  await app.listen({ port, host });
  const actualPort = (app.server.address() as AddressInfo).port;
  publicUrl.listening(host, actualPort, tls !== undefined);
  if (!options.publicUrl && !process.env.SOCIAL_LAYER_PUBLIC_URL && (host === '0.0.0.0' || host === '::')) {
    log.warn({ publicUrl: publicUrl.http() }, 'listening on every interface without --public-url: the URLs handed out name loopback');
  }
  const sweepEvery = options.idleSweepIntervalMs ?? 10_000;
  const sweeper = setInterval(() => {
    lobbies.sweepIdle().catch((err) => log.error({ err }, 'idle sweep failed'));
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
    configureApplication: (id, settings) => configureApplication(store, id, settings),
    voice,
    routes: () => routeBudgets(app),
    sweepIdleLobbies: () => lobbies.sweepIdle(),
    httpRoutes: () => registeredRoutes(app),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweeper);
      await subscriptionScheduler.stop();
      await webhooks.close();
      await voice.close();
      voiceStates.close();
      social.close();
      await gateway.close();
      connections.close();
      await rateLimiter?.close();
      await app.close();
      await lobbies.drain();
      await bus.close();
      await store.close();
    },
  };
}

/** The DAVE delivery service of each call (bindings/dave): MLS external sender and delivery service. */
const defaultDaveFactory: DaveDeliveryFactory = (callId) => DaveDeliveryService.create(callId);
