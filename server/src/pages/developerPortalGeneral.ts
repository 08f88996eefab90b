import { MAX_ICON_BYTES } from '../applications/applicationImages.ts';
import { html, hidden } from './html.ts';
import type { PortalSection } from './portalSection.ts';
import { formText, sectionErrors } from './developerPortalParts.ts';

/**
 * Name, description and icon: what players see of the application. The icon arrives as a file
 * upload (multipart), so its form posts to the routes' icon handler rather than to submit().
 */
export const generalSection: PortalSection = {
  id: 'general',
  title: 'General information',
  render: ({ app, csrf, errors }) => html`<form method="post" action="/developers/applications/${app.id}/general">
${hidden({ csrf })}${sectionErrors(errors)}
<label for="app-name">Name</label>
<input type="text" id="app-name" name="name" required minlength="2" maxlength="100" value="${app.name}">
<label for="app-description">Description</label>
<textarea id="app-description" name="description" maxlength="400" rows="3">${app.description}</textarea>
${app.icon ? html`<label class="inline"><input type="checkbox" name="remove_icon" value="1"> Remove the icon</label>` : ''}
<div class="actions"><button type="submit" id="save-general">Save</button></div>
</form>
<form method="post" action="/developers/applications/${app.id}/icon" enctype="multipart/form-data">
${hidden({ csrf })}
<label for="app-icon">Icon: a PNG, JPEG, GIF or WebP image, ${MAX_ICON_BYTES / 1024} KiB at most</label>
<div class="field-row"><input type="file" id="app-icon" name="icon" required accept="image/png,image/jpeg,image/gif,image/webp">
<button type="submit" class="secondary" id="upload-icon">Upload icon</button></div>
</form>`,
  async submit(form, { app, applications }) {
    await applications.update(app.id, {
      name: formText(form, 'name', 200) ?? '',
      description: formText(form, 'description', 2000) ?? '',
      ...(form.get('remove_icon') === '1' ? { icon: null } : {}),
    });
    return { notice: 'Saved.' };
  },
};
