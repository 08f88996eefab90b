/**
 * One Gateway node as a child process, for the cross-node Resume test (it is killed with SIGKILL).
 * argv[2] is JSON: { database, dataDir, redisUrl, prefix, resumeWindowMs, heartbeatIntervalMs }.
 * Prints one JSON line once listening: { url }.
 */
import { RedisEventBus } from '../src/events/RedisEventBus.ts';
import { startServer } from '../src/index.ts';

const cfg = JSON.parse(process.argv[2]!);
// A bus of our own only to give this test file its own Redis key prefix.
const bus = new RedisEventBus(cfg.redisUrl, cfg.prefix);
await bus.ready();
const server = await startServer({
  port: 0,
  dataDir: cfg.dataDir,
  database: cfg.database,
  redisUrl: cfg.redisUrl,
  bus,
  serveSamples: false,
  logLevel: 'error',
  rateLimits: false,
  resumeWindowMs: cfg.resumeWindowMs,
  heartbeatIntervalMs: cfg.heartbeatIntervalMs,
});
process.stdout.write(JSON.stringify({ url: server.url }) + '\n');
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
