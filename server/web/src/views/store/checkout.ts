import type { CheckoutResult } from './storeModel.ts';

/**
 * Opening the checkout from anywhere in the app: a premium button in a message, a store card.
 * `openCheckout(skuId)` shows the one checkout dialog (CheckoutDialog's `CheckoutHost`, rendered
 * once by the app shell); `onPurchase` tells pages that show what the user owns to reload.
 */
type Open = (skuId: string | null) => void;
const openers = new Set<Open>();
const purchases = new Set<(r: CheckoutResult) => void>();

export function openCheckout(skuId: string): void {
  openers.forEach((o) => o(skuId));
}

export function closeCheckout(): void {
  openers.forEach((o) => o(null));
}

export function onCheckoutRequest(open: Open): () => void {
  openers.add(open);
  return () => void openers.delete(open);
}

export function onPurchase(listener: (r: CheckoutResult) => void): () => void {
  purchases.add(listener);
  return () => void purchases.delete(listener);
}

export function purchaseDone(r: CheckoutResult): void {
  purchases.forEach((l) => l(r));
}
