import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import type { LogLevel } from './log/Logger.ts';
import { openDatabase } from './storage/database.ts';
import { Store } from './storage/Store.ts';
import { startServer } from './startServer.ts';

const USAGE = `Usage:
  social-layer start [--port N] [--data DIR] [--log-level debug|info|warn|error]
                     [--database-url postgres://...] [--redis-url redis://...] [--games DIR]
      Starts the platform (HTTP API, Gateway, voice, sample games). Port and data folder also come
      from SOCIAL_LAYER_PORT and SOCIAL_LAYER_DATA; defaults 3333 and ./data (embedded SQLite).
      Scale-out: PostgreSQL for data and Redis between nodes (SOCIAL_LAYER_DATABASE_URL,
      SOCIAL_LAYER_REDIS_URL); run several nodes against the same two.
      --games DIR serves DIR/<name>/dist at /games/<name>/ instead of the bundled samples
      (SOCIAL_LAYER_GAMES): point it at the folder of games made with the scaffolder.
  social-layer apps create --name NAME [--data DIR]
      Creates an application and prints its id, client secret and bot token as JSON.
`;

async function main(argv: string[]): Promise<number> {
  const [command, sub] = argv;
  if (command === 'start') return start(argv.slice(1));
  if (command === 'apps' && sub === 'create') return createApp(argv.slice(2));
  process.stderr.write(USAGE);
  return command === undefined || command === '--help' || command === 'help' ? 0 : 2;
}

function dataDir(value: string | undefined): string {
  return resolve(value ?? process.env.SOCIAL_LAYER_DATA ?? './data');
}

async function start(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      data: { type: 'string' },
      host: { type: 'string' },
      'log-level': { type: 'string' },
      'database-url': { type: 'string' },
      'redis-url': { type: 'string' },
      games: { type: 'string' },
    },
  });
  const port = Number(values.port ?? process.env.SOCIAL_LAYER_PORT ?? 3333);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`Invalid port: ${values.port}\n`);
    return 2;
  }
  const dir = dataDir(values.data);
  const logLevel = (values['log-level'] ?? process.env.SOCIAL_LAYER_LOG_LEVEL ?? 'warn') as LogLevel;
  const databaseUrl = values['database-url'] ?? process.env.SOCIAL_LAYER_DATABASE_URL;
  const redisUrl = values['redis-url'] ?? process.env.SOCIAL_LAYER_REDIS_URL;
  const games = values.games ?? process.env.SOCIAL_LAYER_GAMES;
  const server = await startServer({
    port,
    dataDir: dir,
    host: values.host ?? process.env.SOCIAL_LAYER_HOST ?? '127.0.0.1',
    logLevel,
    ...(databaseUrl ? { database: { dialect: 'postgres' as const, connectionString: databaseUrl } } : {}),
    ...(redisUrl ? { redisUrl } : {}),
    ...(games ? { samplesDir: resolve(games) } : {}),
  });

  // First start: make a development application and show its credentials this once.
  if ((await server.store.applications.count()) === 0) {
    const app = await server.createApplication({ name: 'Development' });
    process.stdout.write(
      'Created the development application. Its secrets are shown only now; keep them:\n' +
        JSON.stringify({ application_id: app.id, client_secret: app.clientSecret, bot_token: app.botToken }, null, 2) +
        '\n',
    );
  }
  process.stdout.write(`Social Layer listening on ${server.url} (data: ${databaseUrl ? 'PostgreSQL' : join(dir, 'social-layer.sqlite')}${redisUrl ? ', Redis bus' : ''})\n`);
  process.stdout.write(`Play the sample: ${server.url}/games/phaser-lobby/\n`);
  const stop = () => {
    server.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return -1;
}

async function createApp(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { name: { type: 'string' }, data: { type: 'string' } } });
  const name = values.name?.trim();
  if (!name || name.length > 100) {
    process.stderr.write('apps create needs --name NAME (1 to 100 characters)\n');
    return 2;
  }
  const database = await openDatabase({ dialect: 'sqlite', file: join(dataDir(values.data), 'social-layer.sqlite') });
  const store = new Store(database);
  try {
    const app = await store.applications.create(name);
    process.stdout.write(JSON.stringify({ id: app.id, name: app.name, client_secret: app.clientSecret, bot_token: app.botToken }, null, 2) + '\n');
    return 0;
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`social-layer: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
