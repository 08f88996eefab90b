import type { SkuWire } from '../commerce/index.ts';
import { type Html, hidden, html, page } from './html.ts';
import type { PortalSection } from './portalSection.ts';
import { formText, sectionErrors } from './developerPortalParts.ts';

const TYPE_TEXT: Record<number, string> = { 2: 'Durable', 3: 'Consumable', 5: 'Subscription', 6: 'Subscription group' };

/**
 * SKUs (issue 14): create one (name, type, price in cents, billing period for subscriptions);
 * the list of the application's SKUs and the test-mode toggle are its own page
 * (`/developers/applications/:id/skus`), because a section renders from the application object alone.
 */
export const skusSection: PortalSection = {
  id: 'skus',
  title: 'SKUs',
  render: ({ app, csrf, errors }) => html`${sectionErrors(errors)}
<p class="small muted">What the game sells. Bots read them with <code>GET /applications/${app.id}/skus</code>.</p>
<form method="post" action="/developers/applications/${app.id}/skus">
${hidden({ csrf })}
<label for="sku-name">Name</label>
<input type="text" id="sku-name" name="name" maxlength="100" required>
<label for="sku-type">Type</label>
<select id="sku-type" name="type"><option value="durable">Durable</option><option value="consumable">Consumable</option><option value="subscription">Subscription</option></select>
<label for="sku-price">Price (cents)</label>
<input type="text" inputmode="numeric" pattern="[0-9]*" id="sku-price" name="price" maxlength="8" value="0" required>
<label for="sku-period">Billing period in days (subscriptions)</label>
<input type="text" inputmode="numeric" pattern="[0-9]*" id="sku-period" name="billing_period_days" maxlength="3" value="30">
<div class="actions"><button type="submit" id="create-sku">Create SKU</button> <a href="/developers/applications/${app.id}/skus" id="sku-list">All SKUs</a></div>
</form>`,
  async submit(form, { app, commerce }) {
    if (!commerce) throw new Error('commerce is not configured on this server');
    if (form.get('action') === 'test_mode') {
      const on = form.get('enabled') === '1';
      await commerce.checkout.setTestMode(app.id, on);
      return { notice: on ? 'Test mode is on: checkouts succeed without payment.' : 'Test mode is off.' };
    }
    if (form.get('action') === 'update') {
      const sku = await commerce.updateSku(app.id, formText(form, 'sku_id', 20) ?? '', {
        name: formText(form, 'name', 200) ?? '',
        price: toInt(formText(form, 'price', 12)),
        available: form.get('available') === '1',
      });
      return { notice: `SKU ${sku.name} saved.` };
    }
    const type = formText(form, 'type', 20) ?? '';
    const sku = await commerce.createSku(app.id, {
      name: formText(form, 'name', 200) ?? '',
      type: type as 'durable',
      price: toInt(formText(form, 'price', 12)),
      ...(type === 'subscription' ? { billingPeriodDays: toInt(formText(form, 'billing_period_days', 6)) } : {}),
    });
    return { notice: `SKU ${sku.name} created (${sku.id}).` };
  },
};

function toInt(v: string | undefined): number {
  return v !== undefined && /^\d{1,9}$/.test(v.trim()) ? Number(v.trim()) : Number.NaN;
}

/** The application's SKUs as a table. */
export function skuListPage(o: { app: { id: string; name: string }; csrf: string; testMode: boolean; skus: SkuWire[] }): string {
  // Each SKU is its own edit form (name, price, on sale); type, slug and period are fixed.
  const item = (s: SkuWire): Html => html`<fieldset class="sku" data-sku-id="${s.id}"><legend class="small"><strong>${s.name}</strong></legend>
<p class="small muted">${TYPE_TEXT[s.type] ?? String(s.type)}${s.billing_period_days === undefined ? '' : `, every ${s.billing_period_days} days`} · slug <code>${s.slug}</code> · ID <code>${s.id}</code></p>
<form method="post" action="/developers/applications/${o.app.id}/skus">${hidden({ csrf: o.csrf, action: 'update', sku_id: s.id })}
<label for="name-${s.id}">Name</label><input type="text" id="name-${s.id}" name="name" maxlength="100" value="${s.name}">
<label for="price-${s.id}">Price in cents (<span class="price">${(s.price / 100).toFixed(2)}</span>)</label><input type="text" inputmode="numeric" pattern="[0-9]*" id="price-${s.id}" name="price" maxlength="8" value="${String(s.price)}">
<label class="inline"><input type="checkbox" name="available" value="1"${(s.flags & 4) !== 0 ? html` checked` : ''}> On sale</label>
<button type="submit" class="secondary small-button">Save ${s.name}</button></form></fieldset>`;
  return page(
    `${o.app.name}: SKUs`,
    html`<nav class="portal-nav"><a href="/developers/applications/${o.app.id}#skus">Back to ${o.app.name}</a></nav>
<h1>SKUs</h1>
<p class="small muted">Players buy them in the web app's store: <a href="/app/store/${o.app.id}" id="open-store">/app/store/${o.app.id}</a> (link it from your game), or from a premium button in a message.</p>
<form method="post" action="/developers/applications/${o.app.id}/skus" id="test-mode-form">
${hidden({ csrf: o.csrf, action: 'test_mode' })}
<label class="inline"><input type="checkbox" id="test-mode" name="enabled" value="1"${o.testMode ? html` checked` : ''}> Test mode</label>
<p class="small muted">The checkout takes no payment: your own purchases are TEST_MODE_PURCHASE, other players' PURCHASE.</p>
<button type="submit" id="save-test-mode" class="secondary small-button">Save test mode</button>
</form>
${o.skus.length === 0
  ? html`<p class="muted" id="no-skus">No SKUs yet.</p>`
  : html`<div id="skus">${o.skus.map(item)}</div>`}`,
    { stylesheets: ['/assets/developers.css'] },
  );
}
