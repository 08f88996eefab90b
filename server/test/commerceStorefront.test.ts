// The players' side of commerce over HTTP (issue 14; the web app's store page and checkout dialog
// use it): GET /applications/{id}/storefront, GET /skus/{id}, GET /users/@me/applications/{id}/
// entitlements. A game's token sees its own game, the first-party web app's every game, a bot or
// another game nothing (403 50001, or 10027 for a SKU as the checkout answers). And
// CommerceService.entitlementsOf, the `entitlements` of an interaction: the user's and the guild's,
// active only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { cleanupTempDirs, startTestServer, type TestServer, webToken as webTokenOf } from './harness.ts';

let t: TestServer;
let sword: string;
let potion: string;
let pass: string;
let webToken: string;
let webUser: string;

beforeAll(async () => {
  t = await startTestServer({ commerce: { scheduler: false } });
  sword = (await t.server.commerce.createSku(t.app.id, { name: 'Sword', type: 'durable', price: 499 })).id;
  potion = (await t.server.commerce.createSku(t.app.id, { name: 'Potion', type: 'consumable', price: 99 })).id;
  pass = (await t.server.commerce.createSku(t.app.id, { name: 'Pass', type: 'subscription', price: 999 })).id;
  // A token of the platform's own web app, as /app/session hands one to the page.
  webUser = (await t.guest('Web User')).userId;
  const firstParty = await t.server.store.applications.firstParty();
  webToken = await t.server.store.tokens.issue(webUser, firstParty.id, ['identify'], 3600);
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

describe('storefront routes', () => {
  it('a game\'s player reads its storefront, a SKU and their own entitlements; test mode shows', async () => {
    const player = await t.guest('Player');
    const front = await t.req('GET', `/applications/${t.app.id}/storefront`, { token: player.token });
    expect(front).toMatchObject({ status: 200, body: { id: t.app.id, name: 'Test Game', description: '', test_mode: false, tester: false } });
    await t.server.commerce.checkout.setTestMode(t.app.id, true);
    expect((await t.req('GET', `/applications/${t.app.id}/storefront`, { token: player.token })).body.test_mode).toBe(true);

    expect((await t.req('GET', `/skus/${sword}`, { token: player.token })).body).toEqual({ id: sword, type: 2, application_id: t.app.id, name: 'Sword', slug: 'sword', flags: 4, price: 499 });
    expect((await t.req('GET', `/users/@me/applications/${t.app.id}/entitlements`, { token: player.token })).body).toEqual([]);
    // The game's token does not buy: the person does, in the web app's checkout dialog.
    expect((await t.req('POST', `/skus/${sword}/checkout`, { token: player.token })).body.code).toBe(50001);
    const bought = await t.req('POST', `/skus/${sword}/checkout`, { token: await webTokenOf(t, player.userId) });
    expect(bought.status).toBe(200);
    const mine = await t.req('GET', `/users/@me/applications/${t.app.id}/entitlements`, { token: player.token });
    expect(mine.body).toEqual([bought.body.entitlement]);
    // Someone else's purchases are not listed.
    const other = await t.guest('Other');
    expect((await t.req('GET', `/users/@me/applications/${t.app.id}/entitlements`, { token: other.token })).body).toEqual([]);
  });

  it('the web app\'s token reads any game\'s; unknown ones answer their codes', async () => {
    const other = await t.server.createApplication({ name: 'Other Game' });
    const shield = (await t.server.commerce.createSku(other.id, { name: 'Shield', type: 'durable', price: 5 })).id;
    expect((await t.req('GET', `/applications/${other.id}/storefront`, { token: webToken })).body).toMatchObject({ id: other.id, name: 'Other Game', test_mode: false });
    expect((await t.req('GET', `/skus/${shield}`, { token: webToken })).body.name).toBe('Shield');
    expect((await t.req('GET', `/users/@me/applications/${other.id}/entitlements`, { token: webToken })).body).toEqual([]);
    const unknownApp = await t.req('GET', '/applications/123456789012345678/storefront', { token: webToken });
    expect([unknownApp.status, unknownApp.body.code]).toEqual([404, 10002]);
    const unknownSku = await t.req('GET', '/skus/123456789012345678', { token: webToken });
    expect([unknownSku.status, unknownSku.body.code]).toEqual([404, 10027]);
  });

  it('another game\'s player, a bot and no token are refused', async () => {
    const other = await t.server.createApplication({ name: 'Elsewhere' });
    const stranger = (await t.req('POST', '/partner-sdk/token', { body: { client_id: other.id, external_auth_type: 'DEVICE_ID', external_auth_token: 's'.repeat(32) } })).body.access_token as string;
    for (const path of [`/applications/${t.app.id}/storefront`, `/users/@me/applications/${t.app.id}/entitlements`]) {
      const r = await t.req('GET', path, { token: stranger });
      expect([path, r.status, r.body.code]).toEqual([path, 403, 50001]);
      const bot = await t.req('GET', path, { token: t.app.botToken, bot: true });
      expect([path, bot.status, bot.body.code]).toEqual([path, 403, 20001]);
      expect((await t.req('GET', path)).status).toBe(401);
    }
    // Another game's SKU reads as unknown, as in the checkout.
    const sku = await t.req('GET', `/skus/${sword}`, { token: stranger });
    expect([sku.status, sku.body.code]).toEqual([404, 10027]);
  });
});

describe('CommerceService.entitlementsOf (an interaction\'s entitlements)', () => {
  it('the user\'s and the guild\'s active entitlements, newest first; deleted, ended and consumed ones left out', async () => {
    const user = await t.guest('Invoker');
    const guild = (await guildServicesFor(t.server.store, undefined as never).guilds.createGuild(user.userId, { name: 'Shop Guild' })).id;
    const c = t.server.commerce;
    const durable = await c.createTestEntitlement(t.app.id, { skuId: sword, ownerId: user.userId, ownerType: 2 });
    const guildOwned = await c.createTestEntitlement(t.app.id, { skuId: pass, ownerId: guild, ownerType: 1 });
    const consumed = await c.createTestEntitlement(t.app.id, { skuId: potion, ownerId: user.userId, ownerType: 2 });
    await c.consume(t.app.id, consumed.id);
    const deleted = await c.createTestEntitlement(t.app.id, { skuId: potion, ownerId: user.userId, ownerType: 2 });
    await c.deleteTestEntitlement(t.app.id, deleted.id);
    // A subscription that ran out: its entitlement has ended.
    const sub = await c.purchase(t.app.id, user.userId, pass);
    await t.server.store.entitlements.setEndsAt(t.server.store.database.db, sub.entitlement.id, Date.now() - 1000);

    expect((await c.entitlementsOf(t.app.id, { userId: user.userId, guildId: guild })).map((e) => e.id)).toEqual([guildOwned.id, durable.id]);
    expect((await c.entitlementsOf(t.app.id, { userId: user.userId })).map((e) => e.id)).toEqual([durable.id]);
    expect(await c.entitlementsOf(t.app.id, { userId: user.userId, guildId: guild })).toContainEqual({ ...guildOwned });
    // Another application's entitlements never show.
    const other = await t.server.createApplication({ name: 'Third' });
    expect(await c.entitlementsOf(other.id, { userId: user.userId, guildId: guild })).toEqual([]);
  });
});
