import { randomBytes } from 'node:crypto';
import type { EventBus } from '../events/EventBus.ts';
import { RedisEventBus } from '../events/RedisEventBus.ts';
import { streamMaxAgeMs } from '../events/resumeKeys.ts';
import { RedisSessionStore } from './RedisSessionStore.ts';

export interface GatewayTimings {
  heartbeatIntervalMs: number;
  resumeWindowMs: number;
  maxBufferedDispatches: number;
  /** Age bound of the Resume streams; default streamMaxAgeMs(record lifetime). Tests set it short. */
  streamMaxAgeMs?: number;
}

/**
 * Gateway Resume on any node (issue 18): with a Redis bus, sessions are recorded in Redis and the
 * bus streams user-topic dispatches, so a client cut from one node resumes on another. Returns
 * the GatewayServer option to spread; nothing for a node alone (its sessions stay in memory).
 */
export function sharedGatewaySessions(bus: EventBus, redisUrl: string | undefined, timings: GatewayTimings): { shared?: RedisSessionStore } {
  if (!redisUrl || !(bus instanceof RedisEventBus)) return {};
  // A record outlives its last heartbeat by two intervals plus the resume window: the sessions of
  // a node that died stay resumable for the whole window, then lapse on their own.
  const ttlMs = timings.resumeWindowMs + 2 * timings.heartbeatIntervalMs;
  // Both streams are bounded by age as well as count: a busy player's stream no longer holds
  // `maxBufferedDispatches` frames for as long as dispatches keep coming (docs/capacity.md).
  const maxAgeMs = timings.streamMaxAgeMs ?? streamMaxAgeMs(ttlMs);
  bus.streamUserTopics({ maxLen: timings.maxBufferedDispatches, ttlMs, maxAgeMs });
  return {
    shared: new RedisSessionStore(redisUrl, {
      nodeId: randomBytes(8).toString('hex'),
      prefix: bus.prefix,
      resumeWindowMs: timings.resumeWindowMs,
      attachedTtlMs: ttlMs,
      maxLen: timings.maxBufferedDispatches,
      maxAgeMs,
    }),
  };
}
