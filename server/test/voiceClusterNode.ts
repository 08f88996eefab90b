// One server node as its own process, for voiceCluster.test.ts (it is SIGKILLed there, so its
// voice call must move). Config: JSON in argv[2]; prints one JSON line with its URL when ready.
import { startServer } from '../src/index.ts';

const cfg = JSON.parse(process.argv[2]!) as Parameters<typeof startServer>[0];
const server = await startServer({ port: 0, serveSamples: false, logLevel: 'error', ...cfg });
process.stdout.write(`${JSON.stringify({ url: server.url, port: server.port })}\n`);
