import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/storage/database.ts';
import { Store } from '../src/storage/Store.ts';
import { m0015_subscription_groups } from '../src/storage/migrations/0015_subscription_groups.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas } from './harness.ts';

afterAll(async () => {
  cleanupTempDirs();
  await dropTestSchemas();
});

/** Contract of the commerce repositories (migration 0009_commerce), on SQLite and PostgreSQL. */
describe.each(databaseConfigs())('commerce storage on $name', ({ config }) => {
  let store: Store;
  let appId: string;
  let userId: string;

  beforeEach(async () => {
    store = new Store(await openDatabase(config()));
    appId = (await store.applications.create('Shop')).id;
    userId = (await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'buyer', 'Buyer')).user.id;
  });
  afterEach(async () => {
    await store.close();
  });

  const sku = (name: string, type = 2) => store.skus.create({ application_id: appId, type, name, slug: name.toLowerCase(), flags: 4, price: 199, billing_period_days: type === 5 ? 30 : null });

  it('stores SKUs per application with a unique slug', async () => {
    const a = await sku('Sword');
    expect(await store.skus.get(a.id)).toMatchObject({ id: a.id, application_id: appId, type: 2, name: 'Sword', slug: 'sword', flags: 4, price: 199, billing_period_days: null });
    expect(await store.skus.slugTaken(appId, 'sword')).toBe(true);
    await expect(sku('Sword')).rejects.toThrow();
    const other = (await store.applications.create('Other')).id;
    expect((await store.skus.ofApplication(other)).length).toBe(0);
    expect((await store.skus.ofApplication(appId)).map((s) => s.id)).toEqual([a.id]);
  });

  it('a SUBSCRIPTION_GROUP shares its subscription\'s slug (migration 0015); slugs stay unique otherwise; the migration gives older subscriptions their group', async () => {
    const sub = await sku('Pass', 5);
    const group = await store.skus.create({ application_id: appId, type: 6, name: 'Pass', slug: 'pass', flags: 256, price: 199, billing_period_days: null });
    expect((await store.skus.groupOf(sub))?.id).toBe(group.id);
    await expect(store.skus.create({ application_id: appId, type: 6, name: 'Pass', slug: 'pass', flags: 256, price: 199, billing_period_days: null })).rejects.toThrow();
    await expect(sku('Pass')).rejects.toThrow();
    // A subscription SKU made before 0015 had no group: running the migration adds one, once.
    const old = await sku('Old', 5);
    expect(await store.skus.groupOf(old)).toBeUndefined();
    await m0015_subscription_groups.up(store.database.db);
    const made = await store.skus.groupOf(old);
    expect(made).toMatchObject({ type: 6, name: 'Old', slug: 'old', flags: 0, price: 199, billing_period_days: null });
    await m0015_subscription_groups.up(store.database.db);
    expect((await store.skus.ofApplication(appId)).filter((s) => s.type === 6).map((s) => s.slug).sort()).toEqual(['old', 'pass']);
  });

  it('lists entitlements by the public filters, newest first, and pages by snowflake', async () => {
    const sword = await sku('Sword');
    const potion = await sku('Potion', 3);
    const now = 1_700_000_000_000;
    const db = store.database.db;
    const e1 = await store.entitlements.create(db, { application_id: appId, sku_id: sword.id, user_id: userId, guild_id: null, type: 1, starts_at: now, ends_at: null, test: 0, subscription_id: null }, now);
    const e2 = await store.entitlements.create(db, { application_id: appId, sku_id: potion.id, user_id: userId, guild_id: null, type: 1, starts_at: now, ends_at: now + 10, test: 0, subscription_id: null }, now);
    const e3 = await store.entitlements.create(db, { application_id: appId, sku_id: potion.id, user_id: null, guild_id: '123', type: 4, starts_at: null, ends_at: null, test: 1, subscription_id: null }, now);
    const base = { limit: 100, now: now + 100 };
    expect((await store.entitlements.list(appId, base)).map((e) => e.id)).toEqual([e3.id, e2.id, e1.id]);
    expect((await store.entitlements.list(appId, { ...base, userId })).map((e) => e.id)).toEqual([e2.id, e1.id]);
    expect((await store.entitlements.list(appId, { ...base, guildId: '123' })).map((e) => e.id)).toEqual([e3.id]);
    expect((await store.entitlements.list(appId, { ...base, skuIds: [sword.id] })).map((e) => e.id)).toEqual([e1.id]);
    expect((await store.entitlements.list(appId, { ...base, excludeEnded: true })).map((e) => e.id)).toEqual([e3.id, e1.id]);
    expect((await store.entitlements.list(appId, { ...base, after: e1.id })).map((e) => e.id)).toEqual([e2.id, e3.id]);
    expect((await store.entitlements.list(appId, { ...base, before: e3.id, limit: 1 })).map((e) => e.id)).toEqual([e2.id]);

    expect(await store.entitlements.consume(db, e2.id)).toBe(true);
    expect(await store.entitlements.consume(db, e2.id)).toBe(false);
    expect((await store.entitlements.get(e2.id))?.consumed).toBe(1);
    expect(await store.entitlements.markDeleted(db, e3.id)).toBe(true);
    expect(await store.entitlements.markDeleted(db, e3.id)).toBe(false);
    expect((await store.entitlements.list(appId, { ...base, excludeDeleted: true })).map((e) => e.id)).toEqual([e2.id, e1.id]);
  });

  it('stores subscriptions, finds the due ones, and claims one at a time', async () => {
    const plan = await sku('Plan', 5);
    const id = store.subscriptions.nextId();
    await store.subscriptions.insert(store.database.db, {
      id, application_id: appId, user_id: userId, sku_id: plan.id, renewal_sku_ids: JSON.stringify([plan.id]), status: 0, canceled_at: null,
      current_period_start: 1000, current_period_end: 2000, created_at: 1000, updated_at: 1000,
    });
    expect(await store.subscriptions.due(1999, [0, 2], 10)).toEqual([]);
    expect(await store.subscriptions.due(2000, [0, 2], 10)).toEqual([id]);
    expect(await store.subscriptions.due(2000, [2], 10)).toEqual([]);
    expect((await store.subscriptions.list(plan.id, { userId, limit: 10 })).map((s) => s.id)).toEqual([id]);
    const row = await store.subscriptions.get(id);
    expect(Number(row?.current_period_end)).toBe(2000);

    // Two transactions at once: on PostgreSQL the second cannot claim what the first holds.
    if (store.subscriptions.dialect === 'postgres') {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let firstClaimed!: () => void;
      const claimed = new Promise<void>((r) => (firstClaimed = r));
      const first = store.database.db.transaction().execute(async (tx) => {
        expect(await store.subscriptions.claim(tx, id)).toBeDefined();
        firstClaimed();
        await held;
      });
      await claimed;
      const second = await store.database.db.transaction().execute((tx) => store.subscriptions.claim(tx, id));
      expect(second).toBeUndefined();
      release();
      await first;
      expect(await store.database.db.transaction().execute((tx) => store.subscriptions.claim(tx, id))).toBeDefined();
    }
  });
});
