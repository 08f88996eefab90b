// The web app store's pure parts, in Node (views/store/storeModel.ts): prices, what kind of thing
// a SKU is, what the store shows for sale, what the user has of a SKU, subscription states, the
// store's paths, and the wire numbers it keeps locally (checked against discord-api-types here;
// subscription status follows our server's choice, ACTIVE 0 / INACTIVE 1 / ENDING 2, not theirs).
import { EntitlementType as ApiEntitlementType, SKUFlags, SKUType } from 'discord-api-types/v10';
import { describe, expect, it } from 'vitest';
import { SubscriptionStatus as ServerStatus } from '../src/commerce/wire.ts';
import { parseRoute, routePath } from '../web/src/state/routes.ts';
import { type Entitlement, EntitlementType, formatDate, formatPrice, forSale, kindLabel, ownership, periodLabel, priceLabel, type Sku, SKU_AVAILABLE, SkuType, statusLabel, type Subscription, SubscriptionStatus } from '../web/src/views/store/storeModel.ts';

const sku = (id: string, type: number, flags = SKU_AVAILABLE, extra: Partial<Sku> = {}): Sku => ({ id, type, application_id: '1', name: `S${id}`, slug: `s${id}`, flags, price: 499, ...extra });
const ent = (sku_id: string, extra: Partial<Entitlement> = {}): Entitlement => ({ id: `e${sku_id}`, sku_id, application_id: '1', user_id: '9', type: 1, deleted: false, starts_at: '2026-03-01T00:00:00.000Z', ends_at: null, consumed: false, ...extra });
const sub = (sku_id: string, status: number): Subscription => ({ id: `s${sku_id}`, user_id: '9', sku_ids: [sku_id], entitlement_ids: [], renewal_sku_ids: [sku_id], current_period_start: '2026-03-01T00:00:00.000Z', current_period_end: '2026-03-31T00:00:00.000Z', status, canceled_at: null });

describe('store model', () => {
  it('formats prices in cents, with the period for subscriptions', () => {
    expect([formatPrice(0), formatPrice(5), formatPrice(99), formatPrice(499), formatPrice(100000)]).toEqual(['Free', '$0.05', '$0.99', '$4.99', '$1000.00']);
    expect(priceLabel(sku('1', SkuType.Subscription, SKU_AVAILABLE, { billing_period_days: 30 }))).toBe('$4.99 / 30 days');
    expect(priceLabel(sku('1', SkuType.Subscription, SKU_AVAILABLE, { billing_period_days: 1 }))).toBe('$4.99 / day');
    expect(priceLabel(sku('1', SkuType.Durable))).toBe('$4.99');
    expect(kindLabel(sku('1', SkuType.Consumable))).toMatch(/used up/);
  });

  it('sells what is on sale and never a subscription group', () => {
    const list = [sku('1', SkuType.Durable), sku('2', SkuType.Subscription), sku('3', SkuType.SubscriptionGroup, 0), sku('4', SkuType.Durable, 0), sku('5', SkuType.SubscriptionGroup)];
    expect(forSale(list).map((s) => s.id)).toEqual(['1', '2']);
  });

  it('says what the user has of a SKU', () => {
    const durable = sku('1', SkuType.Durable);
    const potion = sku('2', SkuType.Consumable);
    const pass = sku('3', SkuType.Subscription);
    expect(ownership(durable, [], [])).toBeNull();
    expect(ownership(durable, [ent('1')], [])).toBe('owned');
    expect(ownership(durable, [ent('1', { deleted: true })], [])).toBeNull();
    expect(ownership(potion, [ent('2', { consumed: true })], [])).toBeNull();
    expect(ownership(pass, [ent('3')], [sub('3', SubscriptionStatus.Active)])).toBe('subscribed');
    expect(ownership(pass, [ent('3')], [sub('3', SubscriptionStatus.Ending)])).toBe('ending');
    // Ended: the entitlement list (active ones) no longer has it; it can be bought again.
    expect(ownership(pass, [], [sub('3', SubscriptionStatus.Inactive)])).toBeNull();
  });

  it('labels subscription states and periods', () => {
    expect([statusLabel(sub('1', 0)), statusLabel(sub('1', 2)), statusLabel(sub('1', 1))]).toEqual(['Active', 'Canceled', 'Ended']);
    expect([periodLabel(sub('1', 0)), periodLabel(sub('1', 2)), periodLabel(sub('1', 1))]).toEqual(['Renews on 31 Mar 2026', 'Active until 31 Mar 2026', 'Ended on 31 Mar 2026']);
    expect(formatDate('2026-12-31T23:59:59.000Z')).toBe('31 Dec 2026');
  });

  it('keeps the public numbers and our subscription status values', () => {
    expect(SkuType).toEqual({ Durable: SKUType.Durable, Consumable: SKUType.Consumable, Subscription: SKUType.Subscription, SubscriptionGroup: SKUType.SubscriptionGroup });
    expect(SKU_AVAILABLE).toBe(SKUFlags.Available);
    expect(EntitlementType).toEqual({ Purchase: ApiEntitlementType.Purchase, TestModePurchase: ApiEntitlementType.TestModePurchase, ApplicationSubscription: ApiEntitlementType.ApplicationSubscription });
    expect(SubscriptionStatus).toEqual(ServerStatus);
  });

  it('has paths for a game\'s store and the subscriptions page', () => {
    expect(parseRoute('/app/store/123456789012345678')).toEqual({ name: 'store', applicationId: '123456789012345678' });
    expect(parseRoute('/app/subscriptions/')).toEqual({ name: 'subscriptions' });
    expect(parseRoute('/app/store/abc')).toEqual({ name: 'notFound' });
    expect(routePath({ name: 'store', applicationId: '42' })).toBe('/app/store/42');
    expect(routePath({ name: 'subscriptions' })).toBe('/app/subscriptions');
  });
});
