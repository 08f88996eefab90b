import type { Store } from '../storage/Store.ts';
import type { UrlMapping } from './activitySettings.ts';

/**
 * The proxy host's view of each application's URL mappings, kept a few seconds (issue 17, P5):
 * every proxied request (an activity's page loads dozens of assets) would otherwise read the
 * application and its settings. A save on this node drops the entry at once (ActivityService);
 * another node's save, a deleted or disabled application, are seen within TTL_MS.
 */
const TTL_MS = 5_000;
/** Bound on entries per store: past it the oldest go (a flood of unknown ids cannot grow it). */
const MAX_ENTRIES = 10_000;

interface Entry { mappings: UrlMapping[] | undefined; expires: number }

const byStore = new WeakMap<Store, Map<string, Entry>>();

function entries(store: Store): Map<string, Entry> {
  let m = byStore.get(store);
  if (!m) byStore.set(store, (m = new Map()));
  return m;
}

/** The cached mappings (undefined: no activity there), or `load`'s answer, kept for TTL_MS. */
export async function cachedMappings(store: Store, applicationId: string, load: () => Promise<UrlMapping[] | undefined>, now = Date.now()): Promise<UrlMapping[] | undefined> {
  const m = entries(store);
  const hit = m.get(applicationId);
  if (hit && hit.expires > now) return hit.mappings;
  const mappings = await load();
  m.delete(applicationId);
  if (m.size >= MAX_ENTRIES) m.delete(m.keys().next().value!);
  m.set(applicationId, { mappings, expires: now + TTL_MS });
  return mappings;
}

/** Called when the application's settings are saved on this node. */
export function invalidateMappings(store: Store, applicationId: string): void {
  byStore.get(store)?.delete(applicationId);
}
