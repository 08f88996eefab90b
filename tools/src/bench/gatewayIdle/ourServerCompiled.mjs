// Our server as a registry install runs it: the JavaScript in each package's dist/ (built by
// `npm run build:packages`), loaded by plain node with no TypeScript loader; see
// compiledResolve.mjs. Otherwise the same as ourServer.ts. Plain JavaScript, so the memory
// protocol of memory.ts is repeated here (a .ts import would need tsx, which this arm leaves out).
import { register } from 'node:module';

register('./compiledResolve.mjs', import.meta.url);
const { startServer } = await import('@social-layer/server');

const dataDir = process.argv[2];
const server = await startServer({ port: 0, dataDir, serveSamples: false, logLevel: 'error', rateLimits: false });
process.on('message', (msg) => {
  if (msg?.type !== 'memory') return;
  globalThis.gc?.();
  globalThis.gc?.();
  const m = process.memoryUsage();
  process.send({ type: 'memory', memory: { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers } });
});
process.send({ type: 'listening', url: server.url });
process.once('SIGTERM', () => void server.close().finally(() => process.exit(0)));
