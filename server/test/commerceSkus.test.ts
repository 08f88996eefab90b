// SKUs (issue 14): the admin CLI `skus create`, GET /applications/{id}/skus in the public shape,
// and the developer portal's SKUs section, each with its refusals (nothing written).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, tempDir, type TestServer } from './harness.ts';
import { PageSession } from './oauthHelpers.ts';

const BIN = fileURLToPath(new URL('../bin/social-layer.js', import.meta.url));
const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

describe('skus create (admin CLI)', () => {
  it('creates SKUs of each type in the public shape and refuses bad input with exit 2', () => {
    const data = tempDir();
    const app = JSON.parse(cli('apps', 'create', '--name', 'Shop', '--data', data).stdout) as { id: string };
    const sword = cli('skus', 'create', '--app', app.id, '--name', 'Iron Sword', '--type', 'durable', '--price', '499', '--data', data);
    expect(sword.status).toBe(0);
    expect(JSON.parse(sword.stdout)).toMatchObject({ type: 2, application_id: app.id, name: 'Iron Sword', slug: 'iron-sword', flags: 4, price: 499 });
    const again = JSON.parse(cli('skus', 'create', '--app', app.id, '--name', 'Iron Sword', '--type', 'consumable', '--price', '1', '--data', data).stdout);
    expect(again).toMatchObject({ type: 3, slug: 'iron-sword-2' });
    const sub = JSON.parse(cli('skus', 'create', '--app', app.id, '--name', 'Gold Pass', '--type', 'subscription', '--price', '999', '--period', '7', '--data', data).stdout);
    expect(sub).toMatchObject({ type: 5, flags: 4 | 256, billing_period_days: 7 });

    for (const [args, message] of [
      [['--type', 'rental', '--price', '1'], /--type must be one of durable, consumable, subscription/],
      [['--type', 'durable', '--price', '4.99'], /--price must be a whole number of cents/],
      [['--type', 'durable', '--price', '1', '--period', '7'], /--period is for subscription SKUs only/],
    ] as const) {
      const r = cli('skus', 'create', '--app', app.id, '--name', 'Bad', ...args, '--data', data);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    const unknown = cli('skus', 'create', '--app', '123', '--name', 'X', '--type', 'durable', '--price', '1', '--data', data);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown application 123');
    const tooLong = cli('skus', 'create', '--app', app.id, '--name', 'x'.repeat(101), '--type', 'durable', '--price', '1', '--data', data);
    expect(tooLong.status).toBe(2);
    expect(tooLong.stderr).toContain('BASE_TYPE_BAD_LENGTH');
  }, 60_000);
});

describe('GET /applications/{id}/skus', () => {
  it('lists the application\'s SKUs to its bot, those on sale to its players; another application\'s bot and players are refused', async () => {
    const a = await t.server.commerce.createSku(t.app.id, { name: 'Potion', type: 'consumable', price: 99 });
    const b = await t.server.commerce.createSku(t.app.id, { name: 'Monthly', type: 'subscription', price: 500 });
    const list = await t.req('GET', `/applications/${t.app.id}/skus`, { token: t.app.botToken, bot: true });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      { id: a.id, type: 3, application_id: t.app.id, name: 'Potion', slug: 'potion', flags: 4, price: 99 },
      { id: b.id, type: 5, application_id: t.app.id, name: 'Monthly', slug: 'monthly', flags: 260, price: 500, billing_period_days: 30 },
      // The subscription's system-made SUBSCRIPTION_GROUP: same name and slug, never on sale.
      { id: expect.stringMatching(/^\d+$/), type: 6, application_id: t.app.id, name: 'Monthly', slug: 'monthly', flags: 256, price: 500 },
    ]);
    const group = list.body[2].id as string;
    expect(BigInt(group) > BigInt(b.id)).toBe(true);
    const other = await t.server.createApplication({ name: 'Other' });
    const refused = await t.req('GET', `/applications/${t.app.id}/skus`, { token: other.botToken, bot: true });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe(50001);
    // A player's token of the game sees the SKUs on sale; of another game, nothing (50001).
    await t.server.commerce.updateSku(t.app.id, a.id, { available: false });
    const guest = await t.guest();
    expect((await t.req('GET', `/applications/${t.app.id}/skus`, { token: guest.token })).body.map((s: { id: string }) => s.id)).toEqual([b.id]);
    expect((await t.req('GET', `/applications/${t.app.id}/skus`, { token: t.app.botToken, bot: true })).body.length).toBe(3);
    // A group is not bought, edited, or granted as a test entitlement on its own: 50057.
    await expect(t.server.commerce.purchase(t.app.id, guest.userId, group)).rejects.toMatchObject({ status: 400, code: 50057 });
    await expect(t.server.commerce.updateSku(t.app.id, group, { name: 'X' })).rejects.toMatchObject({ status: 400, code: 50057 });
    const testGrant = await t.req('POST', `/applications/${t.app.id}/entitlements`, { token: t.app.botToken, bot: true, body: { sku_id: group, owner_id: guest.userId, owner_type: 2 } });
    expect([testGrant.status, testGrant.body.code]).toEqual([400, 50057]);
    expect((await t.req('GET', `/applications/${t.app.id}/entitlements`, { token: t.app.botToken, bot: true })).body).toEqual([]);
    const otherGuest = (await t.req('POST', '/partner-sdk/token', { body: { client_id: other.id, external_auth_type: 'DEVICE_ID', external_auth_token: 'o'.repeat(32) } })).body.access_token;
    const crossGame = await t.req('GET', `/applications/${t.app.id}/skus`, { token: otherGuest });
    expect([crossGame.status, crossGame.body.code]).toEqual([403, 50001]);
    expect((await t.req('GET', `/applications/${t.app.id}/skus`)).status).toBe(401);
    expect((await t.req('GET', `/applications/${other.id}/skus`, { token: other.botToken, bot: true })).body).toEqual([]);
  });
});

