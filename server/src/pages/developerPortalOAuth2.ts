import { html, hidden } from './html.ts';
import type { PortalSection } from './portalSection.ts';
import { copyBox, formText, sectionErrors } from './developerPortalParts.ts';

/** Client ID, client type, redirect URIs and the client secret. */
export const oauth2Section: PortalSection = {
  id: 'oauth2',
  title: 'OAuth2',
  render: ({ app, csrf, errors }) => html`${sectionErrors(errors)}
<p class="small muted">Client ID</p>${copyBox('client-id', app.id)}
<form method="post" action="/developers/applications/${app.id}/oauth2" class="inline-form">
${hidden({ csrf, action: 'client-type' })}
<label class="inline"><input type="checkbox" id="public-client" name="public_client" value="1"${app.public_client ? html` checked` : ''}> Public client (PKCE and device IDs without a secret: games that run on players' devices)</label>
<button type="submit" class="secondary small-button" id="save-client-type">Save client type</button>
</form>
<h3>Redirect URIs</h3>
${app.redirect_uris.length === 0
  ? html`<p class="muted small" id="no-redirects">None yet. Loopback URIs (<code>http://127.0.0.1/callback</code>) match any port.</p>`
  : html`<ul class="plain" id="redirect-uris">${app.redirect_uris.map(
      (uri) => html`<li><code class="uri">${uri}</code><form method="post" action="/developers/applications/${app.id}/oauth2">${hidden({ csrf, action: 'remove-redirect', redirect_uri: uri })}<button class="danger" type="submit">Remove</button></form></li>`,
    )}</ul>`}
<form method="post" action="/developers/applications/${app.id}/oauth2">
${hidden({ csrf, action: 'add-redirect' })}
<label for="redirect-uri">Add a redirect URI</label>
<div class="field-row"><input type="text" id="redirect-uri" name="redirect_uri" required maxlength="512" placeholder="https://game.example/callback">
<button type="submit" id="add-redirect">Add</button></div>
</form>
<h3>Client secret</h3>
<p class="small muted">Shown only when it is made. Resetting it stops the old one at once.</p>
<form method="post" action="/developers/applications/${app.id}/oauth2">${hidden({ csrf, action: 'reset-secret' })}<button class="danger" type="submit" id="reset-secret">Reset client secret</button></form>`,
  async submit(form, { app, applications }) {
    const action = form.get('action');
    if (action === 'client-type') {
      await applications.update(app.id, { public_client: form.get('public_client') === '1' });
      return { notice: 'Client type saved.' };
    }
    if (action === 'add-redirect' || action === 'remove-redirect') {
      const uri = (formText(form, 'redirect_uri', 512) ?? '').trim();
      const next = action === 'add-redirect' ? [...app.redirect_uris.filter((u) => u !== uri), uri] : app.redirect_uris.filter((u) => u !== uri);
      await applications.update(app.id, { redirect_uris: next });
      return { notice: action === 'add-redirect' ? 'Redirect URI added.' : 'Redirect URI removed.' };
    }
    if (action === 'reset-secret') return { secret: { label: 'New client secret', value: await applications.resetClientSecret(app.id) } };
    return { notice: 'Nothing changed.' };
  },
};
