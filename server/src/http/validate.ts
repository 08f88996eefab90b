import { Limits, type FieldErrorTree, type Metadata, isSnowflake } from '@social-layer/protocol';
import { Errors } from './ApiError.ts';

/**
 * A small validator that reports every problem at once, in the public error-tree shape: the
 * tree mirrors the request, leaves are `{_errors: [{code, message}]}`, array items are keyed by
 * index strings (protocols.md 2.2). Unknown fields are ignored, as the public API does.
 */
export type Path = (string | number)[];

export class FormErrors {
  readonly tree: FieldErrorTree = {};
  count = 0;

  add(path: Path, code: string, message: string): void {
    let node: FieldErrorTree = this.tree;
    for (const key of path) {
      const k = String(key);
      node[k] ??= {};
      node = node[k] as FieldErrorTree;
    }
    const list = ((node._errors as { code: string; message: string }[] | undefined) ??= []);
    list.push({ code, message });
    this.count++;
  }

  throwIfAny(): void {
    if (this.count > 0) throw Errors.invalidForm(this.tree);
  }
}

export type Check<T> = (value: unknown, path: Path, errs: FormErrors) => T | undefined;

const ABSENT = Symbol('absent');

export function str(opts: { min?: number; max: number; pattern?: RegExp; patternMessage?: string }): Check<string> {
  return (v, path, errs) => {
    if (typeof v !== 'string') return void errs.add(path, 'BASE_TYPE_STRING', 'Must be a string.');
    const min = opts.min ?? 0;
    if (v.length < min || v.length > opts.max) return void errs.add(path, 'BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${opts.max} in length.`);
    if (opts.pattern && !opts.pattern.test(v)) return void errs.add(path, 'STRING_TYPE_REGEX', opts.patternMessage ?? 'String value did not match validator regex.');
    return v;
  };
}

export function int(opts: { min: number; max: number }): Check<number> {
  return (v, path, errs) => {
    if (typeof v !== 'number' || !Number.isInteger(v)) return void errs.add(path, 'NUMBER_TYPE_COERCE', `Value "${String(v)}" is not int.`);
    if (v < opts.min) return void errs.add(path, 'NUMBER_TYPE_MIN', `Int value should be greater than or equal to ${opts.min}.`);
    if (v > opts.max) return void errs.add(path, 'NUMBER_TYPE_MAX', `Int value should be less than or equal to ${opts.max}.`);
    return v;
  };
}

export const bool: Check<boolean> = (v, path, errs) => {
  if (typeof v !== 'boolean') return void errs.add(path, 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
  return v;
};

export const snowflake: Check<string> = (v, path, errs) => {
  if (!isSnowflake(v)) return void errs.add(path, 'NUMBER_TYPE_COERCE', `Value "${String(v)}" is not snowflake.`);
  return v;
};

/** A string-to-string map whose keys and values together stay within the metadata budget. */
export const metadata: Check<Metadata> = (v, path, errs) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return void errs.add(path, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType.');
  let total = 0;
  let ok = true;
  const out: Metadata = {};
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
    if (typeof val !== 'string') {
      errs.add([...path, k], 'BASE_TYPE_STRING', 'Must be a string.');
      ok = false;
      continue;
    }
    total += k.length + val.length;
    out[k] = val;
  }
  if (total > Limits.metadataMaxChars) {
    errs.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${Limits.metadataMaxChars} or fewer in total length.`);
    ok = false;
  }
  return ok ? out : undefined;
};

export function nullable<T>(check: Check<T>): Check<T | null> {
  return (v, path, errs) => (v === null ? null : check(v, path, errs));
}

export function array<T>(item: Check<T>, opts: { min: number; max: number }): Check<T[]> {
  return (v, path, errs) => {
    if (!Array.isArray(v)) return void errs.add(path, 'BASE_TYPE_ARRAY', 'Must be an array.');
    if (v.length < opts.min || v.length > opts.max) return void errs.add(path, 'BASE_TYPE_BAD_LENGTH', `Must be between ${opts.min} and ${opts.max} in length.`);
    const out: T[] = [];
    let ok = true;
    v.forEach((el, i) => {
      const r = item(el, [...path, i], errs);
      if (r === undefined) ok = false;
      else out.push(r);
    });
    return ok ? out : undefined;
  };
}

type Shape = Record<string, { check: Check<unknown>; required?: boolean }>;
type Parsed<S extends Shape> = {
  [K in keyof S as S[K]['required'] extends true ? K : never]: S[K]['check'] extends Check<infer T> ? T : never;
} & {
  [K in keyof S as S[K]['required'] extends true ? never : K]?: S[K]['check'] extends Check<infer T> ? T : never;
};

export function object<S extends Shape>(shape: S): Check<Parsed<S>> {
  return (v, path, errs) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return void errs.add(path, 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType.');
    const src = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    let ok = true;
    for (const [key, field] of Object.entries(shape)) {
      const raw = Object.prototype.hasOwnProperty.call(src, key) ? src[key] : ABSENT;
      if (raw === ABSENT || raw === undefined) {
        if (field.required) {
          errs.add([...path, key], 'BASE_TYPE_REQUIRED', 'This field is required');
          ok = false;
        }
        continue;
      }
      const r = field.check(raw, [...path, key], errs);
      if (r === undefined) ok = false;
      else out[key] = r;
    }
    return ok ? (out as Parsed<S>) : undefined;
  };
}

/** Validates a whole request body; throws 50035 with every problem found. */
export function parse<T>(check: Check<T>, body: unknown): T {
  const errs = new FormErrors();
  const out = check(body, [], errs);
  errs.throwIfAny();
  return out as T;
}
