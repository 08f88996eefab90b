import { useEffect, useState } from 'preact/hooks';
import { ApiRequestError } from '../../api/RestClient.ts';
import { Button, Empty } from '../../components/ui.tsx';
import { navigate } from '../../state/router.ts';
import { onPurchase } from './checkout.ts';
import { cachedSku, storeApi } from './storeApi.ts';
import { formatDate, periodLabel, priceLabel, type Sku, statusLabel, type Storefront, type Subscription, SubscriptionStatus } from './storeModel.ts';
import './store.css';

type Row = { sub: Subscription; sku: Sku | null; front: Storefront | null };

/**
 * The user's subscriptions in every game (`/app/subscriptions`): what, from which game, its state
 * (Active and renewing, Canceled and running to the end of the period, Ended), the period, and
 * Cancel for an active one (it stays active until the period ends; the server's scheduler ends it).
 */
export function SubscriptionsPage() {
  const [rows, setRows] = useState<Row[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = async () => {
    try {
      const subs = await storeApi.mySubscriptions();
      const fronts = new Map<string, Promise<Storefront | null>>();
      setRows(
        await Promise.all(
          subs.map(async (sub) => {
            const sku = await cachedSku(sub.sku_ids[0]!).catch(() => null);
            if (sku && !fronts.has(sku.application_id)) fronts.set(sku.application_id, storeApi.storefront(sku.application_id).catch(() => null));
            return { sub, sku, front: sku ? await fronts.get(sku.application_id)! : null };
          }),
        ),
      );
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };

  useEffect(() => {
    void load();
    return onPurchase((r) => r.subscription && void load());
  }, []);

  const cancel = async (id: string) => {
    setBusy(true);
    try {
      const updated = await storeApi.cancel(id);
      setRows((rs) => rs?.map((r) => (r.sub.id === id ? { ...r, sub: updated } : r)) ?? rs);
      setConfirming(null);
    } catch (e) {
      setError(e instanceof ApiRequestError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="store" id="subscriptions">
      <header class="store-header">
        <div class="store-title">
          <h1>Your subscriptions</h1>
          <p class="muted">Subscriptions you bought in games on this server.</p>
        </div>
      </header>
      {error && (
        <p class="error-text" role="alert" id="subscriptions-error">
          {error}
        </p>
      )}
      {!rows && !error && <Empty>Loading…</Empty>}
      {rows?.length === 0 && <Empty>You have no subscriptions.</Empty>}
      {rows && rows.length > 0 && (
        <ul class="subs" id="subscription-list">
          {rows.map(({ sub, sku, front }) => (
            <li key={sub.id} class="sub" data-subscription-id={sub.id} data-status={sub.status}>
              <div class="sub-text">
                <h2 class="sub-name">{sku?.name ?? 'A subscription'}</h2>
                <p class="muted small">
                  {front && (
                    <a
                      href={`/app/store/${front.id}`}
                      onClick={(e) => {
                        e.preventDefault();
                        navigate({ name: 'store', applicationId: front.id });
                      }}
                    >
                      {front.name}
                    </a>
                  )}
                  {front && sku ? ' · ' : ''}
                  {sku ? priceLabel(sku) : ''}
                </p>
                <p class="small">
                  <span class="store-badge sub-status" data-badge={statusLabel(sub).toLowerCase()}>
                    {statusLabel(sub)}
                  </span>{' '}
                  <span class="sub-period">{periodLabel(sub)}</span>
                </p>
                {sub.canceled_at && <p class="muted small">Canceled on {formatDate(sub.canceled_at)}</p>}
              </div>
              <div class="sub-actions">
                {sub.status === SubscriptionStatus.Active &&
                  (confirming === sub.id ? (
                    <div class="sub-confirm">
                      <span class="small">It stays active until {formatDate(sub.current_period_end)}.</span>
                      <div class="actions">
                        <Button variant="secondary" onClick={() => setConfirming(null)} disabled={busy}>
                          Keep it
                        </Button>
                        <Button variant="danger" class="sub-cancel-confirm" onClick={() => void cancel(sub.id)} disabled={busy}>
                          Cancel subscription
                        </Button>
                      </div>
                    </div>
                  ) : (
                    <Button variant="secondary" class="sub-cancel" onClick={() => setConfirming(sub.id)}>
                      Cancel
                    </Button>
                  ))}
              </div>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
