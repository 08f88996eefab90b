import type { FieldErrorTree } from '@social-layer/protocol';
import { Errors } from '../errors/ApiError.ts';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { Store } from '../storage/Store.ts';
import type { EntitlementsTable, SkusTable } from '../storage/commerceSchema.ts';
import { type Clock, systemClock } from './clock.ts';
import type { CommerceDispatch, CommerceEvents } from './CommerceEvents.ts';
import { CommerceErrors } from './errors.ts';
import { SubscriptionMachine } from './subscriptionMachine.ts';
import { CheckoutService } from './CheckoutService.ts';
import type { PaymentStep } from './payment.ts';
import {
  DEFAULT_BILLING_PERIOD_DAYS,
  EntitlementType,
  type EntitlementWire,
  SkuFlags,
  SkuType,
  type SkuWire,
  type SubscriptionWire,
  entitlementToWire,
  skuToWire,
  subscriptionToWire,
} from './wire.ts';

export interface CreateSkuInput {
  name: string;
  type: 'durable' | 'consumable' | 'subscription';
  /** Cents. */
  price: number;
  /** Subscriptions only; default 30. */
  billingPeriodDays?: number;
}

export interface EntitlementQuery {
  userId?: string;
  skuIds?: string[];
  guildId?: string;
  before?: string;
  after?: string;
  limit?: number;
  excludeEnded?: boolean;
  excludeDeleted?: boolean;
}

const TYPE_OF = { durable: SkuType.Durable, consumable: SkuType.Consumable, subscription: SkuType.Subscription } as const;

/**
 * Commerce rules (issue 14): SKUs, entitlements, subscriptions and purchases. Nothing here knows
 * HTTP; routes call one method each. A refused request writes nothing: checks come first, and
 * every change with its webhook event is one transaction; Gateway dispatches follow the commit.
 */
export class CommerceService {
  readonly machine: SubscriptionMachine;
  /** The checkout: test mode or a payment provider, then `purchase`. */
  readonly checkout: CheckoutService;

  constructor(
    private readonly store: Store,
    private readonly events: CommerceEvents,
    readonly clock: Clock = systemClock,
    /** A real payment provider; none by default (only test mode sells). */
    paymentProvider: PaymentStep | null = null,
  ) {
    this.machine = new SubscriptionMachine(store);
    this.checkout = new CheckoutService(store, this, paymentProvider);
  }

  // --- SKUs ---

