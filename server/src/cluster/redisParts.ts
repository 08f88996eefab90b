/**
 * The parts of a node that exist only in a cluster (with `redisUrl`), loaded on demand: ioredis
 * and the modules built on it are memory a node alone never needs (issue 18's gateway-idle counts a
 * fresh server's resident memory against its 400 MB budget). startServer awaits this once, in the
 * Redis branch; everything else imports these modules' types only.
 */
export async function loadRedisParts() {
  const [{ RedisEventBus }, { RedisConnectionTracker }, { RedisRateLimitStore }, { sharedGatewaySessions }, { VoiceCluster }, { SnowflakeLease }] = await Promise.all([
    import('../events/RedisEventBus.ts'),
    import('./RedisConnectionTracker.ts'),
    import('../events/RedisRateLimitStore.ts'),
    import('../gateway/sharedSessions.ts'),
    import('../voice/VoiceCluster.ts'),
    import('./SnowflakeLease.ts'),
  ]);
  return { RedisEventBus, RedisConnectionTracker, RedisRateLimitStore, sharedGatewaySessions, VoiceCluster, SnowflakeLease };
}
