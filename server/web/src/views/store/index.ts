/**
 * The web app's store (issue 14): what other views may use. `openCheckout(skuId)` opens the one
 * checkout dialog (the app shell renders `CheckoutHost`); `PremiumButton` renders a message's
 * premium button (style 6, `sku_id`) that opens it.
 */
export { openCheckout, onPurchase } from './checkout.ts';
export { CheckoutHost } from './CheckoutDialog.tsx';
export { PremiumButton } from './PremiumButton.tsx';
export { StorePage } from './StorePage.tsx';
export { SubscriptionsPage } from './SubscriptionsPage.tsx';
