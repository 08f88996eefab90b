import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import type { FastifySchemaCompiler } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { type FieldErrorTree, isSnowflake } from '@social-layer/protocol';
import { ApiError, Errors } from '../errors/ApiError.ts';
import { bytesAreImage } from '../applications/applicationImages.ts';

/**
 * Request validation for every route: TypeBox schemas compiled by Ajv (JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1), with every problem reported at once in the public error tree (HTTP 400,
 * 50035, `errors` nested by field path, leaves `{_errors: [{code, message}]}`, array items keyed
 * by index strings; protocols.md 2.2).
 *
 * Bodies are never coerced (`12` is not a string); query strings and path parameters are, since
 * they arrive as text. Unknown fields are dropped (`removeAdditional: 'all'`), as the public API
 * ignores them: a handler sees only what its schema names, so nothing unchecked reaches storage.
 * Dictionaries (metadata) keep their keys because they are `patternProperties`, not additional.
 */

type Path = string[];
interface Leaf {
  path: Path;
  code: string;
  message: string;
}

/** Keywords of ours that Ajv enforces and the OpenAPI document shows as extensions. */
const KEYWORDS = {
  /** Sum of key and value lengths of a string dictionary (lobby and message metadata). */
  totalLength: 'x-total-length',
  /** An absolute http(s) URL: URL_TYPE_INVALID_URL or URL_TYPE_INVALID_SCHEME otherwise. */
  httpUrl: 'x-http-url',
  /** `[current, max]`: current may not exceed max unless max is 0 (no maximum shown). */
  partySize: 'x-party-size',
  /** Replaces whatever error this schema raises with one code and message. */
  error: 'x-error',
  /** On a path parameter: the 404 that a value which cannot be an ID answers (e.g. 10031). */
  notFound: 'x-not-found',
  /** An image data URI whose bytes are the image type it names (IMAGE_INVALID otherwise). */
  imageData: 'x-image-data',
} as const;
export { KEYWORDS as SchemaKeywords };

/** A custom keyword's failure: the public code and message ride in `params` (see leafOf). */
function report(fn: object, keyword: string, params: { code: string; message: string; at?: string }): false {
  (fn as { errors?: Partial<ErrorObject>[] }).errors = [{ keyword, params }];
  return false;
}

function createAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    verbose: true,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: 'all',
    useDefaults: true,
    allowUnionTypes: true,
    strict: true,
    strictRequired: false,
    strictTuples: false,
  });
  ajv.addFormat('snowflake', { type: 'string', validate: (v: string) => isSnowflake(v) });
  ajv.addKeyword({ keyword: KEYWORDS.error, schemaType: 'object' });
  ajv.addKeyword({ keyword: KEYWORDS.notFound, schemaType: 'object' });
  ajv.addKeyword({
    keyword: KEYWORDS.totalLength,
    type: 'object',
    schemaType: 'number',
    errors: true,
    validate: function totalLength(max: number, data: Record<string, unknown>) {
      let total = 0;
      for (const [k, v] of Object.entries(data)) if (typeof v === 'string') total += k.length + v.length;
      if (total <= max) return true;
      return report(totalLength, KEYWORDS.totalLength, { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${max} or fewer in total length.` });
    },
  });
  ajv.addKeyword({
    keyword: KEYWORDS.httpUrl,
    type: 'string',
    schemaType: 'boolean',
    errors: true,
    validate: function httpUrl(_on: boolean, data: string) {
      let parsed: URL;
      const fail = (code: string, message: string) => report(httpUrl, KEYWORDS.httpUrl, { code, message });
      try {
        parsed = new URL(data);
      } catch {
        return fail('URL_TYPE_INVALID_URL', 'Not a well formed URL.');
      }
      if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return fail('URL_TYPE_INVALID_SCHEME', 'Scheme must be http or https.');
      return true;
    },
  });
  ajv.addKeyword({
    keyword: KEYWORDS.imageData,
    type: 'string',
    schemaType: 'boolean',
    errors: true,
    validate: function imageData(_on: boolean, data: string) {
      const m = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/]+={0,2})$/.exec(data);
      if (m && bytesAreImage(m[1]!, Buffer.from(m[2]!, 'base64'))) return true;
      return report(imageData, KEYWORDS.imageData, { code: 'IMAGE_INVALID', message: 'Invalid image data: expected a base64 data URI of a PNG, JPEG, GIF or WebP image, whose bytes are that image.' });
    },
  });
  ajv.addKeyword({
    keyword: KEYWORDS.partySize,
    type: 'array',
    schemaType: 'boolean',
    errors: true,
    validate: function partySize(_on: boolean, data: unknown[]) {
      const [current, max] = data;
      if (typeof current !== 'number' || typeof max !== 'number' || max === 0 || current <= max) return true;
      return report(partySize, KEYWORDS.partySize, { code: 'NUMBER_TYPE_MAX', message: 'Current size should be less than or equal to the max size.', at: '0' });
    },
  });
  return ajv;
}

const bodyAjv = createAjv(false);
const textAjv = createAjv(true);

/** JSON Pointer segments (`/a~1b/0`) back to keys. */
function pointerPath(pointer: string): Path {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const TYPE_ERRORS: Record<string, (data: unknown, schema: Record<string, unknown>) => [string, string]> = {
  string: () => ['BASE_TYPE_STRING', 'Must be a string.'],
  integer: (v) => ['NUMBER_TYPE_COERCE', `Value "${String(v)}" is not int.`],
  number: (v) => ['NUMBER_TYPE_COERCE', `Value "${String(v)}" is not a number.`],
  boolean: () => ['BASE_TYPE_BOOLEAN', 'Must be either true or false.'],
  array: () => ['BASE_TYPE_ARRAY', 'Must be an array.'],
  object: (_v, s) =>
    s.patternProperties || (s.additionalProperties && typeof s.additionalProperties === 'object')
      ? ['DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType.']
      : ['MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType.'],
};

/** One Ajv error in the public vocabulary, or undefined for errors another one already covers. */
function leafOf(err: ErrorObject): Leaf | undefined {
  // Errors inside `propertyNames` are reported once, by the propertyNames error itself.
  if ((err as { propertyName?: string }).propertyName !== undefined) return undefined;
  const path = pointerPath(err.instancePath);
  const schema = (err.parentSchema ?? {}) as Record<string, unknown>;
  const params = err.params as Record<string, unknown>;
  if (typeof params.code === 'string') {
    return { path: typeof params.at === 'string' ? [...path, params.at] : path, code: params.code, message: String(params.message) };
  }
  if (err.keyword === 'required') return { path: [...path, String(params.missingProperty)], code: 'BASE_TYPE_REQUIRED', message: 'This field is required' };
  if (err.keyword === 'propertyNames') {
    const max = (schema.propertyNames as { maxLength?: number } | undefined)?.maxLength;
    return { path: [...path, String(params.propertyName)], code: 'BASE_TYPE_MAX_LENGTH', message: `Keys must be ${max ?? 0} or fewer in length.` };
  }
  const custom = schema[KEYWORDS.error] as { code: string; message: string } | undefined;
  if (custom) return { path, code: custom.code, message: custom.message };
  if (schema.format === 'snowflake') return { path, code: 'NUMBER_TYPE_COERCE', message: `Value "${String(err.data)}" is not snowflake.` };
  if (Array.isArray(schema.enum)) {
    return { path, code: 'BASE_TYPE_CHOICES', message: `Value must be one of {${schema.enum.filter((v) => v !== null).join(', ')}}.` };
  }
  switch (err.keyword) {
    case 'type': {
      const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((t) => t !== 'null') as string[];
      const [code, message] = (TYPE_ERRORS[types[0] ?? 'object'] ?? TYPE_ERRORS.object!)(err.data, schema);
      return { path, code, message };
    }
    case 'minLength':
    case 'maxLength':
      return { path, code: 'BASE_TYPE_BAD_LENGTH', message: `Must be between ${Number(schema.minLength ?? 0)} and ${Number(schema.maxLength)} in length.` };
    case 'minItems':
    case 'maxItems':
      return { path, code: 'BASE_TYPE_BAD_LENGTH', message: `Must be between ${Number(schema.minItems ?? 0)} and ${Number(schema.maxItems)} in length.` };
    case 'maxProperties':
      return { path, code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${Number(schema.maxProperties)} or fewer in length.` };
    case 'minimum':
      return { path, code: 'NUMBER_TYPE_MIN', message: `Int value should be greater than or equal to ${Number(schema.minimum)}.` };
    case 'maximum':
      return { path, code: 'NUMBER_TYPE_MAX', message: `Int value should be less than or equal to ${Number(schema.maximum)}.` };
    case 'pattern':
      return { path, code: 'STRING_TYPE_REGEX', message: 'String value did not match validator regex.' };
    case 'const':
      return { path, code: 'BASE_TYPE_CHOICES', message: `Value must be one of {${String(schema.const)}}.` };
    default:
      return { path, code: 'BASE_TYPE_INVALID', message: 'Invalid value.' };
  }
}

/**
 * A union (`anyOf`, e.g. `Type.Union` of literals) reports once, for the union: a union of
 * constants is a choice among all of them, not "must be 0" from its first branch; for other
 * unions the first branch's error stands (`string | null` given a number: BASE_TYPE_STRING).
 */
function leavesOf(errors: readonly ErrorObject[]): Leaf[] {
  const out: Leaf[] = [];
  const unions = errors.filter((e) => e.keyword === 'anyOf');
  for (const u of unions) {
    const branches = ((u.parentSchema as { anyOf?: { const?: unknown }[] } | undefined)?.anyOf ?? []) as { const?: unknown }[];
    if (branches.length > 0 && branches.every((b) => b && 'const' in b)) {
      out.push({ path: pointerPath(u.instancePath), code: 'BASE_TYPE_CHOICES', message: `Value must be one of {${branches.map((b) => String(b.const)).join(', ')}}.` });
    }
  }
  for (const e of errors) {
    if (e.keyword === 'anyOf') continue;
    const leaf = leafOf(e);
    if (leaf) out.push(leaf);
  }
  return out;
}

/**
 * Builds the error tree. One error per field, the first Ajv found (type before length before
 * pattern), as the public API reports one per leaf; an array whose length is wrong reports that
 * alone, not also each of its items. Keys are set as own properties on prototype-less objects,
 * so no key a caller sends can reach a prototype.
 */
export function errorTree(leaves: Leaf[]): FieldErrorTree | undefined {
  const byPath = new Map<string, Leaf>();
  for (const leaf of leaves) {
    const key = JSON.stringify(leaf.path);
    if (!byPath.has(key)) byPath.set(key, leaf);
  }
  const lengthFailed = [...byPath.values()].filter((l) => l.code === 'BASE_TYPE_BAD_LENGTH' || l.code === 'BASE_TYPE_ARRAY').map((l) => l.path);
  const kept = [...byPath.values()].filter((l) => !lengthFailed.some((p) => p.length < l.path.length && p.every((k, i) => l.path[i] === k)));
  if (kept.length === 0) return undefined;
  const tree: FieldErrorTree = Object.create(null);
  for (const leaf of kept) {
    let node = tree as Record<string, unknown>;
    for (const key of leaf.path) {
      if (!Object.prototype.hasOwnProperty.call(node, key)) Object.defineProperty(node, key, { value: Object.create(null), enumerable: true, writable: true, configurable: true });
      node = node[key] as Record<string, unknown>;
    }
    if (!Object.prototype.hasOwnProperty.call(node, '_errors')) node._errors = [];
    (node._errors as { code: string; message: string }[]).push({ code: leaf.code, message: leaf.message });
  }
  return tree;
}

/**
 * Security fix 6: strings must be well-formed UTF-16 (a lone surrogate would be stored as U+FFFD,
 * so what was acknowledged would not be what is stored), and no object may carry a `__proto__`
 * key (a plain-object copy would silently drop it). Both are refused, anywhere in the value,
 * known field or not. A bad key is reported on the object that holds it.
 */
/** With the `u` flag a surrogate pair is one code point, so this matches only a lone half. */
const LONE_SURROGATE = /\p{Surrogate}/u;

function inspectText(value: unknown, path: Path, out: Leaf[], depth = 0): void {
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) out.push({ path, code: 'STRING_TYPE_INVALID_UNICODE', message: 'Must be valid Unicode: lone UTF-16 surrogates are not allowed.' });
    // PostgreSQL's text cannot hold U+0000 (SQLite's can): refused alike on both storages.
    else if (value.includes('\u0000')) out.push({ path, code: 'STRING_TYPE_INVALID_CHARACTER', message: 'Must not contain the NUL character (U+0000).' });
    return;
  }
  // Past 2^53 a JSON number has already been rounded by the parser: an integer nonce or bitfield
  // would be stored as a different one than was sent. Such values must come as strings.
  if (typeof value === 'number') {
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) out.push({ path, code: 'NUMBER_TYPE_MAX', message: 'Integers must be within ±(2^53 - 1); send larger ones as strings.' });
    return;
  }
  if (typeof value !== 'object' || value === null || depth > 64) return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => inspectText(v, [...path, String(i)], out, depth + 1));
    return;
  }
  for (const key of Object.keys(value)) {
    if (key === '__proto__') out.push({ path, code: 'DICT_TYPE_RESERVED_KEY', message: 'The key "__proto__" is not allowed.' });
    else if (LONE_SURROGATE.test(key)) out.push({ path, code: 'STRING_TYPE_INVALID_UNICODE', message: 'Keys must be valid Unicode: lone UTF-16 surrogates are not allowed.' });
    else if (key.includes('\u0000')) out.push({ path, code: 'STRING_TYPE_INVALID_CHARACTER', message: 'Keys must not contain the NUL character (U+0000).' });
    inspectText((value as Record<string, unknown>)[key], !LONE_SURROGATE.test(key) && key !== '__proto__' && !key.includes('\u0000') ? [...path, key] : path, out, depth + 1);
  }
}

