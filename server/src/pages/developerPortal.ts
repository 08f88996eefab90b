import type { ApplicationWire } from '../applications/ApplicationService.ts';
import { type Html, hidden, html, page } from './html.ts';
import { PORTAL_SECTIONS } from './developerPortalSections.ts';
import { copyBox } from './developerPortalParts.ts';

/**
 * The developer portal (`/developers`): the signed-in developer's applications, a form to make
 * one, and one page per application built from PORTAL_SECTIONS. Plain forms, no scripts, the
 * account pages' look plus a few rules of its own (DEVELOPER_CSS).
 */
const STYLES = { wide: true, stylesheets: ['/assets/developers.css'] };

export interface PortalListItem {
  id: string;
  name: string;
  icon: string | null;
  approval: string;
}

function nav(csrf: string): Html {
  return html`<nav class="portal-nav"><a href="/developers">Applications</a><a href="/account">Account</a>
<form method="post" action="/logout">${hidden({ csrf })}<button class="link" type="submit">Sign out</button></form></nav>`;
}

function icon(app: { id: string; name: string; icon: string | null }, size = 40): Html {
  return app.icon
    ? html`<img class="app-icon" alt="" src="/app-icons/${app.id}/${app.icon}.png" width="${size}" height="${size}">`
    : html`<div class="icon">${app.name.slice(0, 1).toUpperCase()}</div>`;
}

export function portalListPage(o: { csrf: string; apps: PortalListItem[]; error?: string; name?: string }): string {
  return page(
    'Developer portal',
    html`${nav(o.csrf)}<h1>Your applications</h1>
<p class="muted">Each application has its own client ID, OAuth2 settings, bot and rate budgets.</p>
${o.apps.length === 0
  ? html`<p class="muted" id="no-apps">No applications yet.</p>`
  : html`<ul class="games" id="apps">${o.apps.map(
      (a) => html`<li data-application-id="${a.id}">${icon(a)}<div class="grow"><a href="/developers/applications/${a.id}"><strong>${a.name}</strong></a><div class="small muted">${a.id} · ${a.approval.replace('_', '-')}</div></div></li>`,
    )}</ul>`}
<h2>New application</h2>
${o.error ? html`<div class="error" role="alert">${o.error}</div>` : ''}
<form method="post" action="/developers/applications">
${hidden({ csrf: o.csrf })}
<label for="new-name">Name</label>
<div class="field-row"><input type="text" id="new-name" name="name" required minlength="2" maxlength="100" value="${o.name ?? ''}">
<button type="submit" id="create-app">Create</button></div>
</form>`,
    STYLES,
  );
}

export interface SectionState {
  notice?: string;
  secret?: { label: string; value: string };
  errors?: string[];
}

/** One application's page; `state` belongs to the section `stateOf` names (its last submit). */
export function portalAppPage(o: { app: ApplicationWire; csrf: string; origin: string; stateOf?: string; state?: SectionState; created?: { clientSecret: string; botToken: string } }): string {
  const { app } = o;
  return page(
    app.name,
    html`${nav(o.csrf)}<div class="app">${icon(app, 52)}<div><h1>${app.name}</h1><p class="muted small">Application ID <code id="application-id">${app.id}</code></p></div></div>
${o.created
  ? html`<div class="notice secret" role="status" id="created-secrets"><strong>Application created.</strong> Keep these now: they are shown only this once.
<p class="small">Client secret</p>${copyBox('client-secret', o.created.clientSecret)}<p class="small">Bot token</p>${copyBox('bot-token', o.created.botToken)}</div>`
  : ''}
<nav class="sections">${PORTAL_SECTIONS.map((s) => html`<a href="#${s.id}">${s.title}</a>`)}</nav>
${PORTAL_SECTIONS.map((s) => {
  const mine = o.stateOf === s.id ? o.state : undefined;
  return html`<section id="${s.id}" class="portal-section"><h2>${s.title}</h2>
${mine?.notice ? html`<div class="notice" role="status">${mine.notice}</div>` : ''}
${mine?.secret ? html`<div class="notice secret" role="status"><strong>${mine.secret.label}</strong> (shown only now)${copyBox('new-secret', mine.secret.value)}</div>` : ''}
${s.render({ app, csrf: o.csrf, origin: o.origin, errors: mine?.errors })}</section>`;
})}`,
    STYLES,
  );
}

export const DEVELOPER_CSS = `
.portal-nav { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: center; margin: -8px 0 18px; font-size: 14px; }
.portal-nav form { margin: 0 0 0 auto; }
button.link { background: none; color: #aab4ff; padding: 0; font-weight: 600; font-size: 14px; text-decoration: underline; flex: none; }
nav.sections { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0 4px; }
nav.sections a { font-size: 13px; padding: 5px 10px; border-radius: 999px; background: #262c4a; text-decoration: none; color: var(--text); }
.portal-section { border-top: 1px solid var(--line); margin-top: 22px; padding-top: 4px; }
.portal-section h3 { font-size: 14px; margin: 20px 0 6px; }
textarea { width: 100%; padding: 11px 12px; border-radius: 10px; border: 1px solid var(--line); background: #10142a; color: var(--text); font: inherit; resize: vertical; }
label.inline { display: flex; gap: 8px; align-items: flex-start; font-weight: 500; color: var(--text); margin: 10px 0; font-size: 14px; flex-wrap: wrap; }
label.inline input { margin-top: 4px; }
.field-row { display: flex; gap: 10px; flex-wrap: wrap; }
.field-row input { flex: 1 1 220px; min-width: 0; }
.field-row button { flex: 0 0 auto; }
.inline-form { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: center; }
button.small-button { flex: 0 0 auto; padding: 7px 12px; font-size: 13px; }
code { overflow-wrap: anywhere; }
code.copy { display: block; padding: 9px 11px; margin: 4px 0 10px; border-radius: 8px; background: #10142a; border: 1px dashed var(--line); font-size: 13px; overflow-wrap: anywhere; word-break: break-all; }
ul.plain { list-style: none; padding: 0; margin: 8px 0; }
ul.plain li { display: flex; align-items: center; gap: 10px; padding: 8px 0; border-bottom: 1px solid var(--line); }
ul.plain li .uri { flex: 1; min-width: 0; overflow-wrap: anywhere; word-break: break-all; }
ul.plain form { margin: 0; }
fieldset { border: 1px solid var(--line); border-radius: 10px; padding: 4px 14px 14px; margin: 10px 0; min-width: 0; }
pre.code-block { background: #10142a; border: 1px solid var(--line); border-radius: 10px; padding: 12px; overflow-x: auto; font-size: 13px; white-space: pre-wrap; word-break: break-word; }
.badge { display: inline-block; padding: 6px 10px; border-radius: 10px; font-size: 13px; background: #262c4a; }
.badge-approved { background: rgba(79,209,165,.15); color: #bff3e0; }
.badge-requested { background: rgba(255,200,80,.12); color: #ffe2a8; }
.app-icon { border-radius: 12px; vertical-align: middle; }
.notice.secret code.copy { border-color: rgba(79,209,165,.5); }
@media (max-width: 480px) { .card { padding: 20px 16px; } .app .icon { width: 44px; height: 44px; } }
`;
