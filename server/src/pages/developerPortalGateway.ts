import { html, hidden } from './html.ts';
import type { PortalSection } from './portalSection.ts';
import { sectionErrors } from './developerPortalParts.ts';

/**
 * Gateway settings: the channel obfuscation toggle (spec, Gateway: Identify capability 1<<15,
 * "also a developer portal toggle"). On, every bot session that identifies afterwards gets a
 * channel it cannot view as `___hidden___` instead of not at all, capability bit or not.
 */
export const gatewaySection: PortalSection = {
  id: 'gateway',
  title: 'Gateway',
  render: ({ app, csrf, errors }) => html`${sectionErrors(errors)}
<form method="post" action="/developers/applications/${app.id}/gateway">
${hidden({ csrf, action: 'save-gateway' })}
<label class="inline"><input type="checkbox" name="channel_obfuscation" id="channel-obfuscation" value="1"${app.channel_obfuscation ? html` checked` : ''}> Channel obfuscation for bot sessions</label>
<p class="small muted">Channels the bot cannot view arrive as <code>___hidden___</code> with flag <code>CHANNEL_OBFUSCATED</code>, as with Identify capability <code>1&lt;&lt;15</code>. Applies to sessions that connect after saving.</p>
<div class="actions"><button type="submit" id="save-gateway">Save</button></div>
</form>`,
  async submit(form, { app, applications }) {
    const on = form.get('channel_obfuscation') === '1';
    await applications.setChannelObfuscation(app.id, on);
    return { notice: on ? 'Channel obfuscation is on for bot sessions.' : 'Channel obfuscation is off.' };
  },
};
