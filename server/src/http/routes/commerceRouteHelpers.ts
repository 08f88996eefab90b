import type { EntitlementWire, SkuWire, SubscriptionWire } from '../../commerce/index.ts';
import type { Principal } from '../../auth/Principal.ts';
import { ApiError } from '../ApiError.ts';
import { requireBot } from '../auth.ts';
import { IdParam, Int, Nullable, NotFound, Snowflake, Type, Wire } from '../schemas/index.ts';

/**
 * Shared pieces of the commerce routes (skus.ts, entitlements.ts, subscriptions.ts): the public
 * shapes as response schemas, and the rule that only an application's own bot reads or changes
 * its commerce (another application's answers 403 50001, never whether it exists).
 */
export function requireOwnBot(p: Principal, applicationId: string): Extract<Principal, { kind: 'bot' }> {
  const bot = requireBot(p);
  if (bot.applicationId !== applicationId) throw new ApiError(403, 50001, 'Missing Access');
  return bot;
}

export const TAGS = ['commerce'];
export const COMMERCE_READ = { rateLimit: { bucket: 'commerce.read', limit: 60, windowMs: 10_000 } };
export const COMMERCE_WRITE = { rateLimit: { bucket: 'commerce.write', limit: 30, windowMs: 10_000 } };

export const AppParams = Type.Object({ applicationId: IdParam(NotFound.application) });
const UNKNOWN_SKU = { code: 10027, message: 'Unknown SKU' };
const UNKNOWN_ENTITLEMENT = { code: 10029, message: 'Unknown Entitlement' };
export const EntitlementParams = Type.Object({ applicationId: IdParam(NotFound.application), entitlementId: IdParam(UNKNOWN_ENTITLEMENT) });
export const SkuParams = Type.Object({ skuId: IdParam(UNKNOWN_SKU) });
export const SubscriptionParams = Type.Object({ skuId: IdParam(UNKNOWN_SKU), subscriptionId: IdParam({ code: 0, message: 'Unknown Subscription' }) });
export const PageLimit = (max: number, dflt: number) => Type.Optional(Int(1, max, `1 to ${max}; default ${dflt}`));

const Iso = Type.String({ format: 'date-time' });

export const SkuSchema = Wire<SkuWire>(
  Type.Object(
    {
      id: Snowflake(),
      type: Type.Integer({ description: 'DURABLE 2, CONSUMABLE 3, SUBSCRIPTION 5, SUBSCRIPTION_GROUP 6' }),
      application_id: Snowflake(),
      name: Type.String(),
      slug: Type.String(),
      flags: Type.Integer({ description: 'AVAILABLE 1<<2, USER_SUBSCRIPTION 1<<8' }),
      price: Type.Integer({ description: 'Ours: price in cents' }),
      billing_period_days: Type.Optional(Type.Integer({ description: 'Ours: subscription SKUs only' })),
    },
    { title: 'Sku' },
  ),
);

export const EntitlementSchema = Wire<EntitlementWire>(
  Type.Object(
    {
      id: Snowflake(),
      sku_id: Snowflake(),
      application_id: Snowflake(),
      user_id: Type.Optional(Snowflake()),
      guild_id: Type.Optional(Snowflake()),
      type: Type.Integer({ description: 'PURCHASE 1, TEST_MODE_PURCHASE 4, APPLICATION_SUBSCRIPTION 8' }),
      deleted: Type.Boolean(),
      starts_at: Nullable(Iso),
      ends_at: Nullable(Iso),
      consumed: Type.Boolean(),
      subscription_id: Type.Optional(Snowflake()),
    },
    { title: 'Entitlement' },
  ),
);

export const SubscriptionSchema = Wire<SubscriptionWire>(
  Type.Object(
    {
      id: Snowflake(),
      user_id: Snowflake(),
      sku_ids: Type.Array(Snowflake()),
      entitlement_ids: Type.Array(Snowflake()),
      renewal_sku_ids: Nullable(Type.Array(Snowflake())),
      current_period_start: Iso,
      current_period_end: Iso,
      status: Type.Integer({ description: 'ACTIVE 0 (ours), INACTIVE 1, ENDING 2 (spec)' }),
      canceled_at: Nullable(Iso),
    },
    { title: 'Subscription' },
  ),
);
