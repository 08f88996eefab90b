import type { ChannelMessagesTable } from '../storage/ChannelMessageRepo.ts';
import type { Store } from '../storage/Store.ts';

/** What happened to messages of a guild channel, told after the change is committed and published. */
export type ChannelMessageChange =
  | { kind: 'create'; row: ChannelMessagesTable }
  | { kind: 'update'; row: ChannelMessagesTable }
  | { kind: 'delete'; channelId: string; ids: string[] };

export type ChannelMessageListener = (change: ChannelMessageChange) => Promise<void>;

const listeners = new WeakMap<Store, Set<ChannelMessageListener>>();

/**
 * Listeners of channel message changes per store (linked channels mirror them into lobbies,
 * issue 12). A registry beside MessageService rather than a field on it, so MessageService
 * needs one call per change and no knowledge of who listens.
 */
export function onChannelMessageChange(store: Store, listener: ChannelMessageListener): () => void {
  let set = listeners.get(store);
  if (!set) listeners.set(store, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/**
 * Awaited by MessageService, so listeners must return fast: the linked-channel mirror only queues
 * its work (LinkedChannelService.drain() waits for it). Listeners handle their own errors.
 */
export async function channelMessageChanged(store: Store, change: ChannelMessageChange): Promise<void> {
  for (const l of listeners.get(store) ?? []) await l(change);
}