describe('developer portal: SKUs section', () => {
  it('creates a SKU from the form, lists it, edits it, and shows field errors without saving', async () => {
    const dev = new PageSession(t.server.url);
    await dev.signUp('sku_dev');
    const csrf = PageSession.csrf((await dev.get('/developers')).text);
    const created = await dev.submit('/developers/applications', { csrf, name: 'Store Game' });
    const appId = /<code class="copy" id="client-id">([^<]+)<\/code>/.exec(created.text)![1]!;
    const page = await dev.get(`/developers/applications/${appId}`);
    expect(page.text).toContain('id="create-sku"');

    const saved = await dev.post(`/developers/applications/${appId}/skus`, { csrf, name: 'Season Pass', type: 'subscription', price: '1299', billing_period_days: '90' });
    expect(saved.status).toBe(303);
    const skus = await t.server.commerce.listSkus(appId);
    expect(skus).toEqual([expect.objectContaining({ name: 'Season Pass', type: 5, price: 1299, billing_period_days: 90 }), expect.objectContaining({ name: 'Season Pass', type: 6, slug: 'season-pass', price: 1299 })]);
    const list = await dev.get(`/developers/applications/${appId}/skus`);
    expect(list.status).toBe(200);
    expect(list.text).toContain(`data-sku-id="${skus[0]!.id}"`);
    // The group follows its subscription: not listed for editing.
    expect(list.text).not.toContain(`data-sku-id="${skus[1]!.id}"`);
    expect(list.text).toContain('12.99');
    expect(list.text).toContain('Test mode');
    expect(list.text).toContain(`href="/app/store/${appId}"`);

    const bad = await dev.post(`/developers/applications/${appId}/skus`, { csrf, name: '', type: 'durable', price: 'ten' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/name: Must be between 1 and 100 in length/);
    expect(bad.text).toMatch(/price: Price must be a whole number of cents/);
    expect((await t.server.commerce.listSkus(appId)).length).toBe(2);

    // Edit: name, price and availability; an unavailable SKU cannot be bought (50057).
    const id = skus[0]!.id;
    const edited = await dev.post(`/developers/applications/${appId}/skus`, { csrf, action: 'update', sku_id: id, name: 'Season Pass II', price: '1499' });
    expect(edited.status).toBe(303);
    expect((await t.server.commerce.listSkus(appId))[0]).toMatchObject({ id, name: 'Season Pass II', price: 1499, flags: 256, slug: 'season-pass', type: 5 });
    // Its group takes the new name and price, and stays off sale.
    expect((await t.server.commerce.listSkus(appId))[1]).toMatchObject({ name: 'Season Pass II', price: 1499, flags: 256, slug: 'season-pass', type: 6 });
    const buyer = (await t.server.store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'sku-buyer', 'Buyer')).user.id;
    await expect(t.server.commerce.purchase(appId, buyer, id)).rejects.toMatchObject({ status: 400, code: 50057 });
    const listed = (await dev.get(`/developers/applications/${appId}/skus`)).text;
    expect(listed).toContain('value="Season Pass II"');
    expect(listed).toContain('name="available" value="1">');
    expect(listed).not.toContain('name="available" value="1" checked');
    await dev.post(`/developers/applications/${appId}/skus`, { csrf, action: 'update', sku_id: id, name: 'Season Pass II', price: '1499', available: '1' });
    expect((await t.server.commerce.listSkus(appId))[0]!.flags).toBe(260);
    const badEdit = await dev.post(`/developers/applications/${appId}/skus`, { csrf, action: 'update', sku_id: id, name: '', price: '5' });
    expect(badEdit.status).toBe(400);
    expect((await t.server.commerce.listSkus(appId))[0]).toMatchObject({ name: 'Season Pass II', price: 1499 });
    const otherApps = await dev.post(`/developers/applications/${appId}/skus`, { csrf, action: 'update', sku_id: t.app.id, name: 'X', price: '5' });
    expect(otherApps.status).toBe(400);
    expect(otherApps.text).toContain('Unknown SKU');

    // Another developer's application: no such page, and the section refuses too.
    const other = new PageSession(t.server.url);
    await other.signUp('sku_other');
    expect((await other.get(`/developers/applications/${appId}/skus`)).status).toBe(404);
  });
});
