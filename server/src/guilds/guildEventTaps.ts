import type { Store } from '../storage/Store.ts';

/** Told of every guild dispatch once, before it fans out (the audit log derives entries from them). */
export type GuildEventTap = (guildId: string, t: string, payload: unknown) => Promise<void>;

const taps = new WeakMap<Store, Set<GuildEventTap>>();

export function onGuildEvent(store: Store, tap: GuildEventTap): () => void {
  let set = taps.get(store);
  if (!set) taps.set(store, (set = new Set()));
  set.add(tap);
  return () => set.delete(tap);
}

/** Called by GuildEvents.publish; a tap's failure never stops the dispatch. */
export async function tapGuildEvent(store: Store, guildId: string, t: string, payload: unknown): Promise<void> {
  const set = taps.get(store);
  if (!set) return;
  for (const tap of set) await tap(guildId, t, payload).catch(() => undefined);
}
