import type { FieldErrorTree } from '@social-layer/protocol';
import { type Html, html } from './html.ts';

/** Small pieces the portal's sections share. */

export function sectionErrors(errors: string[] | undefined): Html | '' {
  return errors && errors.length > 0 ? html`<div class="error" role="alert">${errors.map((e) => html`<div>${e}</div>`)}</div>` : '';
}

/** A 50035 error tree as sentences: "redirect_uris.0: Redirect URIs must use https ...". */
export function errorLines(tree: FieldErrorTree | undefined, path: string[] = []): string[] {
  if (!tree) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(tree)) {
    if (key === '_errors') for (const e of value as { message: string }[]) out.push(path.length ? `${path.join('.')}: ${e.message}` : e.message);
    else out.push(...errorLines(value as FieldErrorTree, [...path, key]));
  }
  return out;
}

/** A value to copy (IDs, secrets), in a box that wraps at any width. */
export function copyBox(id: string, value: string): Html {
  return html`<code class="copy" id="${id}">${value}</code>`;
}

/** A form field, or undefined when absent or longer than `max` (the schema of a page form). */
export function formText(form: URLSearchParams, name: string, max: number): string | undefined {
  const v = form.get(name);
  return v === null || v.length > max ? undefined : v;
}
