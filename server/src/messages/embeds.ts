import { Type } from 'typebox';
import type { APIEmbed } from 'discord-api-types/v10';
import { parseWith } from '../schemas/validator.ts';
import { ApiError } from '../errors/ApiError.ts';

/**
 * The public embed rules, for every path that creates or edits a message (Create and Edit
 * Message, interaction responses, follow-ups and `@original` edits): one schema, one total.
 */
const EmbedField = Type.Object({ name: Type.String({ minLength: 1, maxLength: 256 }), value: Type.String({ minLength: 1, maxLength: 1024 }), inline: Type.Optional(Type.Boolean()) });
const EmbedMedia = Type.Object({ url: Type.String({ maxLength: 2048 }) });
/** The public embed limits: 25 fields, title 256, description 4,096, footer 2,048, author 256 (and 6,000 in all, embedTotal). */
export const Embed = Type.Object({
  title: Type.Optional(Type.String({ maxLength: 256 })),
  type: Type.Optional(Type.String({ maxLength: 32 })),
  description: Type.Optional(Type.String({ maxLength: 4096 })),
  url: Type.Optional(Type.String({ maxLength: 2048 })),
  timestamp: Type.Optional(Type.String({ maxLength: 64 })),
  color: Type.Optional(Type.Integer({ minimum: 0, maximum: 0xffffff })),
  footer: Type.Optional(Type.Object({ text: Type.String({ maxLength: 2048 }), icon_url: Type.Optional(Type.String({ maxLength: 2048 })) })),
  image: Type.Optional(EmbedMedia),
  thumbnail: Type.Optional(EmbedMedia),
  author: Type.Optional(Type.Object({ name: Type.String({ maxLength: 256 }), url: Type.Optional(Type.String({ maxLength: 2048 })), icon_url: Type.Optional(Type.String({ maxLength: 2048 })) })),
  fields: Type.Optional(Type.Array(EmbedField, { maxItems: 25 })),
});
export const Embeds = Type.Array(Embed, { maxItems: 10 });

export const EMBED_TOTAL_CHARS = 6000;

/** The public total: title, description, field names and values, footer text and author name of all embeds. */
export function checkEmbedTotal(embeds: APIEmbed[], path: (string | number)[] = ['embeds']): void {
  let total = 0;
  for (const e of embeds) {
    total += (e.title?.length ?? 0) + (e.description?.length ?? 0) + (e.footer?.text.length ?? 0) + (e.author?.name.length ?? 0);
    for (const f of e.fields ?? []) total += f.name.length + f.value.length;
  }
  if (total <= EMBED_TOTAL_CHARS) return;
  let tree: Record<string, unknown> = { _errors: [{ code: 'MAX_EMBED_SIZE_EXCEEDED', message: `Embed size exceeds maximum size of ${EMBED_TOTAL_CHARS}` }] };
  for (const key of [...path].reverse()) tree = { [String(key)]: tree };
  throw new ApiError(400, 50035, 'Invalid Form Body', tree as never);
}

/**
 * Embeds as Create Message checks them, at `prefix` (an interaction response's `data`): the
 * schema's 50035 tree under that path, then the total. Returns them typed.
 */
export function checkEmbedsAt(prefix: (string | number)[], embeds: unknown): APIEmbed[] {
  let value: unknown = { embeds };
  for (const key of [...prefix].reverse()) value = { [String(key)]: value };
  parseWith(schemaAt(prefix), value);
  const checked = embeds as APIEmbed[];
  checkEmbedTotal(checked, [...prefix, 'embeds']);
  return checked;
}

/**
 * `{prefix...: {embeds}}` as a schema, made once per prefix: the validator compiles a schema once
 * per schema object, so a new object on every response would compile on every response.
 */
const schemasAt = new Map<string, Parameters<typeof parseWith>[0]>();
function schemaAt(prefix: (string | number)[]): Parameters<typeof parseWith>[0] {
  const key = prefix.join('\u0000');
  let schema = schemasAt.get(key);
  if (!schema) {
    schema = Type.Object({ embeds: Embeds });
    for (const part of [...prefix].reverse()) schema = Type.Object({ [String(part)]: schema });
    schemasAt.set(key, schema);
  }
  return schema;
}
