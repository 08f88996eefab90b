// Entitlements and subscriptions over HTTP (issue 14): the public list filters, get one, test
// entitlements create/delete, consume with its refusals (nothing written), subscriptions list/get.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, keepWebhookEvents, startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
let bot: { token: string; bot: true };
let durable: string;
let consumable: string;
let plan: string;
let alice: { token: string; userId: string };
let now = Date.UTC(2026, 0, 1);

beforeAll(async () => {
  t = await startTestServer({ commerce: { clock: { now: () => now }, scheduler: false } });
  await keepWebhookEvents(t);
  bot = { token: t.app.botToken, bot: true };
  durable = (await t.server.commerce.createSku(t.app.id, { name: 'Sword', type: 'durable', price: 100 })).id;
  consumable = (await t.server.commerce.createSku(t.app.id, { name: 'Potion', type: 'consumable', price: 10 })).id;
  plan = (await t.server.commerce.createSku(t.app.id, { name: 'Plan', type: 'subscription', price: 500, billingPeriodDays: 30 })).id;
  alice = await t.guest('Alice');
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

/** Rows that a refusal must leave as they were. */
async function snapshot() {
  const db = t.server.store.database.db;
  return {
    entitlements: await db.selectFrom('entitlements').selectAll().orderBy('id').execute(),
    events: (await db.selectFrom('webhook_events').select(['id', 'type']).orderBy('id').execute()).length,
  };
}

describe('test entitlements, get, list and consume', () => {
  it('creates a test entitlement for a user and a guild owner, with ENTITLEMENT_CREATE in the webhook outbox', async () => {
    const created = await t.req('POST', `/applications/${t.app.id}/entitlements`, { ...bot, body: { sku_id: durable, owner_id: alice.userId, owner_type: 2 } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.any(String), sku_id: durable, application_id: t.app.id, user_id: alice.userId, type: 4, deleted: false, starts_at: null, ends_at: null, consumed: false });
    const got = await t.req('GET', `/applications/${t.app.id}/entitlements/${created.body.id}`, bot);
    expect(got.body).toEqual(created.body);
    const outbox = await t.server.store.webhookEvents.recent(t.app.id, 10);
    expect(outbox.find((e) => e.type === 'ENTITLEMENT_CREATE' && JSON.parse(e.data).id === created.body.id)).toBeDefined();
  });

  it('refuses bad test entitlements with the public codes and writes nothing', async () => {
    const before = await snapshot();
    const other = await t.server.createApplication({ name: 'Other Shop' });
    const otherSku = (await t.server.commerce.createSku(other.id, { name: 'Theirs', type: 'durable', price: 1 })).id;
    const cases: [unknown, number, number][] = [
      [{ sku_id: durable, owner_id: '123456789012345678', owner_type: 2 }, 404, 10013],
      [{ sku_id: durable, owner_id: '123456789012345678', owner_type: 1 }, 404, 10004],
      [{ sku_id: '123456789012345678', owner_id: alice.userId, owner_type: 2 }, 404, 10027],
      [{ sku_id: otherSku, owner_id: alice.userId, owner_type: 2 }, 404, 10027],
      [{ sku_id: durable, owner_id: alice.userId, owner_type: 3 }, 400, 50035],
      [{ sku_id: 'abc', owner_id: alice.userId, owner_type: 2 }, 400, 50035],
    ];
    for (const [body, status, code] of cases) {
      const r = await t.req('POST', `/applications/${t.app.id}/entitlements`, { ...bot, body });
      expect([r.status, r.body.code], JSON.stringify(body)).toEqual([status, code]);
    }
    // Another application's bot may not write to (or read) this application's entitlements.
    const foreign = await t.req('POST', `/applications/${t.app.id}/entitlements`, { token: other.botToken, bot: true, body: { sku_id: durable, owner_id: alice.userId, owner_type: 2 } });
    expect([foreign.status, foreign.body.code]).toEqual([403, 50001]);
    const foreignList = await t.req('GET', `/applications/${t.app.id}/entitlements`, { token: other.botToken, bot: true });
    expect([foreignList.status, foreignList.body.code]).toEqual([403, 50001]);
    expect(await snapshot()).toEqual(before);
  });

  it('consumes a consumable once; twice, a durable one, a deleted or unknown one are refused and nothing changes', async () => {
    const bought = await t.server.commerce.purchase(t.app.id, alice.userId, consumable);
    expect(bought.entitlement).toMatchObject({ type: 1, consumed: false, starts_at: new Date(now).toISOString(), ends_at: null });
    const id = bought.entitlement.id;
    const ok = await t.req('POST', `/applications/${t.app.id}/entitlements/${id}/consume`, bot);
    expect(ok.status).toBe(204);
    expect((await t.req('GET', `/applications/${t.app.id}/entitlements/${id}`, bot)).body.consumed).toBe(true);

    const carol = await t.guest('Carol');
    const sword = await t.server.commerce.purchase(t.app.id, carol.userId, durable);
    const before = await snapshot();
    const twice = await t.req('POST', `/applications/${t.app.id}/entitlements/${id}/consume`, bot);
    expect([twice.status, twice.body.code, twice.body.message]).toEqual([400, 0, 'This entitlement has already been consumed']);
    const durableOne = await t.req('POST', `/applications/${t.app.id}/entitlements/${sword.entitlement.id}/consume`, bot);
    expect([durableOne.status, durableOne.body.code]).toEqual([400, 40018]);
    const unknown = await t.req('POST', `/applications/${t.app.id}/entitlements/123456789012345678/consume`, bot);
    expect([unknown.status, unknown.body.code]).toEqual([404, 10029]);
    const notAnId = await t.req('POST', `/applications/${t.app.id}/entitlements/nope/consume`, bot);
    expect([notAnId.status, notAnId.body.code]).toEqual([404, 10029]);
    // Only test entitlements may be deleted.
    const purchased = await t.req('DELETE', `/applications/${t.app.id}/entitlements/${sword.entitlement.id}`, bot);
    expect([purchased.status, purchased.body.code]).toEqual([400, 40019]);
    // Buying a durable SKU the user owns is refused.
    await expect(t.server.commerce.purchase(t.app.id, carol.userId, durable)).rejects.toMatchObject({ status: 400, code: 40074 });
    expect(await snapshot()).toEqual(before);

    // Two consumes racing on a new purchase: exactly one succeeds.
    const potion = await t.server.commerce.purchase(t.app.id, alice.userId, consumable);
    const race = await Promise.all([1, 2, 3].map(() => t.req('POST', `/applications/${t.app.id}/entitlements/${potion.entitlement.id}/consume`, bot)));
    expect(race.map((r) => r.status).sort()).toEqual([204, 400, 400]);
  });

  it('deletes a test entitlement; the list leaves deleted ones out unless exclude_deleted=false', async () => {
    const test = (await t.req('POST', `/applications/${t.app.id}/entitlements`, { ...bot, body: { sku_id: consumable, owner_id: alice.userId, owner_type: 2 } })).body;
    expect((await t.req('DELETE', `/applications/${t.app.id}/entitlements/${test.id}`, bot)).status).toBe(204);
    const again = await t.req('DELETE', `/applications/${t.app.id}/entitlements/${test.id}`, bot);
    expect([again.status, again.body.code]).toEqual([404, 10029]);
    const list = (await t.req('GET', `/applications/${t.app.id}/entitlements?user_id=${alice.userId}`, bot)).body as { id: string }[];
    expect(list.map((e) => e.id)).not.toContain(test.id);
    const withDeleted = (await t.req('GET', `/applications/${t.app.id}/entitlements?user_id=${alice.userId}&exclude_deleted=false`, bot)).body as { id: string; deleted: boolean }[];
    expect(withDeleted.find((e) => e.id === test.id)?.deleted).toBe(true);
  });

  it('filters by user_id, sku_ids, guild_id, exclude_ended and pages with before/after/limit', async () => {
    const bob = await t.guest('Bob');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await t.req('POST', `/applications/${t.app.id}/entitlements`, { ...bot, body: { sku_id: i === 2 ? durable : consumable, owner_id: bob.userId, owner_type: 2 } })).body.id);
    const q = (s: string) => t.req('GET', `/applications/${t.app.id}/entitlements?user_id=${bob.userId}${s}`, bot).then((r) => (r.body as { id: string }[]).map((e) => e.id));
    expect(await q('')).toEqual([...ids].reverse());
    expect(await q(`&sku_ids=${durable}`)).toEqual([ids[2]]);
    expect(await q(`&sku_ids=${durable},${consumable}`)).toEqual([...ids].reverse());
    expect(await q(`&after=${ids[0]}`)).toEqual([ids[1], ids[2]]);
    expect(await q(`&before=${ids[2]}&limit=1`)).toEqual([ids[1]]);
    expect(await q('&exclude_ended=true')).toEqual([...ids].reverse());
    const bad = await t.req('GET', `/applications/${t.app.id}/entitlements?limit=101&sku_ids=x&exclude_ended=maybe`, bot);
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['exclude_ended', 'limit', 'sku_ids']);
    const guild = await t.req('GET', `/applications/${t.app.id}/entitlements?guild_id=123456789012345678`, bot);
    expect(guild.body).toEqual([]);
  });
});

