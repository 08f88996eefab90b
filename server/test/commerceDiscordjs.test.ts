// Commerce with discord.js v14, unmodified (issue 14): the bot lists SKUs and entitlements,
// creates and deletes a test entitlement, consumes a consumable, fetches subscriptions, and
// hears ENTITLEMENT_CREATE/UPDATE/DELETE and SUBSCRIPTION_CREATE/UPDATE on its Gateway session
// when a user buys (through the purchase service; commerceStoreBrowser.test.ts buys in the web app),
// and entitlementDelete + subscriptionDelete when a test-mode subscription's entitlement is deleted.
// ENTITLEMENT_CREATE also arrives as a signed webhook event through the outbox.
import { Client, DiscordAPIError, type Entitlement, Events, GatewayIntentBits, type Subscription } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { WebhookReceiver } from './webhookReceiver.ts';

let t: TestServer;
let client: Client;
let receiver: WebhookReceiver;
let now = Date.UTC(2026, 2, 1);
let sword: string;
let potion: string;
let pass: string;

/** Resolves with the next event of that name the client emits. */
function next<T extends unknown[]>(event: string): Promise<T> {
  return new Promise((resolve) => client.once(event, (...args: unknown[]) => resolve(args as T)));
}

beforeAll(async () => {
  t = await startTestServer({ commerce: { clock: { now: () => now }, scheduler: false }, webhooks: { allowLoopback: true, pollIntervalMs: 50 } });
  receiver = await WebhookReceiver.start();
  receiver.publicKey = (await t.server.webhooks.wire(t.app.id)).verify_key;
  await t.server.webhooks.update(t.app.id, { event_webhooks_url: receiver.url, event_webhooks_types: ['ENTITLEMENT_CREATE'] });
  sword = (await t.server.commerce.createSku(t.app.id, { name: 'Sword', type: 'durable', price: 499 })).id;
  potion = (await t.server.commerce.createSku(t.app.id, { name: 'Potion', type: 'consumable', price: 99 })).id;
  pass = (await t.server.commerce.createSku(t.app.id, { name: 'Season Pass', type: 'subscription', price: 999, billingPeriodDays: 30 })).id;
  client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: `${t.server.url}/api` } });
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(t.app.botToken);
  await ready;
});
afterAll(async () => {
  await client.destroy();
  await t.close();
  await receiver.close();
  cleanupTempDirs();
});

