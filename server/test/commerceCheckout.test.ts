// The checkout (issue 14) as a service with a payment-step interface, and its REST: test mode off
// with no provider refuses; the portal toggle turns test mode on; testers (the owner) get
// TEST_MODE_PURCHASE, other users PURCHASE; a declining provider writes nothing; users cancel
// their own subscriptions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommerceEvents, CommerceService, type PaymentStep } from '../src/commerce/index.ts';
import { LocalEventBus } from '../src/events/EventBus.ts';
import { cleanupTempDirs, keepWebhookEvents, startTestServer, type TestServer, webToken } from './harness.ts';
import { PageSession } from './oauthHelpers.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

async function counts() {
  const db = t.server.store.database.db;
  const n = async (table: 'entitlements' | 'subscriptions' | 'webhook_events') => (await db.selectFrom(table).select('id').execute()).length;
  return { entitlements: await n('entitlements'), subscriptions: await n('subscriptions'), events: await n('webhook_events') };
}

describe('checkout', () => {
  it('refuses without test mode or provider, then sells in test mode: PURCHASE for players, TEST_MODE_PURCHASE for the owner', async () => {
    const dev = new PageSession(t.server.url);
    await dev.signUp('shop_owner');
    const csrf = PageSession.csrf((await dev.get('/developers')).text);
    const created = await dev.submit('/developers/applications', { csrf, name: 'Checkout Game' });
    const appId = /<code class="copy" id="client-id">([^<]+)<\/code>/.exec(created.text)![1]!;
    await keepWebhookEvents(t, appId);
    const ownerId = (await t.server.store.applications.get(appId))!.owner_id!;
    const ownerToken = await t.server.store.tokens.issue(ownerId, appId, ['identify'], 3600);
    const sword = await t.server.commerce.createSku(appId, { name: 'Sword', type: 'durable', price: 499 });
    const pass = await t.server.commerce.createSku(appId, { name: 'Pass', type: 'subscription', price: 999 });
    const guest = await t.req('POST', '/partner-sdk/token', { body: { client_id: appId, external_auth_type: 'DEVICE_ID', external_auth_token: 'c'.repeat(32) } });
    const game = guest.body.access_token as string;
    // Buying and cancelling are the person's own acts in the web app: its session, not the game's token.
    const player = await webToken(t, (await t.req('GET', '/users/@me', { token: game })).body.id);
    const ownerWeb = await webToken(t, ownerId);
    expect((await t.req('POST', `/skus/${sword.id}/checkout`, { token: game })).body.code).toBe(50001);

    const before = await counts();
    const off = await t.req('POST', `/skus/${sword.id}/checkout`, { token: player });
    expect([off.status, off.body.code]).toEqual([400, 0]);
    expect(off.body.message).toMatch(/no payment provider is configured and test mode is off/);
    expect(await counts()).toEqual(before);

    // The portal's toggle, on the SKU list page.
    expect((await dev.get(`/developers/applications/${appId}/skus`)).text).not.toMatch(/id="test-mode"[^>]*checked/);
    expect((await dev.post(`/developers/applications/${appId}/skus`, { csrf, action: 'test_mode', enabled: '1' })).status).toBe(303);
    expect((await dev.get(`/developers/applications/${appId}/skus`)).text).toMatch(/id="test-mode"[^>]*checked/);

    const bought = await t.req('POST', `/skus/${sword.id}/checkout`, { token: player });
    expect(bought.status).toBe(200);
    expect(bought.body.entitlement).toMatchObject({ sku_id: sword.id, application_id: appId, type: 1, consumed: false, ends_at: null });
    expect(bought.body.payment).toEqual({ provider: 'test-mode', reference: expect.stringMatching(/^test_[0-9a-f]{16}$/) });
    const outbox = await t.server.store.webhookEvents.recent(appId, 5);
    expect(outbox.map((e) => [e.type, JSON.parse(e.data).id])).toContainEqual(['ENTITLEMENT_CREATE', bought.body.entitlement.id]);

    const mid = await counts();
    const twice = await t.req('POST', `/skus/${sword.id}/checkout`, { token: player });
    expect([twice.status, twice.body.code]).toEqual([400, 40074]);
    expect(await counts()).toEqual(mid);

    const tester = await t.req('POST', `/skus/${sword.id}/checkout`, { token: ownerWeb });
    expect(tester.body.entitlement).toMatchObject({ type: 4, user_id: ownerId });
    expect(tester.body.payment).toEqual({ provider: 'test-mode', reference: null });

    // A subscription, cancelled by its user; another user cannot cancel it.
    const sub = await t.req('POST', `/skus/${pass.id}/checkout`, { token: player });
    expect(sub.body.subscription).toMatchObject({ status: 0, sku_ids: [pass.id], renewal_sku_ids: [pass.id] });
    const nosy = await t.req('POST', `/users/@me/subscriptions/${sub.body.subscription.id}/cancel`, { token: ownerWeb });
    expect((await t.req('POST', `/users/@me/subscriptions/${sub.body.subscription.id}/cancel`, { token: game })).body.code).toBe(50001);
    expect([nosy.status, nosy.body.message]).toEqual([404, 'Unknown Subscription']);
    const cancel = await t.req('POST', `/users/@me/subscriptions/${sub.body.subscription.id}/cancel`, { token: player });
    expect(cancel.body).toMatchObject({ status: 2, renewal_sku_ids: [] });
    const mine = await t.req('GET', '/users/@me/subscriptions', { token: player });
    expect(mine.body).toEqual([cancel.body]);
    expect((await t.req('GET', '/users/@me/subscriptions', { token: ownerToken })).body).toEqual([]);

    // A bot cannot check out.
    expect((await t.req('POST', `/skus/${sword.id}/checkout`, { token: t.app.botToken, bot: true })).status).toBe(403);
  });

  it('goes through a payment provider when test mode is off, and a declined charge writes nothing', async () => {
    const charged: number[] = [];
    let approve = false;
    const provider: PaymentStep = {
      name: 'fake-provider',
      async charge(req) {
        charged.push(req.amount);
        return approve ? { ok: true, reference: 'ch_1' } : { ok: false, reason: 'card declined' };
      },
    };
    const commerce = new CommerceService(t.server.store, new CommerceEvents(t.server.store, new LocalEventBus()), undefined, provider);
    const sku = await commerce.createSku(t.app.id, { name: 'Gem', type: 'consumable', price: 250 });
    const buyer = await t.guest('Gem Buyer');
    const before = await counts();
    await expect(commerce.checkout.checkout(buyer.userId, sku.id)).rejects.toMatchObject({ status: 402, message: 'Payment declined: card declined' });
    expect(await counts()).toEqual(before);
    approve = true;
    const r = await commerce.checkout.checkout(buyer.userId, sku.id);
    expect(r).toMatchObject({ entitlement: { type: 1, sku_id: sku.id }, payment: { provider: 'fake-provider', reference: 'ch_1' } });
    // Already owned (not consumed): refused before charging again.
    await expect(commerce.checkout.checkout(buyer.userId, sku.id)).rejects.toMatchObject({ code: 40074 });
    expect(charged).toEqual([250, 250]);
  });
});
