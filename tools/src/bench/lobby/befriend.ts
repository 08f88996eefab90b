import type { RunningServer } from '@social-layer/server';

/**
 * presence-fanout's setup: `host` and each of `friends` become friends, straight into the store
 * (the request and accept routes are the tests' job, not timed here); both rows of each pair, as
 * accepting a request writes them.
 */
export async function befriend(server: RunningServer, host: string, friends: readonly string[]): Promise<void> {
  const now = Date.now();
  await server.store.relationships.transaction(async (tx) => {
    for (const f of friends) {
      await server.store.relationships.set(tx, { user_id: host, other_id: f, application_id: '0', type: 1, is_spam: 0, since: now });
      await server.store.relationships.set(tx, { user_id: f, other_id: host, application_id: '0', type: 1, is_spam: 0, since: now });
    }
  });
}