  async createSku(applicationId: string, input: CreateSkuInput): Promise<SkuWire> {
    const errors: FieldErrorTree = {};
    const add = (field: string, code: string, message: string) => {
      errors[field] = { _errors: [{ code, message }] };
    };
    const name = input.name.trim();
    if (name.length < 1 || name.length > 100) add('name', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
    if (!(input.type in TYPE_OF)) add('type', 'BASE_TYPE_CHOICES', 'Value must be one of durable, consumable, subscription.');
    if (!Number.isInteger(input.price) || input.price < 0 || input.price > 10_000_000) add('price', 'NUMBER_TYPE_MAX', 'Price must be a whole number of cents from 0 to 10000000.');
    const period = input.type === 'subscription' ? (input.billingPeriodDays ?? DEFAULT_BILLING_PERIOD_DAYS) : null;
    if (period !== null && (!Number.isInteger(period) || period < 1 || period > 366)) add('billing_period_days', 'NUMBER_TYPE_MAX', 'The billing period must be 1 to 366 days.');
    if (Object.keys(errors).length > 0) throw Errors.invalidForm(errors);
    if (!(await this.store.applications.get(applicationId))) throw Errors.unknownApplication();
    const type = TYPE_OF[input.type];
    let slug = slugify(name);
    for (let n = 2; await this.store.skus.slugTaken(applicationId, slug); n++) slug = `${slugify(name)}-${n}`;
    const fields = {
      application_id: applicationId,
      type,
      name,
      slug,
      flags: SkuFlags.Available | (type === SkuType.Subscription ? SkuFlags.UserSubscription : 0),
      price: input.price,
      billing_period_days: period,
    };
    if (type !== SkuType.Subscription) return skuToWire(await this.store.skus.create(fields));
    // A subscription comes with its system-made SUBSCRIPTION_GROUP (type 6): same name and slug,
    // never on sale itself (no AVAILABLE flag), as the public API lists them side by side.
    const row = await this.store.database.db.transaction().execute(async (tx) => {
      const sub = await this.store.skus.create(fields, tx);
      await this.store.skus.create({ ...fields, type: SkuType.SubscriptionGroup, flags: SkuFlags.UserSubscription, billing_period_days: null }, tx);
      return sub;
    });
    return skuToWire(row);
  }

  /**
   * Edits a SKU's name, price and availability (AVAILABLE flag: an unavailable SKU cannot be
   * bought; what was bought stays). Type, slug and billing period are fixed once made.
   */
  async updateSku(applicationId: string, skuId: string, patch: { name?: string; price?: number; available?: boolean }): Promise<SkuWire> {
    const sku = await this.store.skus.get(skuId);
    if (!sku || sku.application_id !== applicationId) throw CommerceErrors.unknownSku();
    // A group follows its subscription SKU; it is not edited on its own.
    if (sku.type === SkuType.SubscriptionGroup) throw CommerceErrors.invalidSku();
    const errors: FieldErrorTree = {};
    const name = patch.name?.trim();
    if (name !== undefined && (name.length < 1 || name.length > 100)) errors.name = { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH', message: 'Must be between 1 and 100 in length.' }] };
    if (patch.price !== undefined && (!Number.isInteger(patch.price) || patch.price < 0 || patch.price > 10_000_000)) errors.price = { _errors: [{ code: 'NUMBER_TYPE_MAX', message: 'Price must be a whole number of cents from 0 to 10000000.' }] };
    if (Object.keys(errors).length > 0) throw Errors.invalidForm(errors);
    const set = {
      ...(name !== undefined ? { name } : {}),
      ...(patch.price !== undefined ? { price: patch.price } : {}),
      ...(patch.available !== undefined ? { flags: patch.available ? sku.flags | SkuFlags.Available : sku.flags & ~SkuFlags.Available } : {}),
    };
    if (Object.keys(set).length > 0) {
      await this.store.database.db.transaction().execute(async (tx) => {
        await this.store.skus.update(sku.id, set, tx);
        // The group keeps its subscription's name and price (its flags never say AVAILABLE).
        if (sku.type === SkuType.Subscription && (set.name !== undefined || set.price !== undefined)) {
          const group = await this.store.skus.groupOf(sku, tx);
          if (group) await this.store.skus.update(group.id, { ...(set.name !== undefined ? { name: set.name } : {}), ...(set.price !== undefined ? { price: set.price } : {}) }, tx);
        }
      });
    }
    return skuToWire({ ...sku, ...set });
  }

  async listSkus(applicationId: string): Promise<SkuWire[]> {
    return (await this.store.skus.ofApplication(applicationId)).map(skuToWire);
  }

  // --- entitlements ---

  async listEntitlements(applicationId: string, q: EntitlementQuery): Promise<EntitlementWire[]> {
    const rows = await this.store.entitlements.list(applicationId, {
      ...(q.userId !== undefined ? { userId: q.userId } : {}),
      ...(q.skuIds !== undefined ? { skuIds: q.skuIds } : {}),
      ...(q.guildId !== undefined ? { guildId: q.guildId } : {}),
      ...(q.before !== undefined ? { before: q.before } : {}),
      ...(q.after !== undefined ? { after: q.after } : {}),
      limit: q.limit ?? 100,
      excludeEnded: q.excludeEnded ?? false,
      // The public default: deleted entitlements are left out unless asked for.
      excludeDeleted: q.excludeDeleted ?? true,
      now: this.clock.now(),
    });
    return rows.map(entitlementToWire);
  }

  /**
   * What an invoking user (and the guild the interaction came from) owns in an application, in the
   * public shape: the `entitlements` array of an interaction payload (issue 13 calls this), and the
   * web app's "what I own" on the store page. Active only: not deleted, not ended at the clock's
   * now, and not a consumed one-time purchase (it no longer grants anything). Newest first, at most
   * 100 of the user's and 100 of the guild's.
   */
  async entitlementsOf(applicationId: string, owner: { userId: string; guildId?: string | null }): Promise<EntitlementWire[]> {
    const now = this.clock.now();
    const filter = { limit: 100, excludeDeleted: true, excludeEnded: true, now } as const;
    const rows = await this.store.entitlements.list(applicationId, { ...filter, userId: owner.userId });
    if (owner.guildId) rows.push(...(await this.store.entitlements.list(applicationId, { ...filter, guildId: owner.guildId })));
    return rows.filter((e) => e.consumed === 0).sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1)).map(entitlementToWire);
  }

