import type { EventBus } from '../events/EventBus.ts';
import { privateChannelsFor } from '../messages/privateChannels.ts';
import type { Store } from '../storage/Store.ts';

/** READY fields read from the store: the application's public flags and the private channels. */
export interface ReadyStoreFields {
  application: { id: string; flags: number };
  private_channels: Record<string, unknown>[];
}

/** The public `flags` of an application: the low 32 bits of every flag kept (as GET /applications/@me shows). */
const LOW_32 = 0xffff_ffffn;

/**
 * `application.flags` is the application's real flags (clients read the privileged-intent bits
 * from it). `private_channels` is always present, as the public READY has it: empty for bots
 * (the public API sends bots none) and for a game's token (which may not use DMs,
 * privateChannels.mayUse); the first-party web app's session gets the user's DMs and group DMs.
 */
export async function readyStoreFields(store: Store, bus: EventBus, identity: { kind: 'bearer' | 'bot'; applicationId: string; userId: string }): Promise<ReadyStoreFields> {
  const app = await store.applications.get(identity.applicationId);
  const flags = app ? Number(BigInt(app.flags_new ?? '0') & LOW_32) : 0;
  const dms = identity.kind === 'bearer' && app?.first_party === 1;
  return {
    application: { id: identity.applicationId, flags },
    private_channels: dms ? await privateChannelsFor(store, bus).list(identity.userId) : [],
  };
}
