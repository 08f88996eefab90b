import type { Transaction } from 'kysely';
import type { SkusTable, SubscriptionsTable } from '../storage/commerceSchema.ts';
import type { Database } from '../storage/schema.ts';
import type { Store } from '../storage/Store.ts';
import type { CommerceDispatch } from './CommerceEvents.ts';
import { DAY_MS, DEFAULT_BILLING_PERIOD_DAYS, EntitlementType, entitlementToWire, SubscriptionStatus, type SubscriptionStatusValue, subscriptionToWire } from './wire.ts';

export type SubscriptionTrigger =
  | { kind: 'purchase'; applicationId: string; userId: string; sku: SkusTable; /** TEST_MODE_PURCHASE for a tester in test mode; default PURCHASE. */ entitlementType?: number }
  | { kind: 'renew' }
  | { kind: 'cancel' }
  | { kind: 'end' }
  /** The subscription is removed (a test-mode one, through Delete Test Entitlement on its entitlement). */
  | { kind: 'delete' };

export interface TransitionResult {
  subscription: SubscriptionsTable;
  /** Gateway dispatches to publish after the transaction commits. */
  dispatches: CommerceDispatch[];
}

/** A subscription's state: `none` before the purchase. */
type State = 'none' | SubscriptionStatusValue;

/**
 * Which trigger applies in which state (spec, States and transitions). Renewal and period end
 * apply only once the current period has run out; anything not listed changes nothing.
 */
const ALLOWED: Record<SubscriptionTrigger['kind'], (state: State, s: SubscriptionsTable | null, now: number) => boolean> = {
  purchase: (state) => state === 'none',
  renew: (state, s, now) => state === SubscriptionStatus.Active && Number(s!.current_period_end) <= now,
  cancel: (state) => state === SubscriptionStatus.Active,
  end: (state, s, now) => state === SubscriptionStatus.Ending && Number(s!.current_period_end) <= now,
  delete: (state) => state !== 'none',
};

/**
 * The subscription state machine, one transition point (DESIGN.md convention 4):
 * - purchase: (none) -> ACTIVE; entitlement APPLICATION_SUBSCRIPTION (8) with `ends_at` null; ENTITLEMENT_CREATE
 *   (Gateway and webhook outbox) and SUBSCRIPTION_CREATE.
 * - renew: ACTIVE -> ACTIVE with the next period; SUBSCRIPTION_UPDATE only (no entitlement event).
 * - cancel: ACTIVE -> ENDING with `canceled_at` and no renewal SKUs; SUBSCRIPTION_UPDATE; the
 *   entitlement is unchanged.
 * - end: ENDING -> INACTIVE when the period has run out; the entitlement's `ends_at` becomes the
 *   period's end; ENTITLEMENT_UPDATE (Gateway and webhook outbox) and SUBSCRIPTION_UPDATE.
 * - delete: any state -> gone; its entitlements are marked deleted (ENTITLEMENT_DELETE each, Gateway
 *   and webhook outbox) and
 *   the row removed; SUBSCRIPTION_DELETE carries the subscription as it was.
 * Every change and its webhook event are written in the caller's transaction; the caller
 * publishes the returned dispatches after commit.
 */
export class SubscriptionMachine {
  /** Observers of every state change (tests, metrics). */
  onStateChange: ((subscriptionId: string, from: State, to: SubscriptionStatusValue | 'deleted') => void) | null = null;

  constructor(private readonly store: Store) {}

