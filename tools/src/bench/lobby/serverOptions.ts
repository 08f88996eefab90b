import type { ServerOptions } from '@social-layer/server';

/**
 * The platform node of `lobby-fanout` and `lobby-join`, the same in both layouts (in the bench's
 * process and in platformProcess.ts): heartbeats far apart so none falls in a round, rate limits
 * off because one sender posts (and 2,000 clients sign in) far faster than players would.
 */
export function lobbyBenchServerOptions(dataDir: string): ServerOptions {
  return { port: 0, dataDir, serveSamples: false, logLevel: 'error', heartbeatIntervalMs: 60_000, rateLimits: false };
}
