import type { QuestWire } from '../quests/QuestService.ts';
import { type Html, hidden, html, page } from './html.ts';
import type { PortalSection } from './portalSection.ts';
import { formText, sectionErrors } from './developerPortalParts.ts';

const DAY = 86_400_000;

/**
 * Quests (issue 15): define one (name, description, how many days enrolling stays open); the
 * list with enrollment counts and "End now" is its own page (`/developers/applications/:id/quests`),
 * as a section renders from the application object alone. Each enrollment sends
 * QUEST_USER_ENROLLMENT to the webhook events URL (when subscribed).
 */
export const questsSection: PortalSection = {
  id: 'quests',
  title: 'Quests',
  render: ({ app, csrf, errors }) => html`${sectionErrors(errors)}
<p class="small muted">Players enroll from the web app or the game; each enrollment sends <code>QUEST_USER_ENROLLMENT</code> to your webhook events URL.</p>
<form method="post" action="/developers/applications/${app.id}/quests">
${hidden({ csrf })}
<label for="quest-name">Name</label>
<input type="text" id="quest-name" name="name" maxlength="100" required>
<label for="quest-description">Description</label>
<input type="text" id="quest-description" name="description" maxlength="1000">
<label for="quest-days">Open for (days; empty: until you end it)</label>
<input type="text" inputmode="numeric" pattern="[0-9]*" id="quest-days" name="days" maxlength="3">
<div class="actions"><button type="submit" id="create-quest">Create quest</button> <a href="/developers/applications/${app.id}/quests" id="quest-list">All quests</a></div>
</form>`,
  async submit(form, { app, quests }) {
    if (!quests) throw new Error('quests are not configured on this server');
    if (form.get('action') === 'end') {
      const q = await quests.end(app.id, formText(form, 'quest_id', 20) ?? '');
      return { notice: `Quest ${q.name} ended.` };
    }
    const days = (formText(form, 'days', 6) ?? '').trim();
    const now = Date.now();
    const q = await quests.create(app.id, {
      name: formText(form, 'name', 200) ?? '',
      description: formText(form, 'description', 2000) ?? '',
      startsAt: now,
      // Not a whole number of days from 1 to 999: refused by the service's ends_at check.
      endsAt: days === '' ? null : /^\d{1,3}$/.test(days) && Number(days) > 0 ? now + Number(days) * DAY : Number.NaN,
    });
    return { notice: `Quest ${q.name} created (${q.id}).` };
  },
};

/** The application's quests: window, enrollments, and "End now" for open ones. */
export function questListPage(o: { app: { id: string; name: string }; csrf: string; quests: QuestWire[]; now: number }): string {
  const open = (q: QuestWire) => Date.parse(q.starts_at) <= o.now && (q.ends_at === null || Date.parse(q.ends_at) > o.now);
  const row = (q: QuestWire): Html => html`<tr data-quest-id="${q.id}"><td><strong>${q.name}</strong><div class="small muted">${q.description}</div><div class="small muted">${q.id}</div></td>
<td class="small">${q.starts_at.replace('T', ' ').slice(0, 16)} to ${q.ends_at === null ? 'no end' : q.ends_at.replace('T', ' ').slice(0, 16)}</td>
<td><span class="enrollments">${String(q.enrollments ?? 0)}</span> enrolled · <span class="state">${open(q) ? 'open' : 'closed'}</span></td>
<td>${open(q) ? html`<form method="post" action="/developers/applications/${o.app.id}/quests">${hidden({ csrf: o.csrf, action: 'end', quest_id: q.id })}<button type="submit" class="secondary small-button">End now</button></form>` : ''}</td></tr>`;
  return page(
    `${o.app.name}: quests`,
    html`<nav class="portal-nav"><a href="/developers/applications/${o.app.id}#quests">Back to ${o.app.name}</a></nav>
<h1>Quests</h1>
${o.quests.length === 0
  ? html`<p class="muted" id="no-quests">No quests yet.</p>`
  : html`<table id="quests"><thead><tr><th>Quest</th><th>Open (UTC)</th><th>Enrollments</th><th></th></tr></thead>
<tbody>${o.quests.map(row)}</tbody></table>`}`,
    { wide: true, stylesheets: ['/assets/developers.css'] },
  );
}
