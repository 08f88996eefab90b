import { useEffect, useState } from 'preact/hooks';
import { ApiRequestError } from '../../api/RestClient.ts';
import { Button, Empty, Panel } from '../../components/ui.tsx';
import { navigate } from '../../state/router.ts';
import { onPurchase, openCheckout } from './checkout.ts';
import { storeApi } from './storeApi.ts';
import { type Entitlement, EntitlementType, formatDate, forSale, kindLabel, ownership, priceLabel, type Sku, SkuType, type Storefront, type Subscription } from './storeModel.ts';
import './store.css';

type Data = { front: Storefront; skus: Sku[]; entitlements: Entitlement[]; subscriptions: Subscription[] };

/**
 * A game's store (`/app/store/APPLICATION_ID`): what it sells (SKUs on sale), each with its price
 * and what the user already has of it; buying opens the checkout dialog. Below, what the user owns
 * in this game. Reloads after a purchase made anywhere in the app.
 */
export function StorePage({ applicationId }: { applicationId: string }) {
  const [data, setData] = useState<Data | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    const load = async () => {
      try {
        const [front, skus, entitlements, subscriptions] = await Promise.all([
          storeApi.storefront(applicationId),
          storeApi.skus(applicationId),
          storeApi.myEntitlements(applicationId),
          storeApi.mySubscriptions(),
        ]);
        if (live) setData({ front, skus, entitlements, subscriptions });
      } catch (e) {
        if (live) setError(e instanceof ApiRequestError && (e.code === 10002 || e.code === 50001) ? 'There is no store for this game.' : e instanceof Error ? e.message : String(e));
      }
    };
    void load();
    const off = onPurchase((r) => r.entitlement.application_id === applicationId && void load());
    return () => {
      live = false;
      off();
    };
  }, [applicationId]);

  if (error) return <Empty>{error}</Empty>;
  if (!data) return <Empty>Loading…</Empty>;
  const onSale = forSale(data.skus);
  const byId = new Map(data.skus.map((s) => [s.id, s]));
  return (
    <main class="store" id="store" data-application-id={applicationId}>
      <header class="store-header">
        <div class="store-title">
          <h1 id="store-name">{data.front.name}</h1>
          {data.front.description && <p class="muted">{data.front.description}</p>}
        </div>
        <a
          href="/app/subscriptions"
          class="ui-button ui-button-secondary"
          id="store-subscriptions"
          onClick={(e) => {
            e.preventDefault();
            navigate({ name: 'subscriptions' });
          }}
        >
          Your subscriptions
        </a>
      </header>
      {data.front.test_mode && (
        <p class="checkout-test store-test" id="store-test-mode">
          <strong>Test mode</strong>: this store takes no payment.{data.front.tester ? ' You are its tester: your purchases are test purchases.' : ''}
        </p>
      )}
      {onSale.length === 0 ? (
        <Empty>Nothing is on sale here yet.</Empty>
      ) : (
        <ul class="store-skus" id="store-skus">
          {onSale.map((sku) => {
            const owned = ownership(sku, data.entitlements, data.subscriptions);
            return (
              <li key={sku.id} class="store-sku" data-sku-id={sku.id} data-owned={owned ?? 'no'}>
                <div class="store-sku-text">
                  <h2 class="store-sku-name">{sku.name}</h2>
                  <p class="muted small">{kindLabel(sku)}</p>
                </div>
                <div class="store-sku-buy">
                  <span class="store-sku-price">{priceLabel(sku)}</span>
                  {owned ? (
                    <span class="store-badge" data-badge={owned}>
                      {owned === 'owned' ? 'Owned' : owned === 'subscribed' ? 'Subscribed' : 'Canceled'}
                    </span>
                  ) : (
                    <Button class="store-sku-action" onClick={() => openCheckout(sku.id)}>
                      {sku.type === SkuType.Subscription ? 'Subscribe' : 'Buy'}
                    </Button>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      )}
      <Panel title="What you own here" id="store-owned">
        {data.entitlements.length === 0 ? (
          <p class="muted small">Nothing yet.</p>
        ) : (
          <ul class="store-owned">
            {data.entitlements.map((e) => (
              <li key={e.id} class="store-entitlement" data-entitlement-id={e.id} data-sku-id={e.sku_id}>
                <span class="store-entitlement-name">{byId.get(e.sku_id)?.name ?? 'An item no longer on sale'}</span>
                <span class="muted small">
                  {e.type === EntitlementType.TestModePurchase ? 'Test purchase' : e.type === EntitlementType.ApplicationSubscription ? 'Subscribed' : 'Purchased'}
                  {e.starts_at ? ` on ${formatDate(e.starts_at)}` : ''}
                  {e.ends_at ? `, until ${formatDate(e.ends_at)}` : ''}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Panel>
    </main>
  );
}
