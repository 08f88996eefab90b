/**
 * The store's data in the public shapes (server/src/commerce/wire.ts) and pure functions over it:
 * prices, what kind of thing a SKU is, what the user owns of it, subscription states. No DOM, no
 * fetch: webAppModel.test.ts checks them.
 */

/** Public SKU types; SUBSCRIPTION_GROUP is the system-made group of a subscription, never sold. */
export const SkuType = { Durable: 2, Consumable: 3, Subscription: 5, SubscriptionGroup: 6 } as const;
export const SKU_AVAILABLE = 1 << 2;
/** Public entitlement types that the checkout records. */
export const EntitlementType = { Purchase: 1, TestModePurchase: 4, ApplicationSubscription: 8 } as const;
/** Subscription status: the spec's INACTIVE 1 and ENDING 2, and our ACTIVE 0 (server README). */
export const SubscriptionStatus = { Active: 0, Inactive: 1, Ending: 2 } as const;

/** The public shapes, as the server writes them (type-only: nothing of the server is bundled). */
export type { SkuWire as Sku, EntitlementWire as Entitlement, SubscriptionWire as Subscription } from '../../../../src/commerce/wire.ts';
import type { SkuWire as Sku, EntitlementWire as Entitlement, SubscriptionWire as Subscription } from '../../../../src/commerce/wire.ts';

/** GET /applications/{id}/storefront (ours). */
export interface Storefront {
  id: string;
  name: string;
  description: string;
  test_mode: boolean;
  tester: boolean;
}

export interface CheckoutResult {
  entitlement: Entitlement;
  subscription?: Subscription;
  payment: { provider: string; reference: string | null };
}

/** Cents as dollars: 499 -> "$4.99"; 0 -> "Free". */
export function formatPrice(cents: number): string {
  if (cents === 0) return 'Free';
  return `$${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** "$9.99 / 30 days" for a subscription, the plain price otherwise. */
export function priceLabel(sku: Sku): string {
  const price = formatPrice(sku.price);
  if (sku.type !== SkuType.Subscription) return price;
  const days = sku.billing_period_days ?? 30;
  return `${price} / ${days === 1 ? 'day' : `${days} days`}`;
}

export function kindLabel(sku: Sku): string {
  switch (sku.type) {
    case SkuType.Durable:
      return 'Yours to keep';
    case SkuType.Consumable:
      return 'One-time item, used up in the game';
    case SkuType.Subscription:
      return `Renews every ${sku.billing_period_days ?? 30} days until you cancel`;
    default:
      return 'Not for sale on its own';
  }
}

/** What the store shows to sell: on sale, and not a subscription's system-made group. */
export function forSale(skus: Sku[]): Sku[] {
  return skus.filter((s) => (s.flags & SKU_AVAILABLE) !== 0 && s.type !== SkuType.SubscriptionGroup);
}

/**
 * What the user has of a SKU, from their active entitlements (not deleted, not ended, not
 * consumed: what GET /users/@me/applications/{id}/entitlements answers) and subscriptions:
 * 'owned' (a durable or an unused consumable; no second purchase), 'subscribed' (renews),
 * 'ending' (canceled, active until the period ends), or null (can buy).
 */
export type Ownership = 'owned' | 'subscribed' | 'ending' | null;

export function ownership(sku: Sku, entitlements: Entitlement[], subscriptions: Subscription[]): Ownership {
  if (sku.type === SkuType.Subscription) {
    const sub = subscriptions.find((s) => s.sku_ids.includes(sku.id) && s.status !== SubscriptionStatus.Inactive);
    if (sub) return sub.status === SubscriptionStatus.Ending ? 'ending' : 'subscribed';
  }
  return entitlements.some((e) => e.sku_id === sku.id && !e.deleted && !e.consumed) ? 'owned' : null;
}

export function statusLabel(s: Subscription): string {
  switch (s.status) {
    case SubscriptionStatus.Active:
      return 'Active';
    case SubscriptionStatus.Ending:
      return 'Canceled';
    case SubscriptionStatus.Inactive:
      return 'Ended';
    default:
      return `Status ${s.status}`;
  }
}

/** "Renews on 1 Apr 2026", "Active until 1 Apr 2026", "Ended on 1 Apr 2026". */
export function periodLabel(s: Subscription): string {
  const end = formatDate(s.current_period_end);
  if (s.status === SubscriptionStatus.Active) return `Renews on ${end}`;
  if (s.status === SubscriptionStatus.Ending) return `Active until ${end}`;
  return `Ended on ${end}`;
}

/** A date in the reader's own words but always with the year, in UTC so tests read one answer. */
export function formatDate(iso: string): string {
  return new Date(iso).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
}