  async getEntitlement(applicationId: string, id: string): Promise<EntitlementWire> {
    return entitlementToWire(await this.ownEntitlement(applicationId, id));
  }

  /** A test entitlement (TEST_MODE_PURCHASE, no start or end) for a user (owner type 2) or a guild (1). */
  async createTestEntitlement(applicationId: string, input: { skuId: string; ownerId: string; ownerType: 1 | 2 }): Promise<EntitlementWire> {
    const sku = await this.store.skus.get(input.skuId);
    if (!sku || sku.application_id !== applicationId) throw CommerceErrors.unknownSku();
    // Entitlements name the subscription SKU (type 5), never its group.
    if (sku.type === SkuType.SubscriptionGroup) throw CommerceErrors.invalidSku();
    if (input.ownerType === 2 && !(await this.store.users.get(input.ownerId))) throw CommerceErrors.unknownUser();
    if (input.ownerType === 1 && !(await this.store.guilds.get(input.ownerId))) throw CommerceErrors.unknownGuild();
    const now = this.clock.now();
    return this.commit(async (tx, out) => {
      const row = await this.store.entitlements.create(
        tx,
        {
          application_id: applicationId,
          sku_id: sku.id,
          user_id: input.ownerType === 2 ? input.ownerId : null,
          guild_id: input.ownerType === 1 ? input.ownerId : null,
          type: EntitlementType.TestModePurchase,
          starts_at: null,
          ends_at: null,
          test: 1,
          subscription_id: null,
        },
        now,
      );
      return this.created(tx, row, out);
    });
  }

  /**
   * Delete Test Entitlement: entitlements made through the API, and test-mode purchases by the
   * application's tester (TEST_MODE_PURCHASE). A test-mode subscription's entitlement takes its
   * subscription with it: the state machine's delete, ENTITLEMENT_DELETE then SUBSCRIPTION_DELETE.
   */
  async deleteTestEntitlement(applicationId: string, id: string): Promise<void> {
    const e = await this.ownEntitlement(applicationId, id);
    if (e.deleted === 1) throw CommerceErrors.unknownEntitlement();
    if (e.test !== 1 && e.type !== EntitlementType.TestModePurchase) throw CommerceErrors.onlyTestDeletable();
    await this.commit(async (tx, out) => {
      if (e.subscription_id !== null) {
        const current = await this.store.subscriptions.claim(tx, e.subscription_id);
        // Held by the scheduler on another node this instant: nothing written, the caller retries.
        if (!current && (await this.store.subscriptions.get(e.subscription_id, tx))) throw CommerceErrors.busy();
        if (current) {
          out.push(...(await this.machine.transition(tx, current, { kind: 'delete' }, this.clock.now()))!.dispatches);
          return;
        }
      }
      if (!(await this.store.entitlements.markDeleted(tx, id))) throw CommerceErrors.unknownEntitlement();
      const deleted = entitlementToWire({ ...e, deleted: 1 });
      await this.store.webhookEvents.record(tx, applicationId, 'ENTITLEMENT_DELETE', deleted);
      out.push({ applicationId, t: 'ENTITLEMENT_DELETE', d: deleted });
    });
  }

