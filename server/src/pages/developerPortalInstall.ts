import { html, hidden } from './html.ts';
import type { PortalSection } from './portalSection.ts';
import { formText, sectionErrors } from './developerPortalParts.ts';

type Config = Record<string, { oauth2_install_params?: { scopes: string[]; permissions: string } }>;

/** integration_types_config: whether servers (0) and users (1) can install it, and with what. */
export const installSection: PortalSection = {
  id: 'install',
  title: 'Installation',
  render: ({ app, csrf, errors }) => {
    const cfg = (app.integration_types_config ?? {}) as Config;
    const row = (key: '0' | '1', label: string) => html`<fieldset>
<label class="inline"><input type="checkbox" name="type_${key}" value="1"${cfg[key] ? html` checked` : ''}> ${label}</label>
<label for="scopes-${key}">Scopes (space-separated)</label>
<input type="text" id="scopes-${key}" name="scopes_${key}" maxlength="600" value="${cfg[key]?.oauth2_install_params?.scopes.join(' ') ?? ''}">
${key === '0' ? html`<label for="permissions-0">Permissions (integer)</label><input type="text" id="permissions-0" name="permissions_0" maxlength="20" inputmode="numeric" value="${cfg[key]?.oauth2_install_params?.permissions ?? '0'}">` : ''}
</fieldset>`;
    return html`${sectionErrors(errors)}<form method="post" action="/developers/applications/${app.id}/install">
${hidden({ csrf })}
${row('0', 'Server install')}
${row('1', 'User install')}
<div class="actions"><button type="submit" id="save-install">Save installation</button></div>
</form>`;
  },
  async submit(form, { app, applications }) {
    const config: Config = {};
    for (const key of ['0', '1'] as const) {
      if (form.get(`type_${key}`) !== '1') continue;
      const scopes = (formText(form, `scopes_${key}`, 600) ?? '').split(/\s+/).filter(Boolean);
      const permissions = key === '0' ? (formText(form, 'permissions_0', 20) ?? '0').trim() || '0' : '0';
      config[key] = scopes.length > 0 ? { oauth2_install_params: { scopes, permissions } } : {};
    }
    await applications.update(app.id, { integration_types_config: config });
    return { notice: 'Installation saved.' };
  },
};
