/**
 * Our server, alone in its process, for gateway-idle: the real startServer on the data folder the
 * orchestrator prepared (users and tokens already there), default settings except the per-address
 * caps (every client comes from loopback). Sends { url } over IPC, then answers memory requests.
 */
import { startServer } from '@social-layer/server';
import { answerMemoryRequests } from './memory.ts';

const dataDir = process.argv[2]!;
const server = await startServer({ port: 0, dataDir, serveSamples: false, logLevel: 'error', rateLimits: false });
answerMemoryRequests();
process.send!({ type: 'listening', url: server.url });
process.once('SIGTERM', () => void server.close().finally(() => process.exit(0)));