  /** Applies `trigger` to `current` (null before a purchase); null when it does not apply now. */
  async transition(tx: Transaction<Database>, current: SubscriptionsTable | null, trigger: SubscriptionTrigger, now: number): Promise<TransitionResult | null> {
    const from: State = current === null ? 'none' : (current.status as SubscriptionStatusValue);
    if (!ALLOWED[trigger.kind](from, current, now)) return null;
    const dispatches: CommerceDispatch[] = [];
    let next: SubscriptionsTable;

    if (trigger.kind === 'purchase') {
      const period = periodMs(trigger.sku);
      next = {
        id: this.store.subscriptions.nextId(),
        application_id: trigger.applicationId,
        user_id: trigger.userId,
        sku_id: trigger.sku.id,
        renewal_sku_ids: JSON.stringify([trigger.sku.id]),
        status: SubscriptionStatus.Active,
        canceled_at: null,
        current_period_start: now,
        current_period_end: now + period,
        created_at: now,
        updated_at: now,
      };
      await this.store.subscriptions.insert(tx, next);
      const entitlement = await this.store.entitlements.create(
        tx,
        { application_id: trigger.applicationId, sku_id: trigger.sku.id, user_id: trigger.userId, guild_id: null, type: trigger.entitlementType ?? EntitlementType.ApplicationSubscription, starts_at: now, ends_at: null, test: 0, subscription_id: next.id },
        now,
      );
      const wire = entitlementToWire(entitlement);
      await this.store.webhookEvents.record(tx, trigger.applicationId, 'ENTITLEMENT_CREATE', wire);
      dispatches.push({ applicationId: trigger.applicationId, t: 'ENTITLEMENT_CREATE', d: wire });
      dispatches.push({ applicationId: trigger.applicationId, t: 'SUBSCRIPTION_CREATE', d: subscriptionToWire(next, [entitlement.id]) });
    } else if (trigger.kind === 'delete') {
      const s = current!;
      const entitlements = await this.store.entitlements.ofSubscription(s.id, tx);
      for (const e of entitlements) {
        if (e.deleted === 1 || !(await this.store.entitlements.markDeleted(tx, e.id))) continue;
        const deleted = entitlementToWire({ ...e, deleted: 1 });
        // As for any deleted test entitlement: a webhook event too (webhook outbox, same transaction).
        await this.store.webhookEvents.record(tx, s.application_id, 'ENTITLEMENT_DELETE', deleted);
        dispatches.push({ applicationId: s.application_id, t: 'ENTITLEMENT_DELETE', d: deleted });
      }
      await this.store.subscriptions.remove(tx, s.id);
      dispatches.push({ applicationId: s.application_id, t: 'SUBSCRIPTION_DELETE', d: subscriptionToWire(s, entitlements.map((e) => e.id)) });
      this.onStateChange?.(s.id, from, 'deleted');
      return { subscription: s, dispatches };
    } else {
      const s = current!;
      let set: Partial<SubscriptionsTable>;
      if (trigger.kind === 'renew') {
        const sku = await this.store.skus.get(s.sku_id, tx);
        const end = Number(s.current_period_end);
        set = { current_period_start: end, current_period_end: end + periodMs(sku) };
      } else if (trigger.kind === 'cancel') {
        set = { status: SubscriptionStatus.Ending, canceled_at: now, renewal_sku_ids: '[]' };
      } else {
        set = { status: SubscriptionStatus.Inactive };
        const endsAt = Number(s.current_period_end);
        for (const e of await this.store.entitlements.ofSubscription(s.id, tx)) {
          if (e.ends_at !== null) continue;
          await this.store.entitlements.setEndsAt(tx, e.id, endsAt);
          const ended = entitlementToWire({ ...e, ends_at: endsAt });
          await this.store.webhookEvents.record(tx, s.application_id, 'ENTITLEMENT_UPDATE', ended);
          dispatches.push({ applicationId: s.application_id, t: 'ENTITLEMENT_UPDATE', d: ended });
        }
      }
      set.updated_at = now;
      await this.store.subscriptions.update(tx, s.id, set);
      next = { ...s, ...set };
      const entitlementIds = (await this.store.entitlements.ofSubscription(s.id, tx)).map((e) => e.id);
      dispatches.push({ applicationId: s.application_id, t: 'SUBSCRIPTION_UPDATE', d: subscriptionToWire(next, entitlementIds) });
    }
    this.onStateChange?.(next.id, from, next.status as SubscriptionStatusValue);
    return { subscription: next, dispatches };
  }
}

function periodMs(sku: SkusTable | undefined): number {
  return (sku?.billing_period_days ?? DEFAULT_BILLING_PERIOD_DAYS) * DAY_MS;
}
