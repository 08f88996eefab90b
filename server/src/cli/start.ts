import { join, resolve } from 'node:path';
import type { LogLevel } from '../log/Logger.ts';
import { type CliCommand, CliUsageError } from './command.ts';
import { dataDir } from './operatorStore.ts';
import { devMode } from './apps.ts';
import type { TlsSetting } from '../config/serverTls.ts';

export const start: CliCommand = {
  words: ['start'],
  usage: `start [--port N] [--data DIR] [--log-level debug|info|warn|error] [--dev]
                     [--database-url postgres://...] [--database-schema NAME]
                     [--redis-url redis://...] [--redis-prefix P] [--games DIR]
      Starts the platform (HTTP API, Gateway, voice, sample games). Port and data folder also come
      from SOCIAL_LAYER_PORT and SOCIAL_LAYER_DATA; defaults 3333 and ./data (embedded SQLite).
      Scale-out: PostgreSQL for data and Redis between nodes (SOCIAL_LAYER_DATABASE_URL,
      SOCIAL_LAYER_REDIS_URL); run several nodes against the same two, each on its own --port,
      behind a load balancer named by --public-url (npm run cluster starts such a set).
      --database-schema NAME (SOCIAL_LAYER_DATABASE_SCHEMA): the PostgreSQL schema (made if
      missing; default the connection's search_path). --redis-prefix P (SOCIAL_LAYER_REDIS_PREFIX):
      prefix of every Redis key and channel (default sl:); every node of a cluster uses the same.
      --games DIR serves DIR/<name>/dist at /games/<name>/ instead of the bundled samples
      (SOCIAL_LAYER_GAMES): point it at the folder of games made with the scaffolder.
      --dev (SOCIAL_LAYER_DEV=1): development mode: applications may register http and loopback
      URLs that production refuses (redirect URIs, webhook and interactions URLs, URL mappings).
      --public-url URL (SOCIAL_LAYER_PUBLIC_URL): the origin clients reach the platform at (behind a
      proxy, on another host); apiBase, the Gateway URL and the OIDC issuer are built from it, never
      from a request's Host header. Default: the listen address.
      --tls-cert PATH --tls-key PATH (SOCIAL_LAYER_TLS_CERT, SOCIAL_LAYER_TLS_KEY): serve HTTPS and
      WSS (HTTP API, Gateway, voice gateway) with this PEM certificate and key; the URLs handed out
      then say https/wss. --tls (SOCIAL_LAYER_TLS=1) without files: development mode only, a
      self-signed certificate generated once into DATA/dev-tls/ (production refuses). Without
      any of these the server speaks plain HTTP. Voice clients that always dial wss (such as
      @discordjs/voice) need TLS.
      --s3-bucket NAME [--s3-endpoint URL] [--s3-region R] (SOCIAL_LAYER_S3_BUCKET, _ENDPOINT,
      _REGION): attachments and emoji images in an S3-compatible bucket instead of DATA/attachments;
      credentials from the standard AWS variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY...);
      with an endpoint (MinIO and the like) path-style addressing is used.`,
  options: {
    port: { type: 'string' },
    data: { type: 'string' },
    host: { type: 'string' },
    'log-level': { type: 'string' },
    'database-url': { type: 'string' },
    'redis-url': { type: 'string' },
    'database-schema': { type: 'string' },
    'redis-prefix': { type: 'string' },
    games: { type: 'string' },
    dev: { type: 'boolean' },
    'public-url': { type: 'string' },
    tls: { type: 'boolean' },
    'tls-cert': { type: 'string' },
    's3-bucket': { type: 'string' },
    's3-endpoint': { type: 'string' },
    's3-region': { type: 'string' },
    'tls-key': { type: 'string' },
  },
  async run(values, io) {
    const rawPort = values.port ?? process.env.SOCIAL_LAYER_PORT ?? '3333';
    const port = Number(rawPort);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliUsageError(`Invalid port: ${String(rawPort)}`);
    const dir = dataDir(values.data);
    const logLevel = (values['log-level'] ?? process.env.SOCIAL_LAYER_LOG_LEVEL ?? 'warn') as LogLevel;
    const databaseUrl = (values['database-url'] as string | undefined) ?? process.env.SOCIAL_LAYER_DATABASE_URL;
    const redisUrl = (values['redis-url'] as string | undefined) ?? process.env.SOCIAL_LAYER_REDIS_URL;
    const databaseSchema = (values['database-schema'] as string | undefined) ?? process.env.SOCIAL_LAYER_DATABASE_SCHEMA;
    const redisPrefix = (values['redis-prefix'] as string | undefined) ?? process.env.SOCIAL_LAYER_REDIS_PREFIX;
    if (databaseSchema && !/^[A-Za-z0-9_]+$/.test(databaseSchema)) throw new CliUsageError(`Invalid --database-schema: ${databaseSchema} (letters, digits and _ only)`);
    if (databaseSchema && !databaseUrl) throw new CliUsageError('--database-schema needs --database-url (a PostgreSQL database)');
    const games = (values.games as string | undefined) ?? process.env.SOCIAL_LAYER_GAMES;
    const dev = devMode(values);
    const tls = tlsSetting(values, dev);
    // Loaded here, not at the top: the data commands need none of the server and start faster.
    const { startServer } = await import('../startServer.ts');
    const starting = startServer({
      port,
      dataDir: dir,
      host: (values.host as string | undefined) ?? process.env.SOCIAL_LAYER_HOST ?? '127.0.0.1',
      logLevel,
      dev,
      ...(databaseUrl ? { database: { dialect: 'postgres' as const, connectionString: databaseUrl, ...(databaseSchema ? { schema: databaseSchema } : {}) } } : {}),
      ...(redisUrl ? { redisUrl } : {}),
      ...(redisPrefix ? { redisPrefix } : {}),
      ...(games ? { samplesDir: resolve(games) } : {}),
      // SOCIAL_LAYER_PUBLIC_URL is read by startServer itself.
      ...(values['public-url'] ? { publicUrl: values['public-url'] as string } : {}),
      ...(tls ? { tls } : {}),
      // Without --s3-bucket, startServer reads SOCIAL_LAYER_S3_* itself.
      ...(values['s3-bucket']
        ? { attachmentsS3: { bucket: values['s3-bucket'] as string, ...(values['s3-endpoint'] ? { endpoint: values['s3-endpoint'] as string } : {}), ...(values['s3-region'] ? { region: values['s3-region'] as string } : {}) } }
        : {}),
    });
    // The signal handlers go in before the server listens and before any banner, so SIGINT/SIGTERM
    // at any moment from here on closes the server (sockets, database) and exits 0, never the
    // default action that kills it mid-write. A signal during start-up waits for it to finish.
    let closing: Promise<void> | undefined;
    const stop = () => {
      closing ??= starting.then(
        (s) => s.close(),
        () => undefined,
      );
      closing.then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const server = await starting;

    // First start: make a development application and show its credentials this once. The
    // operator made it, so it is approved: the samples run on production budgets.
    if ((await server.store.applications.count()) === 0) {
      const app = await server.createApplication({ name: 'Development' });
      if (dev) {
        // The hosted games' "Sign in to keep your progress" sends the player back to the game's
        // page with PKCE: register those pages (loopback 127.0.0.1 matches any port) and make
        // the development application a public client, so sign-in works with no set-up.
        const { hostedGames: hosted, BUNDLED_SAMPLES_DIR: bundled } = await import('../http/routes/games.ts');
        const port = new URL(server.url).port;
        const pages = hosted(games ? resolve(games) : bundled).flatMap((name) => [`http://127.0.0.1/games/${name}/`, `http://localhost:${port}/games/${name}/`]);
        await server.configureApplication(app.id, { redirectUris: pages.slice(0, 10), publicClient: true });
      }
      io.out(
        'Created the development application. Its secrets are shown only now; keep them:\n' +
          JSON.stringify({ application_id: app.id, client_secret: app.clientSecret, bot_token: app.botToken }, null, 2) +
          '\n',
      );
    }
    io.out(`Social Layer listening on ${server.url} (data: ${databaseUrl ? 'PostgreSQL' : join(dir, 'social-layer.sqlite')}${redisUrl ? ', Redis bus' : ''}${dev ? ', development mode' : ''}${tls === 'self-signed' ? `, self-signed TLS certificate in ${join(dir, 'dev-tls', 'cert.pem')}` : ''})\n`);
    // Only what is really served: with --games, the scaffolded games, not the bundled samples.
    const { BUNDLED_SAMPLES_DIR, gamesBanner, hostedGames, isActivity } = await import('../http/routes/games.ts');
    const gamesDir = games ? resolve(games) : BUNDLED_SAMPLES_DIR;
    const hosted = hostedGames(gamesDir);
    const activities = new Set(hosted.filter((name) => isActivity(gamesDir, name)));
    io.out(`${gamesBanner(server.url, hosted, activities)}Developer portal: ${server.url}/developers\n`);
    return -1;
  },
};

/** --tls-cert/--tls-key (both or neither), or --tls for development mode's self-signed certificate. */
function tlsSetting(values: Record<string, unknown>, dev: boolean): TlsSetting | undefined {
  const certFile = (values['tls-cert'] as string | undefined) ?? process.env.SOCIAL_LAYER_TLS_CERT;
  const keyFile = (values['tls-key'] as string | undefined) ?? process.env.SOCIAL_LAYER_TLS_KEY;
  if (certFile || keyFile) {
    if (!certFile || !keyFile) throw new CliUsageError('--tls-cert and --tls-key go together (SOCIAL_LAYER_TLS_CERT, SOCIAL_LAYER_TLS_KEY)');
    return { certFile: resolve(certFile), keyFile: resolve(keyFile) };
  }
  if (values.tls === true || process.env.SOCIAL_LAYER_TLS === '1') {
    if (!dev) throw new CliUsageError('--tls without --tls-cert/--tls-key makes a self-signed certificate, which only development mode (--dev) does; give a real certificate in production');
    return 'self-signed';
  }
  return undefined;
}