function firstNotFound(errors: ErrorObject[]): ApiError {
  for (const e of errors) {
    const nf = (e.parentSchema as Record<string, unknown> | undefined)?.[KEYWORDS.notFound] as { code: number; message: string } | undefined;
    if (nf) return new ApiError(404, nf.code, nf.message);
  }
  return Errors.notFound();
}

export type HttpPart = 'body' | 'querystring' | 'params' | 'headers';

/** A compiled check: the (possibly coerced and trimmed) value, or the ApiError to answer. */
export type Checker = (value: unknown) => { value: unknown } | { error: ApiError };

/**
 * Compiled once per schema object and part: route schemas are module constants, and every server
 * started in one process (tests, the cluster launcher) would otherwise compile them all again.
 */
const compiled: Record<HttpPart, WeakMap<object, Checker>> = { body: new WeakMap(), querystring: new WeakMap(), params: new WeakMap(), headers: new WeakMap() };

export function compileChecker(schema: object, part: HttpPart): Checker {
  const cached = compiled[part].get(schema);
  if (cached) return cached;
  const checker = buildChecker(schema, part);
  compiled[part].set(schema, checker);
  return checker;
}

function buildChecker(schema: object, part: HttpPart): Checker {
  const validate = (part === 'body' ? bodyAjv : textAjv).compile(schema);
  return (value) => {
    const leaves: Leaf[] = [];
    inspectText(value, [], leaves);
    // Ajv changes the value in place (coerced query values, dropped unknown fields).
    const ok = validate(value);
    if (ok && leaves.length === 0) return { value };
    const errors = validate.errors ?? [];
    // A path parameter that cannot be an ID names nothing: the resource's 404, as before schemas.
    if (part === 'params') return { error: firstNotFound(errors) };
    leaves.push(...leavesOf(errors));
    return { error: Errors.invalidForm(errorTree(leaves) ?? Object.assign(Object.create(null), { _errors: [{ code: 'BASE_TYPE_INVALID', message: 'Invalid value.' }] })) };
  };
}