  async consume(applicationId: string, id: string): Promise<void> {
    const e = await this.ownEntitlement(applicationId, id);
    if (e.deleted === 1) throw CommerceErrors.unknownEntitlement();
    const sku = await this.store.skus.get(e.sku_id);
    if (sku?.type !== SkuType.Consumable) throw CommerceErrors.notConsumable();
    if (e.consumed === 1) throw CommerceErrors.alreadyConsumed();
    await this.commit(async (tx, out) => {
      // Two consumes racing: the conditional update lets exactly one through.
      if (!(await this.store.entitlements.consume(tx, id))) throw CommerceErrors.alreadyConsumed();
      const consumed = entitlementToWire({ ...e, consumed: 1 });
      await this.store.webhookEvents.record(tx, applicationId, 'ENTITLEMENT_UPDATE', consumed);
      out.push({ applicationId, t: 'ENTITLEMENT_UPDATE', d: consumed });
    });
  }

  // --- purchases and subscriptions ---

  /**
   * A completed purchase (the checkout calls this once payment succeeded): a subscription SKU
   * goes through the state machine; a durable or consumable one grants an entitlement.
   * `testMode` records TEST_MODE_PURCHASE instead of PURCHASE.
   */
  async purchase(applicationId: string, userId: string, skuId: string, opts: { testMode?: boolean } = {}): Promise<{ entitlement: EntitlementWire; subscription?: SubscriptionWire }> {
    const sku = await this.checkPurchase(applicationId, userId, skuId);
    const now = this.clock.now();
    return this.commit(async (tx, out) => {
      await this.store.entitlements.lockOwner(tx, applicationId, userId, sku.id);
      await this.refuseOwned(tx, applicationId, userId, sku, now);
      if (sku.type === SkuType.Subscription) {
        const r = (await this.machine.transition(tx, null, { kind: 'purchase', applicationId, userId, sku, ...(opts.testMode ? { entitlementType: EntitlementType.TestModePurchase } : {}) }, now))!;
        out.push(...r.dispatches);
        const [e] = await this.store.entitlements.ofSubscription(r.subscription.id, tx);
        return { entitlement: entitlementToWire(e!), subscription: subscriptionToWire(r.subscription, [e!.id]) };
      }
      const row = await this.store.entitlements.create(
        tx,
        { application_id: applicationId, sku_id: sku.id, user_id: userId, guild_id: null, type: opts.testMode ? EntitlementType.TestModePurchase : EntitlementType.Purchase, starts_at: now, ends_at: null, test: 0, subscription_id: null },
        now,
      );
      return { entitlement: await this.created(tx, row, out) };
    });
  }

  /** What a purchase would refuse (unknown or unavailable SKU, unknown user, already owned), checked before any payment. */
  async checkPurchase(applicationId: string, userId: string, skuId: string): Promise<SkusTable> {
    const sku = await this.store.skus.get(skuId);
    if (!sku || sku.application_id !== applicationId) throw CommerceErrors.unknownSku();
    if ((sku.flags & SkuFlags.Available) === 0 || sku.type === SkuType.SubscriptionGroup) throw CommerceErrors.invalidSku();
    if (!(await this.store.users.get(userId))) throw CommerceErrors.unknownUser();
    await this.refuseOwned(this.store.database.db, applicationId, userId, sku, this.clock.now());
    return sku;
  }

