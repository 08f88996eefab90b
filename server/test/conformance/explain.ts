// Why a value does not validate, said once and where it happens. Ajv's own errors for a failed
// oneOf list every branch's complaints (a message component fails as all seven kinds at once);
// this walks the schema with the value instead and, at each oneOf or anyOf, follows the branch the
// value means to be (the one whose `type` constant it carries), so one wrong field reads as one
// problem.
import type { SchemaView } from './schemaView.ts';

const COMPOSITE = ['properties', 'items', 'prefixItems', 'oneOf', 'anyOf', 'allOf', 'additionalProperties', 'not', '$ref', 'discriminator'];

export function explain(contract: SchemaView, pointer: string, value: unknown, at = ''): string[] {
  // A boolean, not the validator's type guard: `value` keeps its type for the walk below.
  const valid: boolean = contract.validator(pointer)(value);
  if (valid) return [];
  let schema = contract.resolve(`#${pointer}`);
  for (let i = 0; schema?.$ref && i < 20; i++) {
    pointer = schema.$ref.slice(1);
    schema = contract.resolve(schema.$ref);
  }
  if (!schema || typeof schema !== 'object') return [];
  const out: string[] = [];
  // This level's own keywords (type, required, enum, const, format, bounds).
  const own = shallow(contract, pointer, schema);
  if (!own(value)) for (const e of own.errors ?? []) out.push(`${at || '/'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`);
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches: string[] = (schema[key] ?? []).map((_: unknown, i: number) => `${pointer}/${key}/${i}`);
    if (branches.length === 0) continue;
    const passing = branches.filter((b) => contract.validator(b)(value));
    if (key === 'oneOf' && passing.length > 1) out.push(`${at || '/'} matches ${passing.length} branches of a oneOf (${passing.map((b) => b.split('/').pop()).join(', ')})`);
    if (passing.length > 0) continue;
    const meant = branches.filter((b) => means(contract, b, value));
    if (meant.length === 1) out.push(...explain(contract, meant[0]!, value, at));
    else out.push(`${at || '/'} matches none of the ${key} branches`);
  }
  (schema.allOf ?? []).forEach((_: unknown, i: number) => out.push(...explain(contract, `${pointer}/allOf/${i}`, value, at)));
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => out.push(...explain(contract, `${pointer}/items`, item, `${at}/${i}`)));
  else if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (schema.properties?.[k]) out.push(...explain(contract, `${pointer}/properties/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, v, `${at}/${k}`));
      else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') out.push(...explain(contract, `${pointer}/additionalProperties`, v, `${at}/${k}`));
    }
  }
  return [...new Set(out)];
}

/** Whether `value` is meant as this branch: null for a null branch, else the branch's `type` constant. */
function means(contract: SchemaView, branch: string, value: unknown): boolean {
  let schema = contract.resolve(`#${branch}`);
  for (let i = 0; schema?.$ref && i < 20; i++) schema = contract.resolve(schema.$ref);
  if (!schema) return false;
  const types: string[] = schema.type === undefined ? [] : [schema.type].flat();
  if (value === null) return types.includes('null');
  if (types.includes('null') && types.length === 1) return false;
  const tag = schema.properties?.type;
  if (tag && value && typeof value === 'object' && 'type' in value) {
    let t = tag;
    for (let i = 0; t?.$ref && i < 20; i++) t = contract.resolve(t.$ref);
    const allowed = t?.const !== undefined ? [t.const] : t?.enum ?? (t?.oneOf ?? []).map((o: any) => o.const).filter((x: unknown) => x !== undefined);
    if (allowed.length > 0) return allowed.includes((value as { type: unknown }).type);
  }
  // No tag to go by: an object branch for an object, a scalar branch for a scalar of its type.
  if (types.length === 0) return typeof value === 'object' && value !== null;
  return types.some((ty) => (ty === 'integer' ? Number.isInteger(value) : ty === 'array' ? Array.isArray(value) : typeof value === ty));
}

const shallowCache = new WeakMap<SchemaView, Map<string, ReturnType<SchemaView['ajv']['compile']>>>();
function shallow(contract: SchemaView, pointer: string, schema: any) {
  let cache = shallowCache.get(contract);
  if (!cache) shallowCache.set(contract, (cache = new Map()));
  let v = cache.get(pointer);
  if (!v) {
    const own = Object.fromEntries(Object.entries(schema).filter(([k]) => !COMPOSITE.includes(k)));
    v = contract.ajv.compile(own);
    cache.set(pointer, v);
  }
  return v;
}
