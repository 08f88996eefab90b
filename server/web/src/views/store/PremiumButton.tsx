import { useEffect, useState } from 'preact/hooks';
import { openCheckout } from './checkout.ts';
import { cachedSku } from './storeApi.ts';
import { priceLabel, type Sku } from './storeModel.ts';
import './store.css';

/**
 * A premium button (component type 2, style 6 with `sku_id`) as a message shows it: the public
 * shape carries no label, so the SKU's name and price are shown, with a shop icon. Pressing it
 * opens the checkout for that SKU; it sends no interaction (premium buttons do not). A SKU that
 * cannot be read (taken off sale, another game's) shows a disabled button.
 */
export function PremiumButton({ skuId, disabled }: { skuId: string; disabled?: boolean }) {
  const [sku, setSku] = useState<Sku | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    cachedSku(skuId).then(
      (s) => live && setSku(s),
      () => live && setSku(null),
    );
    return () => void (live = false);
  }, [skuId]);
  return (
    <button
      type="button"
      class="ui-button premium-button"
      data-sku-id={skuId}
      disabled={disabled || !sku}
      onClick={() => openCheckout(skuId)}
      title={sku ? `Buy ${sku.name}` : undefined}
    >
      <svg class="ui-icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
        <path fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round" d="M3 4h2l2.4 11h10.2L20 8H6.3" />
        <circle cx="9" cy="19.5" r="1.5" fill="currentColor" />
        <circle cx="17" cy="19.5" r="1.5" fill="currentColor" />
      </svg>
      <span>{sku === undefined ? 'Loading…' : sku ? `${sku.name} · ${priceLabel(sku)}` : 'Unavailable'}</span>
    </button>
  );
}