/**
 * Ajv errors that reached the error handler some other way (a route with its own Ajv-based
 * compiler): the same 50035 tree. Our compiler answers ApiErrors itself.
 */
export function formErrorOf(errors: readonly ErrorObject[]): ApiError {
  const leaves = leavesOf(errors);
  return Errors.invalidForm(errorTree(leaves) ?? Object.assign(Object.create(null), { _errors: [{ code: 'BASE_TYPE_INVALID', message: 'Invalid value.' }] }));
}

/** Fastify's validator compiler for every route (set in createHttpApp). */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = compileChecker(schema, (httpPart ?? 'body') as HttpPart);
  return (data: unknown) => check(data) as never;
};

/**
 * For schemas that describe input which its own protocol answers (OAuth2's RFC 6749 errors, the
 * HTML pages' re-rendered forms): the schema documents the input, the handler checks it.
 */
export const describeOnly: FastifySchemaCompiler<TSchema> = () => () => true;

/**
 * The same checks outside HTTP (Gateway op 3): the checked value, or throws the 50035 ApiError.
 */
export function parseWith<T extends TSchema>(schema: T, value: unknown): Static<T> {
  const r = compileChecker(schema, 'body')(value);
  if ('error' in r) throw r.error;
  return r.value as Static<T>;
}