  /** A durable or subscription SKU owned and not ended, or a consumable not yet consumed: no second purchase. */
  private async refuseOwned(db: Kysely<Database>, applicationId: string, userId: string, sku: SkusTable, now: number): Promise<void> {
    const owned = await this.store.entitlements.list(applicationId, { userId, skuIds: [sku.id], limit: 1, excludeDeleted: true, excludeEnded: true, now }, db);
    if (owned.some((e) => sku.type !== SkuType.Consumable || e.consumed === 0)) throw CommerceErrors.alreadyGranted();
  }

  /** The user cancels: ENDING until the period runs out (the scheduler then ends it). */
  async cancelSubscription(userId: string, subscriptionId: string): Promise<SubscriptionWire> {
    const s = await this.store.subscriptions.get(subscriptionId);
    if (!s || s.user_id !== userId) throw CommerceErrors.unknownSubscription();
    return this.commit(async (tx, out) => {
      const current = await this.store.subscriptions.claim(tx, subscriptionId);
      // Held by a renewal or an end on another node at this moment: try again, not "not active".
      if (!current) throw CommerceErrors.busy();
      const r = await this.machine.transition(tx, current, { kind: 'cancel' }, this.clock.now());
      if (!r) throw CommerceErrors.notActive();
      out.push(...r.dispatches);
      return subscriptionToWire(r.subscription, (await this.store.entitlements.ofSubscription(subscriptionId, tx)).map((e) => e.id));
    });
  }

  async listSubscriptions(applicationId: string, skuId: string, q: { userId?: string; before?: string; after?: string; limit?: number }): Promise<SubscriptionWire[]> {
    await this.ownSku(applicationId, skuId);
    const rows = await this.store.subscriptions.list(skuId, { ...q, limit: q.limit ?? 50 });
    return Promise.all(rows.map(async (s) => subscriptionToWire(s, (await this.store.entitlements.ofSubscription(s.id)).map((e) => e.id))));
  }

  /** A user's own subscriptions (the web app's subscriptions page; a game's token sees its own game's). */
  async userSubscriptions(userId: string, applicationId?: string): Promise<SubscriptionWire[]> {
    const rows = await this.store.subscriptions.ofUser(userId, applicationId);
    return Promise.all(rows.map(async (s) => subscriptionToWire(s, (await this.store.entitlements.ofSubscription(s.id)).map((e) => e.id))));
  }

  async getSubscription(applicationId: string, skuId: string, id: string): Promise<SubscriptionWire> {
    await this.ownSku(applicationId, skuId);
    const s = await this.store.subscriptions.get(id);
    if (!s || s.sku_id !== skuId) throw CommerceErrors.unknownSubscription();
    return subscriptionToWire(s, (await this.store.entitlements.ofSubscription(s.id)).map((e) => e.id));
  }

  /** Runs `fn` in one transaction and publishes what it collected once it committed. */
  async commit<T>(fn: (tx: Transaction<Database>, out: CommerceDispatch[]) => Promise<T>): Promise<T> {
    const out: CommerceDispatch[] = [];
    const result = await this.store.database.db.transaction().execute((tx) => fn(tx, out));
    await this.events.publish(out);
    return result;
  }

  private async created(tx: Transaction<Database>, row: EntitlementsTable, out: CommerceDispatch[]): Promise<EntitlementWire> {
    const wire = entitlementToWire(row);
    await this.store.webhookEvents.record(tx, row.application_id, 'ENTITLEMENT_CREATE', wire);
    out.push({ applicationId: row.application_id, t: 'ENTITLEMENT_CREATE', d: wire });
    return wire;
  }

  private async ownEntitlement(applicationId: string, id: string): Promise<EntitlementsTable> {
    const e = await this.store.entitlements.get(id);
    if (!e || e.application_id !== applicationId) throw CommerceErrors.unknownEntitlement();
    return e;
  }

  private async ownSku(applicationId: string, skuId: string): Promise<void> {
    const sku = await this.store.skus.get(skuId);
    if (!sku || sku.application_id !== applicationId) throw CommerceErrors.unknownSku();
  }
}

function slugify(name: string): string {
  const s = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
  return s || 'sku';
}
