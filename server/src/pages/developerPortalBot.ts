import { EDITABLE_FLAGS } from '../applications/ApplicationService.ts';
import { html, hidden } from './html.ts';
import type { PortalSection } from './portalSection.ts';
import { sectionErrors } from './developerPortalParts.ts';

/** The bot user, its token, and the flags a developer may set (the limited Gateway intents). */
export const botSection: PortalSection = {
  id: 'bot',
  title: 'Bot and flags',
  render: ({ app, csrf, errors }) => html`${sectionErrors(errors)}
<p class="small muted">Bot user</p><p>${app.bot ? html`<strong>${app.bot.global_name ?? app.bot.username}</strong> <span class="muted small">(${app.bot.id})</span>` : 'None'}</p>
<form method="post" action="/developers/applications/${app.id}/bot">
${hidden({ csrf, action: 'save-flags' })}
${EDITABLE_FLAGS.map(
  (f) => html`<label class="inline"><input type="checkbox" name="flag_${f.bit}" value="1"${(BigInt(app.flags_new) >> BigInt(f.bit)) & 1n ? html` checked` : ''}> ${f.label} <code class="small">${f.name}</code></label>`,
)}
<p class="small muted">flags <code id="flags">${app.flags}</code> · flags_new <code id="flags-new">${app.flags_new}</code></p>
<div class="actions"><button type="submit" id="save-flags">Save flags</button></div>
</form>
<h3>Bot token</h3>
<p class="small muted">Shown only when it is made. Resetting it stops the old one at once.</p>
<p class="small muted">It signs in as the bot: <code>Authorization: Bot &lt;token&gt;</code>.</p>
<form method="post" action="/developers/applications/${app.id}/bot">${hidden({ csrf, action: 'reset-token' })}<button class="danger" type="submit" id="reset-token">Reset bot token</button></form>`,
  async submit(form, { app, applications }) {
    if (form.get('action') === 'reset-token') return { secret: { label: 'New bot token', value: await applications.resetBotToken(app.id) } };
    let flags = BigInt(app.flags);
    for (const f of EDITABLE_FLAGS) {
      const bit = 1n << BigInt(f.bit);
      flags = form.get(`flag_${f.bit}`) === '1' ? flags | bit : flags & ~bit;
    }
    await applications.update(app.id, { flags: Number(flags) });
    return { notice: 'Flags saved.' };
  },
};
