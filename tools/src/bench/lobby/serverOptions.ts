import type { ServerOptions } from '@social-layer/server';

/**
 * `lobby-fanout`'s platform node, the same in both layouts (in the bench's process and in
 * platformProcess.ts): heartbeats far apart so none falls in a round, rate limits off because one
 * sender posts far faster than a player would.
 */
export function lobbyFanoutServerOptions(dataDir: string): ServerOptions {
  return { port: 0, dataDir, serveSamples: false, logLevel: 'error', heartbeatIntervalMs: 60_000, rateLimits: false };
}
