import { html, hidden } from './html.ts';
import type { PortalSection } from './developerPortalSections.ts';
import { formText, sectionErrors } from './developerPortalParts.ts';

/** Name, description and icon: what players see of the application. */
export const generalSection: PortalSection = {
  id: 'general',
  title: 'General information',
  render: ({ app, csrf, errors }) => html`<form method="post" action="/developers/applications/${app.id}/general">
${hidden({ csrf })}${sectionErrors(errors)}
<label for="app-name">Name</label>
<input type="text" id="app-name" name="name" required minlength="2" maxlength="100" value="${app.name}">
<label for="app-description">Description</label>
<textarea id="app-description" name="description" maxlength="400" rows="3">${app.description}</textarea>
<label for="app-icon">Icon (a data: URI of a PNG, JPEG, GIF or WebP image, 40 KiB at most; empty keeps it)</label>
<input type="text" id="app-icon" name="icon" maxlength="60000" placeholder="data:image/png;base64,...">
${app.icon ? html`<p class="small"><img class="app-icon" alt="" src="/app-icons/${app.id}/${app.icon}.png" width="48" height="48"> <label class="inline"><input type="checkbox" name="remove_icon" value="1"> Remove the icon</label></p>` : ''}
<div class="actions"><button type="submit" id="save-general">Save</button></div>
</form>`,
  async submit(form, { app, applications }) {
    const icon = formText(form, 'icon', 60_000)?.trim();
    await applications.update(app.id, {
      name: formText(form, 'name', 200) ?? '',
      description: formText(form, 'description', 2000) ?? '',
      ...(form.get('remove_icon') === '1' ? { icon: null } : icon ? { icon } : {}),
    });
    return { notice: 'Saved.' };
  },
};
