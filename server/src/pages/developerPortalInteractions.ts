import { hidden, html } from './html.ts';
import type { PortalSection } from './portalSection.ts';
import { copyBox, formText, sectionErrors } from './developerPortalParts.ts';

/**
 * Interactions (issue 13): the public key interactions are signed with (Ed25519, the same key
 * pair as webhook events) and the interactions endpoint URL. Saving a URL verifies it as
 * `PATCH /applications/@me` does: a PING with a wrong signature must be refused, a signed PING
 * answered `{"type": 1}` within 3 s. Empty: interactions go to the bot's Gateway sessions.
 */
export const interactionsSection: PortalSection = {
  id: 'interactions',
  title: 'Interactions',
  render: ({ app, csrf, errors }) => html`${sectionErrors(errors)}
<p class="small muted">Public key: every interaction carries <code>X-Signature-Ed25519</code> over <code>X-Signature-Timestamp</code> + the raw body, signed with this application's key</p>${copyBox('interactions-public-key', app.verify_key ?? '')}
<form method="post" action="/developers/applications/${app.id}/interactions">
${hidden({ csrf })}
<label for="interactions-url">Interactions endpoint URL</label>
<input type="text" id="interactions-url" name="interactions_endpoint_url" maxlength="2048" placeholder="https://game.example/interactions" value="${app.interactions_endpoint_url ?? ''}">
<p class="small muted">Saving sends two PINGs: one with a wrong signature, which your endpoint must refuse (401), and a signed one it must answer with <code>{"type": 1}</code>. Leave empty to receive interactions over the Gateway.</p>
<div class="actions"><button type="submit" id="save-interactions">Save interactions endpoint</button></div>
</form>`,
  async submit(form, { app, applications }) {
    const url = (formText(form, 'interactions_endpoint_url', 2048) ?? '').trim();
    await applications.update(app.id, { interactions_endpoint_url: url === '' ? null : url });
    return { notice: url === '' ? 'Interactions go to your bot over the Gateway.' : 'Interactions endpoint verified and saved.' };
  },
};
