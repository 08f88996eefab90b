import type { EntitlementsTable, SkusTable, SubscriptionsTable } from '../storage/commerceSchema.ts';

/** Public SKU types. */
export const SkuType = { Durable: 2, Consumable: 3, Subscription: 5, SubscriptionGroup: 6 } as const;
/** Public SKU flags: AVAILABLE marks a SKU on sale; USER_SUBSCRIPTION a per-user subscription. */
export const SkuFlags = { Available: 1 << 2, GuildSubscription: 1 << 7, UserSubscription: 1 << 8 } as const;
/** Public entitlement types (the spec names PURCHASE 1 and APPLICATION_SUBSCRIPTION 8). */
export const EntitlementType = { Purchase: 1, TestModePurchase: 4, ApplicationSubscription: 8 } as const;
/**
 * Subscription status. The spec fixes INACTIVE = 1 and ENDING = 2 and names no other value; the
 * public types package says ENDING 1, INACTIVE 2. We follow the spec and choose ACTIVE = 0 (the
 * value both agree is free, and the public types package's ACTIVE). See server/README.md.
 */
export const SubscriptionStatus = { Active: 0, Inactive: 1, Ending: 2 } as const;
export type SubscriptionStatusValue = (typeof SubscriptionStatus)[keyof typeof SubscriptionStatus];

/** Billing periods a subscription SKU may have, in days. */
export const DEFAULT_BILLING_PERIOD_DAYS = 30;
export const DAY_MS = 86_400_000;

export interface SkuWire {
  id: string;
  type: number;
  application_id: string;
  name: string;
  slug: string;
  flags: number;
  /** Ours: price in cents, and for subscriptions the billing period in days. */
  price: number;
  billing_period_days?: number;
}

export interface EntitlementWire {
  id: string;
  sku_id: string;
  application_id: string;
  user_id?: string;
  guild_id?: string;
  type: number;
  deleted: boolean;
  starts_at: string | null;
  ends_at: string | null;
  consumed: boolean;
  subscription_id?: string;
}

export interface SubscriptionWire {
  id: string;
  user_id: string;
  sku_ids: string[];
  entitlement_ids: string[];
  renewal_sku_ids: string[] | null;
  current_period_start: string;
  current_period_end: string;
  status: number;
  canceled_at: string | null;
}

const iso = (v: number | string | null): string | null => (v === null ? null : new Date(Number(v)).toISOString());

export function skuToWire(s: SkusTable): SkuWire {
  return {
    id: s.id,
    type: s.type,
    application_id: s.application_id,
    name: s.name,
    slug: s.slug,
    flags: s.flags,
    price: s.price,
    ...(s.billing_period_days !== null ? { billing_period_days: s.billing_period_days } : {}),
  };
}

export function entitlementToWire(e: EntitlementsTable): EntitlementWire {
  return {
    id: e.id,
    sku_id: e.sku_id,
    application_id: e.application_id,
    ...(e.user_id !== null ? { user_id: e.user_id } : {}),
    ...(e.guild_id !== null ? { guild_id: e.guild_id } : {}),
    type: e.type,
    deleted: e.deleted === 1,
    starts_at: iso(e.starts_at),
    ends_at: iso(e.ends_at),
    consumed: e.consumed === 1,
    ...(e.subscription_id !== null ? { subscription_id: e.subscription_id } : {}),
  };
}

export function subscriptionToWire(s: SubscriptionsTable, entitlementIds: string[]): SubscriptionWire {
  return {
    id: s.id,
    user_id: s.user_id,
    sku_ids: [s.sku_id],
    entitlement_ids: entitlementIds,
    renewal_sku_ids: JSON.parse(s.renewal_sku_ids) as string[],
    current_period_start: iso(s.current_period_start)!,
    current_period_end: iso(s.current_period_end)!,
    status: s.status,
    canceled_at: iso(s.canceled_at),
  };
}
