import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { EventBus } from '../events/EventBus.ts';

/** Bus topic a node publishes on after it links or unlinks, so every node reloads its set. */
export const LINKS_CHANGED_TOPIC = 'linked-channels:changed';

/**
 * The IDs of linked channels, kept in memory so a message in an unlinked channel (nearly all of
 * them) costs no `lobby_channel_links` query (security review P1). Reloaded when this node
 * links or unlinks, when another node says so over the event bus (Redis with several nodes),
 * and at most `ttlMs` after the last load as a backstop for a lost bus message. A stale extra ID
 * is harmless (the mirror looks the link up and finds none); a missing one means a message
 * posted on another node's freshly linked channel within that window is not mirrored.
 */
export class LinkedChannelIds {
  private ids = new Set<string>();
  private loadedAt = -Infinity;
  private loading: Promise<void> | undefined;
  private generation = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly bus: EventBus,
    private readonly ttlMs = 5_000,
  ) {
    this.unsubscribe = bus.subscribe(LINKS_CHANGED_TOPIC, () => this.invalidate());
  }

  /** True or false when the set is fresh; undefined when it must be reloaded first. */
  known(channelId: string): boolean | undefined {
    if (Date.now() - this.loadedAt > this.ttlMs) return undefined;
    return this.ids.has(channelId);
  }

  async has(channelId: string): Promise<boolean> {
    // A load that began before a change it did not see leaves the set stale: load again (bounded).
    for (let i = 0; i < 3 && this.known(channelId) === undefined; i++) await this.reload();
    return this.ids.has(channelId);
  }

  /** Marks the set stale here; `announce` also tells the other nodes. */
  invalidate(announce = false): void {
    this.loadedAt = -Infinity;
    this.generation++;
    if (announce) this.bus.publish(LINKS_CHANGED_TOPIC, { t: 'LINKS_CHANGED', json: '{}' });
  }

  close(): void {
    this.unsubscribe();
  }

  private reload(): Promise<void> {
    if (this.loading) return this.loading;
    const gen = this.generation;
    const started = Date.now();
    this.loading = this.db.selectFrom('lobby_channel_links').select('channel_id').execute().then((rows) => {
      this.ids = new Set(rows.map((r) => r.channel_id));
      // A change announced while loading leaves the set stale, so the next look reloads again.
      if (gen === this.generation) this.loadedAt = started;
    }).finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }
}
