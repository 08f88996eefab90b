import { randomBytes } from 'node:crypto';

/** What the checkout asks a payment provider to charge. */
export interface PaymentRequest {
  applicationId: string;
  userId: string;
  skuId: string;
  /** Smallest currency unit (cents). */
  amount: number;
  currency: 'usd';
}

export type PaymentResult = { ok: true; reference: string } | { ok: false; reason: string };

/**
 * The payment step of the checkout. The spec names no payment provider; a real one implements
 * this (charge, and later refunds and renewals' charges) and is passed to the CheckoutService.
 */
export interface PaymentStep {
  readonly name: string;
  charge(request: PaymentRequest): Promise<PaymentResult>;
}

/** Test mode: every charge succeeds and no money moves. Used only while an application's test mode is on. */
export class TestModePayment implements PaymentStep {
  readonly name = 'test-mode';

  async charge(_request: PaymentRequest): Promise<PaymentResult> {
    return { ok: true, reference: `test_${randomBytes(8).toString('hex')}` };
  }
}
