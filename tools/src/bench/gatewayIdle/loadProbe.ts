/**
 * Module load accounting for gateway-idle: a fresh process (through tsx, as the repository runs
 * the server) loads one thing and reports its memory after garbage collection, so the orchestrator
 * can say what a fresh server's resident memory is made of. argv[2]: 'node' (nothing), 'startServer'
 * (a whole fresh server, no client), or a module specifier.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const what = process.argv[2]!;
if (what === 'startServer') {
  const { startServer } = await import('@social-layer/server');
  await startServer({ port: 0, dataDir: mkdtempSync(join(tmpdir(), 'sl-probe-')), serveSamples: false, logLevel: 'error' });
} else if (what === 'fastify+ws') {
  await import('fastify');
  await import('ws');
} else if (what !== 'node') {
  await import(what);
}
await new Promise((r) => setTimeout(r, 200));
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
gc?.();
const m = process.memoryUsage();
process.stdout.write(JSON.stringify({ what, rss: m.rss, heapUsed: m.heapUsed, external: m.external }) + '\n');
process.exit(0);
