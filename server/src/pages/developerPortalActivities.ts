import { ACTIVITY_ORIENTATIONS, ACTIVITY_PLATFORMS, type ActivitySettings } from '../activities/activitySettings.ts';
import { type Html, hidden, html, page } from './html.ts';
import type { PortalSection } from './portalSection.ts';
import { sectionErrors } from './developerPortalParts.ts';

/** Blank rows offered for new prefixes below the saved ones. */
const BLANK_ROWS = 3;

/**
 * Activities (issue 17) on the application page: a link to their own page, as the settings are
 * not part of the application object a section renders from. The page's form posts to the same
 * path (http/routes/activityPortal.ts).
 */
export const activitiesSection: PortalSection = {
  id: 'activities',
  title: 'Activities',
  render: ({ app }) => html`<p class="small muted">Run the game inside the web app as an embedded activity: URL mappings, platforms, orientation.</p>
<div class="actions"><a href="/developers/applications/${app.id}/activities" id="activity-settings-link">Activity settings</a></div>`,
  async submit() {
    throw new Error('activity settings post to their own page');
  },
};

export function activitySettingsPage(o: { app: { id: string; name: string }; csrf: string; settings: ActivitySettings; proxyOrigin: string; errors?: string[]; notice?: string }): string {
  const root = o.settings.url_mappings.find((m) => m.prefix === '/');
  const extra = o.settings.url_mappings.filter((m) => m.prefix !== '/');
  const rows = [...extra, ...Array.from({ length: BLANK_ROWS }, () => ({ prefix: '', target: '' }))];
  const row = (m: { prefix: string; target: string }, i: number): Html => html`<tr><td><input type="text" name="prefix_${String(i)}" id="mapping-prefix-${String(i)}" maxlength="100" placeholder="/api" value="${m.prefix}" aria-label="Prefix"></td>
<td><input type="text" name="target_${String(i)}" id="mapping-target-${String(i)}" maxlength="512" placeholder="api.example.com" value="${m.target}" aria-label="Target"></td></tr>`;
  return page(
    `${o.app.name}: activity settings`,
    html`<nav class="portal-nav"><a href="/developers/applications/${o.app.id}#activities">Back to ${o.app.name}</a></nav>
<h1>Activity settings</h1>
${o.notice ? html`<div class="notice" role="status" id="activity-notice">${o.notice}</div>` : ''}
${sectionErrors(o.errors)}
<p class="small muted">Your activity is served from <code id="activity-origin">${o.proxyOrigin}</code>. Requests there go to the targets below by their path prefix, with or without <code>/.proxy</code>; nothing else can be reached from it.</p>
<form method="post" action="/developers/applications/${o.app.id}/activities">
${hidden({ csrf: o.csrf })}
<label class="inline"><input type="checkbox" id="activities-enabled" name="enabled" value="1"${o.settings.enabled ? html` checked` : ''}> Enable activities</label>
<label for="mapping-root">Root mapping (<code>/</code>): where the activity's page is served from</label>
<input type="text" id="mapping-root" name="root_target" maxlength="512" placeholder="game.example.com" value="${root?.target ?? ''}">
<table id="url-mappings"><thead><tr><th>Prefix</th><th>Target</th></tr></thead><tbody>${rows.map(row)}</tbody></table>
<input type="hidden" name="rows" value="${String(rows.length)}">
<fieldset><legend class="small">Supported platforms</legend>
${ACTIVITY_PLATFORMS.map((p) => html`<label class="inline"><input type="checkbox" name="platform_${p}" value="1"${o.settings.supported_platforms.includes(p) ? html` checked` : ''}> ${p}</label>`)}
</fieldset>
<label for="activity-orientation">Orientation on phones</label>
<select id="activity-orientation" name="orientation">${ACTIVITY_ORIENTATIONS.map((v) => html`<option value="${v}"${o.settings.orientation === v ? html` selected` : ''}>${v}</option>`)}</select>
<div class="actions"><button type="submit" id="save-activities">Save activity settings</button></div>
</form>`,
    { wide: true, stylesheets: ['/assets/developers.css'] },
  );
}

/** The form as a settings edit: the root target, then each non-empty prefix row. */
export function activitySettingsFromForm(form: URLSearchParams): ActivitySettings {
  const mappings: { prefix: string; target: string }[] = [];
  const root = (form.get('root_target') ?? '').trim().slice(0, 600);
  if (root) mappings.push({ prefix: '/', target: root });
  const rows = Math.min(Number(form.get('rows') ?? 0) || 0, 40);
  for (let i = 0; i < rows; i++) {
    const prefix = (form.get(`prefix_${i}`) ?? '').trim().slice(0, 200);
    const target = (form.get(`target_${i}`) ?? '').trim().slice(0, 600);
    if (prefix || target) mappings.push({ prefix, target });
  }
  return {
    enabled: form.get('enabled') === '1',
    url_mappings: mappings,
    supported_platforms: ACTIVITY_PLATFORMS.filter((p) => form.get(`platform_${p}`) === '1'),
    orientation: (form.get('orientation') ?? 'unlocked') as ActivitySettings['orientation'],
  };
}
