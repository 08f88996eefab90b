// Fields of a response that its documented schema does not name. Ajv accepts them (the document
// sets no additionalProperties: false), but a field the public API never sends is one a strict
// client may choke on, or a sign that we misnamed a documented one; so the suite lists them and
// only the allowlist (allowlist.ts) lets one through.
import type { SchemaView } from './schemaView.ts';

export interface UnknownField {
  /** The component schema that owns the object (`MessageResponse`), or the route's own inline schema. */
  owner: string;
  field: string;
  /** Where in the body, as a JSON pointer. */
  at: string;
}

export function unknownFields(contract: SchemaView, pointer: string, body: unknown): UnknownField[] {
  const found: UnknownField[] = [];
  walk(contract, pointer, body, '', ownerOf(pointer), found, 0);
  return found;
}

const ownerOf = (pointer: string) => {
  const m = /^\/components\/schemas\/([^/]+)$/.exec(pointer);
  return m?.[1] ?? 'inline';
};

/** Follows `$ref`s, returning the pointer of the schema that holds the content. */
function deref(contract: SchemaView, pointer: string): { pointer: string; schema: any } {
  let schema = contract.resolve(`#${pointer}`);
  for (let i = 0; schema?.$ref && i < 20; i++) {
    pointer = schema.$ref.slice(1);
    schema = contract.resolve(schema.$ref);
  }
  return { pointer, schema };
}

/**
 * The object's properties as the schema at `pointer` (with its allOf parts and whichever oneOf or
 * anyOf branches the value matches) describes them: name → pointer of the property's schema,
 * whether other names are allowed, and which component owns the object.
 */
function describeObject(contract: SchemaView, pointer: string, value: unknown, depth: number): { props: Map<string, string>; open: string | boolean; owner: string } | undefined {
  const { pointer: at, schema } = deref(contract, pointer);
  if (!schema || typeof schema !== 'object' || depth > 40) return undefined;
  const props = new Map<string, string>();
  let open: string | boolean = false;
  let described = false;
  let owner = ownerOf(at);
  if (schema.properties) {
    described = true;
    for (const name of Object.keys(schema.properties)) props.set(name, `${at}/properties/${escapeKey(name)}`);
  }
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
    described = true;
    open = schema.additionalProperties === true ? true : `${at}/additionalProperties`;
  }
  const parts: string[] = [];
  (schema.allOf ?? []).forEach((_: unknown, i: number) => parts.push(`${at}/allOf/${i}`));
  for (const key of ['oneOf', 'anyOf'] as const) {
    (schema[key] ?? []).forEach((_: unknown, i: number) => {
      const branch = `${at}/${key}/${i}`;
      if (contract.validator(branch)(value)) parts.push(branch);
    });
  }
  for (const part of parts) {
    const d = describeObject(contract, part, value, depth + 1);
    if (!d) continue;
    if (d.props.size || d.open) {
      described = true;
      if (owner === 'inline' && d.owner !== 'inline') owner = d.owner;
    }
    for (const [k, v] of d.props) if (!props.has(k)) props.set(k, v);
    if (d.open && !open) open = d.open;
  }
  // A schema that says nothing about the object's fields (a bare `type: object`) is left open.
  if (!described) open = true;
  return { props, open, owner };
}

function walk(contract: SchemaView, pointer: string, value: unknown, at: string, owner: string, found: UnknownField[], depth: number): void {
  if (value === null || typeof value !== 'object' || depth > 60) return;
  const { pointer: p, schema } = deref(contract, pointer);
  if (!schema) return;
  if (Array.isArray(value)) {
    const itemPointers = arrayItems(contract, p, value);
    value.forEach((item, i) => {
      for (const ip of itemPointers) walk(contract, ip, item, `${at}/${i}`, owner, found, depth + 1);
    });
    return;
  }
  const d = describeObject(contract, p, value, 0);
  if (!d) return;
  const objectOwner = d.owner === 'inline' ? owner : d.owner;
  for (const [key, v] of Object.entries(value)) {
    const propPointer = d.props.get(key) ?? (typeof d.open === 'string' ? d.open : undefined);
    if (propPointer) walk(contract, propPointer, v, `${at}/${key}`, objectOwner, found, depth + 1);
    else if (!d.open) found.push({ owner: objectOwner, field: key, at: `${at}/${key}` || '/' });
  }
}

/** The item schemas of an array schema (direct, or through allOf/oneOf/anyOf branches that match). */
function arrayItems(contract: SchemaView, pointer: string, value: unknown[]): string[] {
  const { pointer: at, schema } = deref(contract, pointer);
  if (!schema) return [];
  if (schema.items) return [`${at}/items`];
  const out: string[] = [];
  (schema.allOf ?? []).forEach((_: unknown, i: number) => out.push(...arrayItems(contract, `${at}/allOf/${i}`, value)));
  for (const key of ['oneOf', 'anyOf'] as const) {
    (schema[key] ?? []).forEach((_: unknown, i: number) => {
      const branch = `${at}/${key}/${i}`;
      if (contract.validator(branch)(value)) out.push(...arrayItems(contract, branch, value));
    });
  }
  return out.slice(0, 1);
}

const escapeKey = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