describe('subscriptions', () => {
  it('lists a SKU\'s subscriptions and gets one with the public fields', async () => {
    const bought = await t.server.commerce.purchase(t.app.id, alice.userId, plan);
    const sub = bought.subscription!;
    const expected = {
      id: sub.id,
      user_id: alice.userId,
      sku_ids: [plan],
      entitlement_ids: [bought.entitlement.id],
      renewal_sku_ids: [plan],
      current_period_start: new Date(now).toISOString(),
      current_period_end: new Date(now + 30 * 86_400_000).toISOString(),
      status: 0,
      canceled_at: null,
    };
    expect((await t.req('GET', `/skus/${plan}/subscriptions/${sub.id}`, bot)).body).toEqual(expected);
    expect((await t.req('GET', `/skus/${plan}/subscriptions?user_id=${alice.userId}`, bot)).body).toEqual([expected]);
    expect(bought.entitlement).toMatchObject({ type: 8, ends_at: null, subscription_id: sub.id });

    now += 1000;
    const canceled = await t.server.commerce.cancelSubscription(alice.userId, sub.id);
    expect(canceled).toMatchObject({ status: 2, canceled_at: new Date(now).toISOString(), renewal_sku_ids: [] });
    await expect(t.server.commerce.cancelSubscription(alice.userId, sub.id)).rejects.toMatchObject({ status: 400 });

    const other = await t.server.createApplication({ name: 'Nosy' });
    const nosy = await t.req('GET', `/skus/${plan}/subscriptions/${sub.id}`, { token: other.botToken, bot: true });
    expect([nosy.status, nosy.body.code]).toEqual([404, 10027]);
    const unknown = await t.req('GET', `/skus/${plan}/subscriptions/123456789012345678`, bot);
    expect([unknown.status, unknown.body.message]).toEqual([404, 'Unknown Subscription']);
    expect((await t.req('GET', `/skus/${durable}/subscriptions/${sub.id}`, bot)).status).toBe(404);
  });
});
