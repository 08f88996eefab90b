import type { DeliveryView } from '../webhooks/WebhookService.ts';
import { WebhookEventTypes } from '../webhooks/payload.ts';
import { type Html, hidden, html, page } from './html.ts';
import type { PortalSection } from './portalSection.ts';
import { copyBox, formText, sectionErrors } from './developerPortalParts.ts';

const STATUS_TEXT: Record<number, string> = { 1: 'Disabled', 2: 'Enabled', 3: 'Disabled by the platform after repeated failures' };

/**
 * Webhook events (issue 15): the URL (PINGed when set or re-enabled), on/off, the event types,
 * the key receivers verify with, the platform's last error, and a link to recent deliveries
 * where each can be sent again.
 */
export const webhooksSection: PortalSection = {
  id: 'webhooks',
  title: 'Webhook events',
  render: ({ app, csrf, errors }) => {
    const types = new Set(app.event_webhooks_types ?? []);
    const status = app.event_webhooks_status ?? 1;
    return html`${sectionErrors(errors)}
<p class="small muted">Public key: receivers check <code>X-Signature-Ed25519</code> over <code>X-Signature-Timestamp</code> + the raw body with it</p>${copyBox('verify-key', app.verify_key ?? '')}
<p class="small">Status: <strong id="webhooks-status" data-status="${String(status)}">${STATUS_TEXT[status] ?? String(status)}</strong></p>
${status === 3 && app.event_webhooks_last_error ? html`<div class="error" role="alert" id="webhooks-last-error">Last error: ${app.event_webhooks_last_error}</div>` : ''}
<form method="post" action="/developers/applications/${app.id}/webhooks">
${hidden({ csrf, action: 'save' })}
<label for="webhooks-url">Endpoint URL</label>
<input type="text" id="webhooks-url" name="event_webhooks_url" maxlength="2048" placeholder="https://game.example/webhooks" value="${app.event_webhooks_url ?? ''}">
<p class="small muted">Saving a URL sends a PING; it is kept only if the endpoint answers 204 within 3 seconds.</p>
<label class="inline"><input type="checkbox" id="webhooks-enabled" name="enabled" value="1"${status === 2 ? html` checked` : ''}> Send events</label>
<fieldset><legend class="small">Events</legend>
${WebhookEventTypes.map((t) => html`<label class="inline"><input type="checkbox" name="type_${t}" value="1"${types.has(t) ? html` checked` : ''}> <code class="small">${t}</code></label>`)}
</fieldset>
<div class="actions"><button type="submit" id="save-webhooks">Save webhook settings</button> <a href="/developers/applications/${app.id}/webhooks" id="webhook-deliveries">Recent deliveries</a></div>
</form>`;
  },
  async submit(form, { app, applications }) {
    const hooks = applications.webhooks;
    if (!hooks) throw new Error('webhooks are not configured on this server');
    if (form.get('action') === 'resend') {
      const ok = await hooks.resend(app.id, formText(form, 'event_id', 20) ?? '');
      return { notice: ok ? 'The event is queued to be sent again.' : 'No such event.' };
    }
    const url = (formText(form, 'event_webhooks_url', 2048) ?? '').trim();
    await applications.update(app.id, {
      event_webhooks_url: url === '' ? null : url,
      ...(url === '' ? {} : { event_webhooks_status: form.get('enabled') === '1' ? 2 : 1 }),
      event_webhooks_types: WebhookEventTypes.filter((t) => form.get(`type_${t}`) === '1'),
    });
    return { notice: 'Webhook settings saved.' };
  },
};

/** Recent deliveries of one application: state, attempts, last status and latency, and "Send again". */
export function webhookDeliveriesPage(o: { app: { id: string; name: string }; csrf: string; deliveries: DeliveryView[] }): string {
  // Four columns so the list reads at the portal's width: what, when, how it went, the action.
  const row = (d: DeliveryView): Html => html`<tr data-event-id="${d.id}"><td><code class="small">${d.type}</code><div class="small muted">${d.id}</div></td><td class="small">${d.created_at.replace('T', ' ').slice(0, 19)}</td>
<td><span class="state">${d.state}</span><div class="small muted"><span class="attempts">${String(d.attempts)}</span> attempt(s)${d.last_status === null ? '' : html` · HTTP <span class="last-status">${String(d.last_status)}</span>`}${d.latency_ms === null ? '' : ` · ${d.latency_ms} ms`}</div>${d.last_error ? html`<div class="small">Last error: ${d.last_error}</div>` : ''}</td>
<td><form method="post" action="/developers/applications/${o.app.id}/webhooks">${hidden({ csrf: o.csrf, action: 'resend', event_id: d.id })}<button type="submit" class="secondary small-button">Send again</button></form></td></tr>`;
  return page(
    `${o.app.name}: webhook deliveries`,
    html`<nav class="portal-nav"><a href="/developers/applications/${o.app.id}#webhooks">Back to ${o.app.name}</a></nav>
<h1>Recent webhook deliveries</h1>
${o.deliveries.length === 0
  ? html`<p class="muted" id="no-deliveries">No events yet.</p>`
  : html`<table id="deliveries"><thead><tr><th>Event</th><th>Recorded (UTC)</th><th>Delivery</th><th></th></tr></thead>
<tbody>${o.deliveries.map(row)}</tbody></table>`}`,
    { wide: true, stylesheets: ['/assets/developers.css'] },
  );
}
