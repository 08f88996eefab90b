// The public API's own OpenAPI document as test data: which documented operation a request is,
// and whether a response (status, headers, body) is one that the document describes.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { explain } from './explain.ts';
import { unknownFields } from './unknownFields.ts';

const DOC_URL = new URL('../fixtures/discord-openapi/openapi.json', import.meta.url);
export const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

export interface Operation {
  method: string;
  /** The document's path template, e.g. `/channels/{channel_id}`. */
  template: string;
  operationId: string;
  op: any;
}

/** `/channels/{channel_id}` and `/channels/:id` both read `/channels/{}`: the shape, whatever the names. */
export const pathShape = (path: string) => path.replace(/\{[^}]+\}/g, '{}').replace(/:[A-Za-z0-9_]+/g, '{}');

let cachedDoc: any;
export function contractDocument(): any {
  cachedDoc ??= JSON.parse(readFileSync(DOC_URL, 'utf8'));
  return cachedDoc;
}

/** Every documented operation, in the document's order. */
export function documentedOperations(doc = contractDocument()): Operation[] {
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries<any>(doc.paths)) {
    for (const method of METHODS) if (item[method]) ops.push({ method: method.toUpperCase(), template, operationId: item[method].operationId, op: item[method] });
  }
  return ops;
}

/**
 * The documented operations that our registered routes (`METHOD /api/v10/...` with `:params`)
 * serve, as `METHOD template` of the document: the same shape, or a route whose parameter takes
 * the document's `@` alias (`/messages/@original` is `/messages/:messageId` here, as publicly).
 */
export function implementedOperations(routes: readonly { method: string; url: string }[], doc = contractDocument()): Map<string, string> {
  const ours = routes.filter((r) => r.url.startsWith('/api/v10/')).map((r) => ({ method: r.method, path: r.url.slice('/api/v10'.length) }));
  const out = new Map<string, string>();
  for (const op of documentedOperations(doc)) {
    const key = `${op.method} ${op.template}`;
    const exact = ours.find((r) => r.method === op.method && pathShape(r.path) === pathShape(op.template));
    if (exact) {
      out.set(key, `${exact.method} /api/v10${exact.path}`);
      continue;
    }
    const docParts = op.template.split('/');
    const alias = ours.find((r) => {
      const parts = r.path.split('/');
      if (r.method !== op.method || parts.length !== docParts.length) return false;
      return parts.every((p, i) => p === docParts[i] || (p.startsWith(':') && (docParts[i]!.startsWith('{') || docParts[i]!.startsWith('@'))));
    });
    if (alias) out.set(key, `${alias.method} /api/v10${alias.path}`);
  }
  return out;
}

// ajv-formats is CommonJS with a default export; under Node's ESM loader that is the module object.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

export class Contract {
  readonly doc = contractDocument();
  readonly ajv: Ajv2020;
  private readonly matchers: { op: Operation; re: RegExp; literals: number }[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor() {
    // strict off: the document carries vendor keywords (x-discord-union) and OpenAPI-only ones.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addFormat('snowflake', /^(0|[1-9][0-9]*)$/);
    this.ajv.addFormat('nonce', true);
    this.ajv.addSchema(this.doc, 'doc');
    // Literal segments first, so `/users/@me` is not taken for `/users/{user_id}`.
    this.matchers = documentedOperations(this.doc)
      .map((op) => ({
        op,
        re: new RegExp(`^${op.template.split('/').map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/')}$`),
        literals: op.template.split('/').filter((s) => s && !s.startsWith('{')).length,
      }))
      .sort((a, b) => b.literals - a.literals);
  }

  /** The documented operation a request for `path` (after /api/v10, no query) is, if any. */
  operation(method: string, path: string): Operation | undefined {
    return this.matchers.find((m) => m.op.method === method && m.re.test(path))?.op;
  }

  /** The compiled schema at a JSON pointer into the document. */
  validator(pointer: string): ValidateFunction {
    let v = this.compiled.get(pointer);
    if (!v) {
      v = this.ajv.compile({ $ref: `doc#${pointer}` });
      this.compiled.set(pointer, v);
    }
    return v;
  }

  /** The documented response for a status: the exact code, else `4XX`; references followed. */
  response(op: Operation, status: number): { pointer: string; response: any } | undefined {
    const responses = op.op.responses;
    const key = responses[String(status)] ? String(status) : status >= 400 && status < 500 && responses['4XX'] ? '4XX' : undefined;
    if (!key) return undefined;
    let response = responses[key];
    let pointer = `/paths/${escape(op.template)}/${op.method.toLowerCase()}/responses/${key}`;
    if (response.$ref) {
      pointer = response.$ref.slice(1);
      response = this.resolve(response.$ref);
    }
    return { pointer, response };
  }

  /** The documented JSON request body schema's pointer, if the operation takes one. */
  requestBodyPointer(op: Operation): string | undefined {
    const content = op.op.requestBody?.content;
    if (!content?.['application/json']) return undefined;
    return `/paths/${escape(op.template)}/${op.method.toLowerCase()}/requestBody/content/application~1json/schema`;
  }

  resolve(ref: string): any {
    return ref
      .slice(2)
      .split('/')
      .reduce((node: any, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
  }

  /**
   * What is wrong with `body` against the schema at `pointer`: Ajv's errors, then every field the
   * schema does not list (the document lists properties; a field it does not name is one a strict
   * client may not expect), each as `Schema.field at /path`.
   */
  bodyProblems(pointer: string, body: unknown): string[] {
    const problems = new Set<string>();
    for (const e of explain(this, pointer, body)) problems.add(items(e));
    for (const u of unknownFields(this, pointer, body)) problems.add(`unknown field ${u.owner}.${u.field} at ${items(u.at)}`);
    return [...problems];
  }
}

// `/3/attachments/0/url` reads `/*/attachments/*/url`: one problem, however many items have it.
const items = (at: string) => at.replace(/\/\d+(?=\/|$|\s)/g, '/*');
const escape = (template: string) => template.replace(/~/g, '~0').replace(/\//g, '~1');
