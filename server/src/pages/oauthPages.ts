import { SCOPE_DESCRIPTIONS } from '../oauth2/scopes.ts';
import { hidden, html, page } from './html.ts';

function scopeList(scopes: string[]) {
  return html`<ul class="scopes">${scopes.map((s) => html`<li>${SCOPE_DESCRIPTIONS[s] ?? s}<code>${s}</code></li>`)}</ul>`;
}

/** The consent page of /oauth2/authorize: the request's parameters ride along as hidden fields. */
export function consentPage(o: { appName: string; userName: string; scopes: string[]; csrf: string; params: Record<string, string | undefined>; redirectHost: string }): string {
  return page(
    `Authorize ${o.appName}`,
    html`<div class="app"><div class="icon">${o.appName.slice(0, 1).toUpperCase()}</div><div><h1>${o.appName}</h1><p class="muted">wants to access your account</p></div></div>
<p>Signed in as <strong>${o.userName}</strong>. This will allow the game to:</p>
${scopeList(o.scopes)}
<form method="post" action="/oauth2/authorize">
${hidden({ ...o.params, csrf: o.csrf })}
<div class="actions">
<button class="secondary" type="submit" name="decision" value="deny" id="deny">Cancel</button>
<button type="submit" name="decision" value="allow" id="authorize">Authorize</button>
</div>
</form>
<p class="small muted">You will be sent back to ${o.redirectHost}. You can remove the game's access at any time on your account page.</p>`,
  );
}

export function activatePage(o: { csrf: string; userCode?: string; error?: string }): string {
  return page(
    'Connect a device',
    html`<h1>Connect a device</h1>
<p class="muted">Enter the code your console or TV shows.</p>
${o.error ? html`<div class="error" role="alert">${o.error}</div>` : ''}
<form method="post" action="/activate">
${hidden({ csrf: o.csrf })}
<label for="user_code">Code</label>
<input type="text" id="user_code" name="user_code" required maxlength="16" autocomplete="off" value="${o.userCode ?? ''}" placeholder="ABCD-EFGH">
<div class="actions"><button type="submit" id="continue">Continue</button></div>
</form>`,
  );
}

export function deviceConsentPage(o: { appName: string; userName: string; scopes: string[]; csrf: string; userCode: string }): string {
  return page(
    `Authorize ${o.appName}`,
    html`<div class="app"><div class="icon">${o.appName.slice(0, 1).toUpperCase()}</div><div><h1>${o.appName}</h1><p class="muted">on your device wants to access your account</p></div></div>
<div class="code">${o.userCode}</div>
<p>Signed in as <strong>${o.userName}</strong>. Check that your device shows this code. This will allow the game to:</p>
${scopeList(o.scopes)}
<form method="post" action="/activate/decision">
${hidden({ csrf: o.csrf, user_code: o.userCode })}
<div class="actions">
<button class="secondary" type="submit" name="decision" value="deny" id="deny">Cancel</button>
<button type="submit" name="decision" value="allow" id="authorize">Authorize</button>
</div>
</form>`,
  );
}
