/**
 * `npm run load -- lobby [--url URL --app ID] [--clients N] [--lobby-size N] [--rate R] [--seconds S]`
 * Without --url it starts a server in-process (SQLite in a temp folder, rate limits off so the
 * generator is the only limit) and tears it down afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServer } from '@social-layer/server';
import { runLobbyLoad } from './lobbyLoad.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    app: { type: 'string' },
    clients: { type: 'string', default: '100' },
    'lobby-size': { type: 'string', default: '10' },
    rate: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '20' },
  },
});
if (positionals[0] !== 'lobby') {
  process.stderr.write('Usage: npm run load -- lobby [--url http://127.0.0.1:3333 --app APP_ID] [--clients 100] [--lobby-size 10] [--rate 2] [--seconds 20]\n');
  process.exit(2);
}
let dir: string | undefined;
let server: Awaited<ReturnType<typeof startServer>> | undefined;
let url = values.url;
let app = values.app;
if (!url) {
  dir = mkdtempSync(join(tmpdir(), 'sl-load-'));
  server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error', rateLimits: false });
  url = server.url;
  app = (await server.createApplication({ name: 'load' })).id;
} else if (!app) {
  process.stderr.write('--url needs --app (an application ID of that server)\n');
  process.exit(2);
}
try {
  const report = await runLobbyLoad({
    url,
    applicationId: app!,
    clients: Number(values.clients),
    lobbySize: Number(values['lobby-size']),
    rate: Number(values.rate),
    seconds: Number(values.seconds),
  });
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  process.exitCode = report.errors > 0 || report.delivered < report.expectedDeliveries ? 1 : 0;
} finally {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
