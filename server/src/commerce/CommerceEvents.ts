import { type EventBus, userTopic } from '../events/EventBus.ts';
import type { Store } from '../storage/Store.ts';

/** One Gateway dispatch to an application's bot sessions, published once its transaction committed. */
export interface CommerceDispatch {
  applicationId: string;
  t: 'ENTITLEMENT_CREATE' | 'ENTITLEMENT_UPDATE' | 'ENTITLEMENT_DELETE' | 'SUBSCRIPTION_CREATE' | 'SUBSCRIPTION_UPDATE' | 'SUBSCRIPTION_DELETE';
  d: unknown;
}

/**
 * Publishes commerce dispatches to the application's bot sessions: a bot's Gateway session
 * listens on its own user topic (`userTopic(application, bot user)`), so no Gateway code changes.
 * The Gateway is not durable: a node that dies between commit and publish loses the dispatch
 * (the webhook outbox, written in the transaction, does not).
 */
export class CommerceEvents {
  private readonly bots = new Map<string, string>();

  constructor(private readonly store: Store, private readonly bus: EventBus) {}

  async publish(dispatches: readonly CommerceDispatch[]): Promise<void> {
    for (const d of dispatches) {
      const bot = await this.botUserId(d.applicationId);
      if (bot) this.bus.publish(userTopic(d.applicationId, bot), { t: d.t, json: JSON.stringify(d.d) });
    }
  }

  private async botUserId(applicationId: string): Promise<string | undefined> {
    let id = this.bots.get(applicationId);
    if (id === undefined) {
      id = (await this.store.applications.get(applicationId))?.bot_user_id;
      if (id) this.bots.set(applicationId, id);
    }
    return id;
  }
}
