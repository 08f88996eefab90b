import { RestClient } from '../../api/RestClient.ts';
import type { CheckoutResult, Entitlement, Sku, Storefront, Subscription } from './storeModel.ts';

/**
 * The store's REST calls, all on the public API with the page's session token (the first-party
 * web app may shop in every game): SKUs on sale, the store header, the user's entitlements and
 * subscriptions, the checkout, cancel.
 */
const rest = new RestClient();

export const storeApi = {
  storefront: (applicationId: string) => rest.get<Storefront>(`/applications/${applicationId}/storefront`),
  skus: (applicationId: string) => rest.get<Sku[]>(`/applications/${applicationId}/skus`),
  sku: (skuId: string) => rest.get<Sku>(`/skus/${skuId}`),
  myEntitlements: (applicationId: string) => rest.get<Entitlement[]>(`/users/@me/applications/${applicationId}/entitlements`),
  mySubscriptions: () => rest.get<Subscription[]>('/users/@me/subscriptions'),
  checkout: (skuId: string) => rest.post<CheckoutResult>(`/skus/${skuId}/checkout`),
  cancel: (subscriptionId: string) => rest.post<Subscription>(`/users/@me/subscriptions/${subscriptionId}/cancel`),
};

/** SKUs by ID, fetched once per page (premium buttons name one each; a message list names many). */
const skuCache = new Map<string, Promise<Sku>>();
export function cachedSku(skuId: string): Promise<Sku> {
  let p = skuCache.get(skuId);
  if (!p) {
    p = storeApi.sku(skuId);
    // A failure is not kept: the next button tries again.
    p.catch(() => skuCache.delete(skuId));
    skuCache.set(skuId, p);
  }
  return p;
}
