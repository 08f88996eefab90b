import { ApiError } from '../errors/ApiError.ts';
import type { Store } from '../storage/Store.ts';
import { CommerceErrors } from './errors.ts';
import { type PaymentStep, TestModePayment } from './payment.ts';
import { type EntitlementWire, SkuFlags, SkuType, type SubscriptionWire } from './wire.ts';

/**
 * What the checkout needs of CommerceService (which makes the checkout and passes itself): the
 * purchase, and its checks run before any charge. An interface, so the two files do not import
 * each other.
 */
export interface Purchases {
  purchase(applicationId: string, userId: string, skuId: string, opts?: { testMode?: boolean }): Promise<{ entitlement: EntitlementWire; subscription?: SubscriptionWire }>;
  checkPurchase(applicationId: string, userId: string, skuId: string): Promise<unknown>;
}

export interface CheckoutResult {
  entitlement: EntitlementWire;
  subscription?: SubscriptionWire;
  /** Which payment step took the money ('test-mode', or the provider's name), and its reference. */
  payment: { provider: string; reference: string | null };
}

/**
 * The checkout (issue 14): a user buys a SKU. With the application's test mode on (the portal's
 * toggle), the payment step is TestModePayment; the application's testers (its owner) pay
 * nothing and get TEST_MODE_PURCHASE, everyone else goes through the payment step and gets
 * PURCHASE. With test mode off, a configured provider takes the payment; without one the
 * checkout is refused. Payment comes before any write; a declined charge writes nothing.
 */
export class CheckoutService {
  private readonly testPayment = new TestModePayment();

  constructor(
    private readonly store: Store,
    private readonly commerce: Purchases,
    /** A real provider; none by default (the spec names none). */
    private readonly provider: PaymentStep | null = null,
  ) {}

  async checkout(userId: string, skuId: string): Promise<CheckoutResult> {
    const sku = await this.store.skus.get(skuId);
    if (!sku) throw CommerceErrors.unknownSku();
    if ((sku.flags & SkuFlags.Available) === 0 || sku.type === SkuType.SubscriptionGroup) throw CommerceErrors.invalidSku();
    const app = await this.store.applications.get(sku.application_id);
    const testMode = await this.store.skus.testMode(sku.application_id);
    const tester = testMode && app?.owner_id != null && app.owner_id === userId;
    if (tester) {
      const r = await this.commerce.purchase(sku.application_id, userId, sku.id, { testMode: true });
      return { ...r, payment: { provider: this.testPayment.name, reference: null } };
    }
    const step = testMode ? this.testPayment : this.provider;
    if (!step) throw new ApiError(400, 0, 'This application does not sell anything yet: no payment provider is configured and test mode is off');
    // Refuse what the purchase would refuse before charging (already owned, unknown user).
    await this.commerce.checkPurchase(sku.application_id, userId, sku.id);
    const paid = await step.charge({ applicationId: sku.application_id, userId, skuId: sku.id, amount: sku.price, currency: 'usd' });
    if (!paid.ok) throw new ApiError(402, 0, `Payment declined: ${paid.reason}`);
    const r = await this.commerce.purchase(sku.application_id, userId, sku.id);
    return { ...r, payment: { provider: step.name, reference: paid.reference } };
  }

  async testMode(applicationId: string): Promise<boolean> {
    return this.store.skus.testMode(applicationId);
  }

  async setTestMode(applicationId: string, on: boolean): Promise<void> {
    await this.store.skus.setTestMode(applicationId, on, Date.now());
  }
}
