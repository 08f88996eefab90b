import type { Store } from '../storage/Store.ts';
import type { AuditScope } from '../moderation/auditContext.ts';

/**
 * Told of every guild dispatch once, before it fans out (the audit log derives entries from
 * them), with the audit scope of the HTTP request that made the change, or null.
 */
export type GuildEventTap = (guildId: string, t: string, payload: unknown, audit: AuditScope | null) => Promise<void>;

const taps = new WeakMap<Store, Set<GuildEventTap>>();

export function onGuildEvent(store: Store, tap: GuildEventTap): () => void {
  let set = taps.get(store);
  if (!set) taps.set(store, (set = new Set()));
  set.add(tap);
  return () => set.delete(tap);
}

/** Called by GuildEvents.publish; a tap's failure never stops the dispatch. */
export async function tapGuildEvent(store: Store, guildId: string, t: string, payload: unknown, audit: AuditScope | null): Promise<void> {
  const set = taps.get(store);
  if (!set) return;
  for (const tap of set) await tap(guildId, t, payload, audit).catch(() => undefined);
}
