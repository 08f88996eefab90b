// The subscription state machine of the spec (issue 14) with an injected clock, on SQLite and
// PostgreSQL: buy, renew twice (no entitlement events), cancel, run out; the exact dispatches and
// outbox rows at each step. Then the scheduler killed mid-run (inside a transaction, and after a
// commit) and restarted on a fresh store repeats nothing and misses nothing, and two schedulers
// running at once make each transition once. Deleting a test-mode subscription (through Delete Test
// Entitlement) sends ENTITLEMENT_DELETE then SUBSCRIPTION_DELETE.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommerceEvents, CommerceService, SubscriptionScheduler } from '../src/commerce/index.ts';
import { LocalEventBus, userTopic } from '../src/events/EventBus.ts';
import { type DatabaseConfig, openDatabase } from '../src/storage/database.ts';
import { Store } from '../src/storage/Store.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas } from './harness.ts';

afterAll(async () => {
  cleanupTempDirs();
  await dropTestSchemas();
});

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const P = 30 * DAY;
const iso = (ms: number) => new Date(ms).toISOString();

describe.each(databaseConfigs())('subscription state machine on $name', ({ name, config: makeConfig }) => {
  let config: DatabaseConfig;
  let store: Store;
  let bus: LocalEventBus;
  let now: number;
  const clock = { now: () => now };
  let commerce: CommerceService;
  let appId: string;
  let planId: string;
  let dispatches: { t: string; d: any }[];
  const stores: Store[] = [];

  const open = async () => {
    const s = new Store(await openDatabase(config));
    stores.push(s);
    return s;
  };
  const scheduler = (s: Store, hooks?: NonNullable<ConstructorParameters<typeof SubscriptionScheduler>[5]>['hooks']) => {
    const events = new CommerceEvents(s, bus);
    return new SubscriptionScheduler(s, new CommerceService(s, events, clock).machine, events, clock, null, hooks ? { hooks } : {});
  };
  const buyer = async (name: string) => (await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', name, name)).user.id;
  const take = () => dispatches.splice(0);
  const outbox = async () => (await store.database.db.selectFrom('webhook_events').select(['type', 'data']).where('application_id', '=', appId).orderBy('id').execute()).map((e) => ({ type: e.type, data: JSON.parse(e.data) }));

  beforeEach(async () => {
    config = makeConfig();
    store = await open();
    bus = new LocalEventBus();
    now = T0;
    commerce = new CommerceService(store, new CommerceEvents(store, bus), clock);
    const app = await store.applications.create('Subscriptions');
    appId = app.id;
    // A webhook switched off: its events are kept (as skipped) for the outbox checks below; an
    // application with no webhook records none.
    await store.webhookEvents.saveSettings(appId, { url: null, status: 1, types: [] });
    planId = (await commerce.createSku(appId, { name: 'Plan', type: 'subscription', price: 500, billingPeriodDays: 30 })).id;
    dispatches = [];
    bus.subscribe(userTopic(appId, app.botUserId), (d) => dispatches.push({ t: d.t, d: JSON.parse(d.json) }));
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });

  it('buy, renew twice, cancel, run out: exact events and fields at each step', async () => {
    const user = await buyer('alice');
    const transitions: string[] = [];
    commerce.machine.onStateChange = (_id, from, to) => transitions.push(`${from}->${to}`);
    const sched = new SubscriptionScheduler(store, commerce.machine, new CommerceEvents(store, bus), clock, null);

    // Purchase: entitlement active, ends_at null, type PURCHASE (1); ENTITLEMENT_CREATE and SUBSCRIPTION_CREATE.
    const bought = await commerce.purchase(appId, user, planId);
    const sub = bought.subscription!;
    const ent = { id: bought.entitlement.id, sku_id: planId, application_id: appId, user_id: user, type: 8, deleted: false, starts_at: iso(T0), ends_at: null, consumed: false, subscription_id: sub.id };
    const subAt = (start: number, status: number, extra: object = {}) => ({
      id: sub.id, user_id: user, sku_ids: [planId], entitlement_ids: [ent.id], renewal_sku_ids: [planId],
      current_period_start: iso(start), current_period_end: iso(start + P), status, canceled_at: null, ...extra,
    });
    expect(take()).toEqual([
      { t: 'ENTITLEMENT_CREATE', d: ent },
      { t: 'SUBSCRIPTION_CREATE', d: subAt(T0, 0) },
    ]);
    expect(await outbox()).toEqual([{ type: 'ENTITLEMENT_CREATE', data: ent }]);

    // Not due yet: nothing happens.
    now = T0 + P - 1;
    expect(await sched.tick()).toBe(0);
    expect(take()).toEqual([]);

    // Two renewals: SUBSCRIPTION_UPDATE only, the entitlement untouched.
    now = T0 + P;
    expect(await sched.tick()).toBe(1);
    expect(take()).toEqual([{ t: 'SUBSCRIPTION_UPDATE', d: subAt(T0 + P, 0) }]);
    now = T0 + 2 * P + 5;
    expect(await sched.tick()).toBe(1);
    expect(take()).toEqual([{ t: 'SUBSCRIPTION_UPDATE', d: subAt(T0 + 2 * P, 0) }]);
    expect(await commerce.getEntitlement(appId, ent.id)).toEqual(ent);

    // Cancel: ENDING with canceled_at, no renewal SKUs; SUBSCRIPTION_UPDATE; entitlement unchanged.
    now = T0 + 2 * P + 10;
    await commerce.cancelSubscription(user, sub.id);
    expect(take()).toEqual([{ t: 'SUBSCRIPTION_UPDATE', d: subAt(T0 + 2 * P, 2, { canceled_at: iso(now), renewal_sku_ids: [] }) }]);
    expect(await commerce.getEntitlement(appId, ent.id)).toEqual(ent);
    expect(await sched.tick()).toBe(0);

    // The period runs out: ends_at = the period's end, ENTITLEMENT_UPDATE; subscription INACTIVE.
    const end = T0 + 3 * P;
    now = end + 1234;
    expect(await sched.tick()).toBe(1);
    expect(take()).toEqual([
      { t: 'ENTITLEMENT_UPDATE', d: { ...ent, ends_at: iso(end) } },
      { t: 'SUBSCRIPTION_UPDATE', d: subAt(T0 + 2 * P, 1, { canceled_at: iso(T0 + 2 * P + 10), renewal_sku_ids: [] }) },
    ]);
    now = end + 10 * P;
    expect(await sched.tick()).toBe(0);
    expect(take()).toEqual([]);
    expect(transitions).toEqual(['none->0', '0->0', '0->0', '0->2', '2->1']);
    // The webhook outbox has the purchase and the end (public webhook types ENTITLEMENT_CREATE and
    // ENTITLEMENT_UPDATE, protocols.md 7; sent only to receivers subscribed to them); renewals add nothing.
    expect((await outbox()).map((e) => e.type)).toEqual(['ENTITLEMENT_CREATE', 'ENTITLEMENT_UPDATE']);
    expect((await outbox())[1]!.data).toEqual({ ...ent, ends_at: iso(end) });
    // The ended entitlement is left out by exclude_ended, kept otherwise.
    expect(await commerce.listEntitlements(appId, { userId: user, excludeEnded: true })).toEqual([]);
    expect((await commerce.listEntitlements(appId, { userId: user })).map((e) => e.ends_at)).toEqual([iso(end)]);
    // Cancelling an inactive subscription is refused and changes nothing.
    await expect(commerce.cancelSubscription(user, sub.id)).rejects.toMatchObject({ status: 400 });
    expect(take()).toEqual([]);
  });

  it('delete (a test-mode subscription, through Delete Test Entitlement): ENTITLEMENT_DELETE then SUBSCRIPTION_DELETE, the scheduler then leaves it alone', async () => {
    const user = await buyer('tester');
    const transitions: string[] = [];
    commerce.machine.onStateChange = (_id, from, to) => transitions.push(`${from}->${to}`);
    const bought = await commerce.purchase(appId, user, planId, { testMode: true });
    const sub = bought.subscription!;
    now = T0 + 10;
    await commerce.cancelSubscription(user, sub.id);
    take();
    now = T0 + 20;
    await commerce.deleteTestEntitlement(appId, bought.entitlement.id);
    expect(take()).toEqual([
      { t: 'ENTITLEMENT_DELETE', d: { ...bought.entitlement, type: 4, deleted: true } },
      { t: 'SUBSCRIPTION_DELETE', d: { ...sub, status: 2, canceled_at: iso(T0 + 10), renewal_sku_ids: [] } },
    ]);
    expect(transitions).toEqual(['none->0', '0->2', '2->deleted']);
    expect(await store.subscriptions.get(sub.id)).toBeUndefined();
    now = T0 + 5 * P;
    const sched = new SubscriptionScheduler(store, commerce.machine, new CommerceEvents(store, bus), clock, null);
    expect(await sched.tick()).toBe(0);
    expect(take()).toEqual([]);
    // Deleted once: again is 10029 and nothing is sent. The outbox has the purchase and the delete.
    await expect(commerce.deleteTestEntitlement(appId, bought.entitlement.id)).rejects.toMatchObject({ status: 404, code: 10029 });
    expect(take()).toEqual([]);
    expect(await outbox()).toEqual([
      { type: 'ENTITLEMENT_CREATE', data: { ...bought.entitlement, type: 4 } },
      { type: 'ENTITLEMENT_DELETE', data: { ...bought.entitlement, type: 4, deleted: true } },
    ]);
  });

  // PostgreSQL only: SQLite runs one transaction at a time, so nothing else can hold the subscription.
  it.skipIf(name !== 'postgres')('a cancel while the subscription is held by a renewal elsewhere is told to try again (409), and changes nothing', async () => {
    const user = await buyer('holder');
    const sub = (await commerce.purchase(appId, user, planId)).subscription!;
    take();
    // Another node's scheduler holds the subscription (its transaction-scoped advisory lock).
    const other = await open();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      void other.database.db.transaction().execute(async (tx) => {
        expect(await other.subscriptions.claim(tx, sub.id)).toBeDefined();
        resolve();
        await new Promise<void>((r) => (release = r));
      });
    });
    await held;
    try {
      await expect(commerce.cancelSubscription(user, sub.id)).rejects.toMatchObject({ status: 409 });
      expect(take()).toEqual([]);
      expect((await store.subscriptions.get(sub.id))?.canceled_at).toBeNull();
    } finally {
      release();
    }
    // Once it is free the cancel goes through.
    await new Promise((r) => setTimeout(r, 50));
    await commerce.cancelSubscription(user, sub.id);
    expect((await store.subscriptions.get(sub.id))?.canceled_at).not.toBeNull();
  });

  it('racing purchases of one subscription by one user make one subscription; the others are refused (40074)', async () => {
    const user = await buyer('racer');
    // PostgreSQL: four pools, as four nodes. SQLite has one writer: one store for all four.
    const results = await Promise.allSettled([1, 2, 3, 4].map(async () => {
      const s = store.subscriptions.dialect === 'postgres' ? await open() : store;
      return new CommerceService(s, new CommerceEvents(s, bus), clock).purchase(appId, user, planId);
    }));
    expect(results.filter((r) => r.status === 'fulfilled').length).toBe(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ status: 400, code: 40074 });
    expect((await store.subscriptions.list(planId, { userId: user, limit: 10 })).length).toBe(1);
    expect(take().map((d) => d.t)).toEqual(['ENTITLEMENT_CREATE', 'SUBSCRIPTION_CREATE']);
  });

  /** Three subscriptions, each two renewals behind: six transitions to make. */
  async function sixDue(): Promise<string[]> {
    const ids: string[] = [];
    for (const name of ['u1', 'u2', 'u3']) ids.push((await commerce.purchase(appId, await buyer(name), planId)).subscription!.id);
    take();
    now = T0 + 2 * P + 1;
    return ids;
  }
  async function expectTwoRenewalsEach(ids: string[]) {
    const updates = take().filter((d) => d.t === 'SUBSCRIPTION_UPDATE');
    expect(updates.length).toBe(6);
    for (const id of ids) {
      const mine = updates.filter((u) => u.d.id === id).map((u) => u.d.current_period_start).sort();
      expect(mine).toEqual([iso(T0 + P), iso(T0 + 2 * P)]);
      const row = await store.subscriptions.get(id);
      expect([Number(row!.current_period_start), Number(row!.current_period_end), row!.status]).toEqual([T0 + 2 * P, T0 + 3 * P, 0]);
    }
  }

  it('a scheduler killed inside a transaction, restarted on a fresh store, repeats nothing and misses nothing', async () => {
    const ids = await sixDue();
    const doomed = scheduler(await open(), {
      inTransaction: (n) => {
        if (n === 3) throw new Error('killed');
      },
    });
    await expect(doomed.tick()).rejects.toThrow('killed');
    // Two committed and published; the third rolled back with the kill.
    expect(dispatches.length).toBe(2);
    // Restart: a new store (new connections) and a new scheduler pick up the rest.
    const restarted = scheduler(await open());
    expect(await restarted.tick()).toBe(4);
    expect(await restarted.tick()).toBe(0);
    await expectTwoRenewalsEach(ids);
  });

  it('killed after a commit: the restarted run makes exactly the remaining transitions, each once', async () => {
    const ids = await sixDue();
    const doomed = scheduler(await open(), {
      afterCommit: (n) => {
        if (n === 3) throw new Error('killed');
      },
    });
    await expect(doomed.tick()).rejects.toThrow('killed');
    const restarted = scheduler(await open());
    expect(await restarted.tick()).toBe(3);
    await expectTwoRenewalsEach(ids);
  });

  it('two schedulers (two nodes) running at once make each transition once', async () => {
    const ids = await sixDue();
    // PostgreSQL: two pools, as two nodes would have. SQLite has one writer: the two share its connection.
    const first = await open();
    const a = scheduler(first);
    const b = scheduler(store.subscriptions.dialect === 'postgres' ? await open() : first);
    const [ma, mb] = await Promise.all([a.tick(), b.tick()]);
    expect(ma + mb).toBe(6);
    await expectTwoRenewalsEach(ids);
  });
});