describe('discord.js commerce against Social Layer', () => {
  it('lists the application\'s SKUs', async () => {
    const skus = await client.application!.fetchSKUs();
    // The subscription comes with its system-made SUBSCRIPTION_GROUP (type 6), as the public API lists it.
    expect([...skus.keys()].slice(0, 3)).toEqual([sword, potion, pass]);
    expect(skus.size).toBe(4);
    expect(skus.last()).toMatchObject({ type: 6, name: 'Season Pass', slug: 'season-pass' });
    expect(skus.last()!.flags.has(4)).toBe(false);
    expect(skus.get(potion)).toMatchObject({ name: 'Potion', slug: 'potion', type: 3, applicationId: t.app.id });
    expect(skus.get(pass)?.type).toBe(5);
    expect(skus.get(sword)?.flags.has(4)).toBe(true);
  });

  it('creates a test entitlement, hears entitlementCreate, consumes it, deletes another', async () => {
    const player = await t.guest('Player');
    const created = next<[Entitlement]>(Events.EntitlementCreate);
    const test = await client.application!.entitlements.createTest({ sku: potion, user: player.userId });
    expect(test.isTest()).toBe(true);
    expect(test).toMatchObject({ skuId: potion, userId: player.userId, applicationId: t.app.id, type: 4, consumed: false, deleted: false });
    const [heard] = await created;
    expect(heard.id).toBe(test.id);

    const listed = await client.application!.entitlements.fetch({ user: player.userId, skus: [potion], excludeEnded: true });
    expect([...listed.keys()]).toEqual([test.id]);

    const updated = next<[Entitlement | null, Entitlement]>(Events.EntitlementUpdate);
    await client.application!.entitlements.consume(test.id);
    expect((await updated)[1].consumed).toBe(true);
    const again = await client.application!.entitlements.consume(test.id).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(DiscordAPIError);
    expect((again as DiscordAPIError).status).toBe(400);
    const fetched = await client.application!.entitlements.fetch({ entitlement: test.id, force: true });
    expect(fetched.consumed).toBe(true);

    // A durable one cannot be consumed: the public code 40018.
    const durable = await client.application!.entitlements.createTest({ sku: sword, user: player.userId });
    const refused = await client.application!.entitlements.consume(durable.id).catch((e: unknown) => e);
    expect((refused as DiscordAPIError).code).toBe(40018);

    const deleted = next<[Entitlement]>(Events.EntitlementDelete);
    await client.application!.entitlements.deleteTest(durable.id);
    expect((await deleted)[0].id).toBe(durable.id);
    const remaining = await client.application!.entitlements.fetch({ user: player.userId });
    expect([...remaining.keys()]).toEqual([test.id]);
  });

  it('hears entitlementCreate and subscriptionCreate when a user buys, subscriptionUpdate on renewal and cancel, and the webhook gets ENTITLEMENT_CREATE', async () => {
    const buyer = await t.guest('Buyer');
    const created = next<[Entitlement]>(Events.EntitlementCreate);
    const subscribed = next<[Subscription]>(Events.SubscriptionCreate);
    const bought = await t.server.commerce.purchase(t.app.id, buyer.userId, pass);
    const [entitlement] = await created;
    expect(entitlement).toMatchObject({ id: bought.entitlement.id, skuId: pass, userId: buyer.userId, type: 8, endsTimestamp: null, startsTimestamp: now });
    const [subscription] = await subscribed;
    expect(subscription).toMatchObject({ id: bought.subscription!.id, userId: buyer.userId, skuIds: [pass], entitlementIds: [entitlement.id], renewalSkuIds: [pass], status: 0 });

    const subs = await client.application!.subscriptions.fetch({ sku: pass, user: buyer.userId });
    expect([...subs.keys()]).toEqual([subscription.id]);

    // Renewal: SUBSCRIPTION_UPDATE only; then cancel: ENDING with canceled_at.
    now += 30 * 86_400_000;
    const renewed = next<[Subscription | null, Subscription]>(Events.SubscriptionUpdate);
    expect(await t.server.subscriptionScheduler.tick()).toBe(1);
    expect((await renewed)[1].currentPeriodStartTimestamp).toBe(now);
    const canceled = next<[Subscription | null, Subscription]>(Events.SubscriptionUpdate);
    await t.server.commerce.cancelSubscription(buyer.userId, subscription.id);
    expect((await canceled)[1]).toMatchObject({ status: 2, canceledTimestamp: now });

    // The period runs out: entitlementUpdate with ends_at at the period's end.
    now += 30 * 86_400_000;
    const ended = next<[Entitlement | null, Entitlement]>(Events.EntitlementUpdate);
    expect(await t.server.subscriptionScheduler.tick()).toBe(1);
    expect((await ended)[1].endsTimestamp).toBe(now);

    // The same purchase as a signed webhook event, from the outbox.
    await receiver.waitFor(() => receiver.events().some((e) => e.body.event.data.id === bought.entitlement.id));
    const hook = receiver.events().find((e) => e.body.event.data.id === bought.entitlement.id)!;
    expect(hook.body).toMatchObject({ version: 1, type: 1, application_id: t.app.id, event: { type: 'ENTITLEMENT_CREATE', data: bought.entitlement } });
    // Only ENTITLEMENT_CREATE is a webhook event: no update was sent.
    expect(receiver.events().every((e) => e.body.event.type === 'ENTITLEMENT_CREATE')).toBe(true);
  });

  it('deleting a test-mode subscription\'s entitlement deletes the subscription: entitlementDelete then subscriptionDelete', async () => {
    const tester = await t.guest('Tester');
    const bought = await t.server.commerce.purchase(t.app.id, tester.userId, pass, { testMode: true });
    expect(bought.entitlement.type).toBe(4);
    const order: string[] = [];
    const onDelete = (kind: string) => () => void order.push(kind);
    const e1 = onDelete('entitlementDelete');
    const s1 = onDelete('subscriptionDelete');
    client.on(Events.EntitlementDelete, e1);
    client.on(Events.SubscriptionDelete, s1);
    const entitlementGone = next<[Entitlement]>(Events.EntitlementDelete);
    const subscriptionGone = next<[Subscription]>(Events.SubscriptionDelete);
    await client.application!.entitlements.deleteTest(bought.entitlement.id);
    expect((await entitlementGone)[0]).toMatchObject({ id: bought.entitlement.id, deleted: true });
    expect((await subscriptionGone)[0]).toMatchObject({ id: bought.subscription!.id, userId: tester.userId, skuIds: [pass], entitlementIds: [bought.entitlement.id], status: 0 });
    client.off(Events.EntitlementDelete, e1);
    client.off(Events.SubscriptionDelete, s1);
    expect(order).toEqual(['entitlementDelete', 'subscriptionDelete']);
    // Gone from the subscription API; the entitlement is listed only with exclude_deleted=false.
    const subs = await client.application!.subscriptions.fetch({ sku: pass, user: tester.userId });
    expect(subs.size).toBe(0);
    const one = await t.req('GET', `/skus/${pass}/subscriptions/${bought.subscription!.id}`, { token: t.app.botToken, bot: true });
    expect([one.status, one.body.message]).toEqual([404, 'Unknown Subscription']);
    const listed = await t.req('GET', `/applications/${t.app.id}/entitlements?user_id=${tester.userId}&exclude_deleted=false`, { token: t.app.botToken, bot: true });
    expect(listed.body).toEqual([expect.objectContaining({ id: bought.entitlement.id, deleted: true })]);
    // A player's real purchase is not a test entitlement: 40019, nothing changes.
    const player = await t.guest('Payer');
    const real = await t.server.commerce.purchase(t.app.id, player.userId, pass);
    const refused = await client.application!.entitlements.deleteTest(real.entitlement.id).catch((e: unknown) => e);
    expect((refused as DiscordAPIError).code).toBe(40019);
    expect((await client.application!.subscriptions.fetch({ sku: pass, user: player.userId })).size).toBe(1);
  });
});
