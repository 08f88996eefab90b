import { useEffect, useState } from 'preact/hooks';
import { ApiRequestError } from '../../api/RestClient.ts';
import { Button } from '../../components/ui.tsx';
import { navigate } from '../../state/router.ts';
import { closeCheckout, onCheckoutRequest, purchaseDone } from './checkout.ts';
import { cachedSku, storeApi } from './storeApi.ts';
import { type CheckoutResult, EntitlementType, formatDate, kindLabel, ownership, type Ownership, priceLabel, type Sku, SkuType, type Storefront } from './storeModel.ts';
import './store.css';

type Loaded = { sku: Sku; front: Storefront; owned: Ownership };
type Phase = { step: 'loading' } | { step: 'confirm'; data: Loaded } | { step: 'paying'; data: Loaded } | { step: 'done'; data: Loaded; result: CheckoutResult } | { step: 'failed'; message: string; data?: Loaded };

const message = (e: unknown) => (e instanceof ApiRequestError ? e.message : 'Something went wrong. Try again.');

/**
 * The checkout dialog, rendered once by the app shell: `openCheckout(skuId)` (checkout.ts) opens it
 * for a SKU from a store card or a premium button. It shows what is bought, its price and period,
 * whether the game's test mode is on (nobody is charged) and whether the user is its tester (a
 * test purchase), then POST /skus/{id}/checkout. The server checks everything again (on sale,
 * already owned, who may buy); its refusal is shown as it comes.
 */
export function CheckoutHost() {
  const [skuId, setSkuId] = useState<string | null>(null);
  useEffect(() => onCheckoutRequest(setSkuId), []);
  return skuId ? <CheckoutDialog key={skuId} skuId={skuId} /> : null;
}

function CheckoutDialog({ skuId }: { skuId: string }) {
  const [phase, setPhase] = useState<Phase>({ step: 'loading' });

  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const sku = await cachedSku(skuId);
        const [front, entitlements, subscriptions] = await Promise.all([storeApi.storefront(sku.application_id), storeApi.myEntitlements(sku.application_id), storeApi.mySubscriptions()]);
        if (live) setPhase({ step: 'confirm', data: { sku, front, owned: ownership(sku, entitlements, subscriptions) } });
      } catch (e) {
        if (live) setPhase({ step: 'failed', message: e instanceof ApiRequestError && e.code === 10027 ? 'This item is not for sale.' : message(e) });
      }
    })();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && closeCheckout();
    window.addEventListener('keydown', onKey);
    return () => {
      live = false;
      window.removeEventListener('keydown', onKey);
    };
  }, [skuId]);

  useEffect(() => {
    if (phase.step === 'confirm') document.getElementById('checkout-buy')?.focus();
  }, [phase.step]);

  const buy = async (data: Loaded) => {
    setPhase({ step: 'paying', data });
    try {
      const result = await storeApi.checkout(data.sku.id);
      setPhase({ step: 'done', data: { ...data, owned: data.sku.type === SkuType.Subscription ? 'subscribed' : 'owned' }, result });
      purchaseDone(result);
    } catch (e) {
      setPhase({ step: 'failed', message: message(e), data });
    }
  };

  const data = 'data' in phase ? phase.data : undefined;
  const sub = data?.sku.type === SkuType.Subscription;
  return (
    <div class="checkout-backdrop" onClick={(e) => e.target === e.currentTarget && closeCheckout()}>
      <div class="checkout" role="dialog" aria-modal="true" aria-labelledby="checkout-title" id="checkout" data-step={phase.step}>
        <header class="checkout-header">
          <h2 id="checkout-title">{data ? `${sub ? 'Subscribe to' : 'Buy'} ${data.sku.name}` : 'Checkout'}</h2>
          <button type="button" class="ui-notice-close" aria-label="Close" id="checkout-close" onClick={closeCheckout}>
            ×
          </button>
        </header>
        {phase.step === 'loading' && <p class="muted">Loading…</p>}
        {data && (
          <div class="checkout-item">
            <div class="checkout-line">
              <span class="checkout-from">
                from <strong>{data.front.name}</strong>
              </span>
              <span class="checkout-price" id="checkout-price">
                {priceLabel(data.sku)}
              </span>
            </div>
            <p class="muted small">{kindLabel(data.sku)}</p>
          </div>
        )}
        {data?.front.test_mode && phase.step !== 'done' && (
          <p class="checkout-test" id="checkout-test-mode">
            <strong>Test mode</strong>: no payment is taken.
            {data.front.tester ? ' You are this game\u2019s tester: this is recorded as a test purchase.' : ''}
          </p>
        )}
        {phase.step === 'failed' && (
          <p class="error-text" role="alert" id="checkout-error">
            {phase.message}
          </p>
        )}
        {phase.step === 'done' && (
          <div class="checkout-done" role="status" id="checkout-done">
            <p>
              <strong>{phase.data.sku.name}</strong> is yours{phase.result.entitlement.type === EntitlementType.TestModePurchase ? ' (test purchase)' : ''}.
            </p>
            {phase.result.subscription && <p class="muted small">Renews on {formatDate(phase.result.subscription.current_period_end)}. Cancel any time in your subscriptions.</p>}
          </div>
        )}
        <div class="actions checkout-actions">
          {(phase.step === 'confirm' || phase.step === 'paying') && (
            <>
              <Button variant="secondary" onClick={closeCheckout} id="checkout-cancel">
                Not now
              </Button>
              {phase.data.owned ? (
                <Button disabled id="checkout-buy">
                  {phase.data.owned === 'owned' ? 'You own this' : 'Subscribed'}
                </Button>
              ) : (
                <Button id="checkout-buy" disabled={phase.step === 'paying'} onClick={() => void buy(phase.data)}>
                  {phase.step === 'paying' ? 'Paying…' : `${sub ? 'Subscribe' : 'Buy'} · ${priceLabel(phase.data.sku)}`}
                </Button>
              )}
            </>
          )}
          {phase.step === 'done' && (
            <>
              {phase.result.subscription && (
                <Button
                  variant="secondary"
                  id="checkout-subscriptions"
                  onClick={() => {
                    closeCheckout();
                    navigate({ name: 'subscriptions' });
                  }}
                >
                  Your subscriptions
                </Button>
              )}
              <Button onClick={closeCheckout} id="checkout-ok">
                Done
              </Button>
            </>
          )}
          {phase.step === 'failed' && (
            <Button variant="secondary" onClick={closeCheckout} id="checkout-dismiss">
              Close
            </Button>
          )}
        </div>
      </div>
    </div>
  );
}
