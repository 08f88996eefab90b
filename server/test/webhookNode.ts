/**
 * One server node as a child process, for the webhook crash test (it is killed with SIGKILL).
 * argv[2] is JSON: { database, dataDir, webhooks, appId, receiverUrl? }. With receiverUrl it points
 * the application's webhook there (the PING must succeed). Prints one JSON
 * line once listening: { url, appId, verifyKey }.
 */
import { startServer } from '../src/index.ts';

const cfg = JSON.parse(process.argv[2]!);
const server = await startServer({
  port: 0,
  dataDir: cfg.dataDir,
  database: cfg.database,
  serveSamples: false,
  logLevel: 'error',
  // 2,000 DMs from one user in seconds: the per-user budget would refuse most of them.
  rateLimits: false,
  webhooks: cfg.webhooks,
});
const appId: string = cfg.appId;
if (cfg.receiverUrl) await server.webhooks.update(appId, { event_webhooks_url: cfg.receiverUrl, event_webhooks_types: ['GAME_DIRECT_MESSAGE_CREATE'] });
const verifyKey = (await server.webhooks.wire(appId)).verify_key;
process.stdout.write(JSON.stringify({ url: server.url, appId, verifyKey }) + '\n');
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
