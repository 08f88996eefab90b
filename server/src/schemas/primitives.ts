import { type Static, type TSchema, Type } from 'typebox';
import { ApiErrorCode, Limits } from '@social-layer/protocol';
import { SchemaKeywords as K } from './validator.ts';

/**
 * Building blocks for route schemas. Each one carries the limits and the error vocabulary of the
 * public API (see validator.ts for how failures become the 50035 tree), so a route's schema is
 * also its documentation in the OpenAPI document.
 */

export const SNOWFLAKE_PATTERN = '^[0-9]{1,20}$';

/** An ID in a body or query: a decimal string below 2^64 (`NUMBER_TYPE_COERCE ... is not snowflake`). */
export const Snowflake = (description = 'Snowflake ID (a decimal string; IDs exceed 2^53)') =>
  Type.String({ format: 'snowflake', pattern: SNOWFLAKE_PATTERN, description });

/** What a path ID that cannot be an ID answers: the resource's own 404, as an unknown ID does. */
export const NotFound = {
  lobby: { code: ApiErrorCode.UnknownLobby, message: 'Unknown Lobby' },
  user: { code: ApiErrorCode.UnknownUser, message: 'Unknown User' },
  message: { code: ApiErrorCode.UnknownMessage, message: 'Unknown Message' },
  invite: { code: ApiErrorCode.UnknownInvite, message: 'Unknown Invite' },
  application: { code: ApiErrorCode.UnknownApplication, message: 'Unknown Application' },
  /** `{code: 0, message: '404: Not Found'}` */
  any: { code: ApiErrorCode.General, message: '404: Not Found' },
} as const;

/** A path ID. A value that is not a snowflake answers `notFound` (404), never 400. */
export const IdParam = (notFound: { code: number; message: string }, description?: string) =>
  Type.String({ format: 'snowflake', pattern: SNOWFLAKE_PATTERN, [K.notFound]: notFound, description: description ?? `Snowflake ID; anything else answers ${notFound.code} (404)` });

/** A string of `min`..`max` UTF-16 units (`BASE_TYPE_BAD_LENGTH`). */
export const Str = (min: number, max: number, options: { description?: string; pattern?: string } = {}) => Type.String({ minLength: min, maxLength: max, ...options });

/** An integer in a range (`NUMBER_TYPE_COERCE`, `NUMBER_TYPE_MIN`, `NUMBER_TYPE_MAX`). */
export const Int = (min: number, max: number, description?: string) => Type.Integer({ minimum: min, maximum: max, ...(description ? { description } : {}) });

export const Bool = (description?: string) => Type.Boolean(description ? { description } : {});

/** `T | null` as a JSON Schema type list, so errors stay those of `T` (no anyOf noise). */
export function Nullable<T extends TSchema>(schema: T) {
  const { type, ...rest } = schema as unknown as { type: string | string[] };
  const types = Array.isArray(type) ? type : [type];
  const out: Record<string, unknown> = { ...rest, type: [...types, 'null'] };
  if (Array.isArray((schema as { enum?: unknown[] }).enum)) out.enum = [...(schema as unknown as { enum: unknown[] }).enum, null];
  return Type.Unsafe<Static<T> | null>(out as never);
}

/** One of fixed values (`BASE_TYPE_CHOICES`); integers or strings. */
export function Choice<const V extends number | string>(values: readonly V[], description?: string) {
  const type = typeof values[0] === 'string' ? 'string' : 'integer';
  return Type.Unsafe<V>({ type, enum: [...values], ...(description ? { description } : {}) } as never);
}

/**
 * A name of `min`..`max` characters with something besides spaces in it: names are stored trimmed,
 * so one of only spaces would be stored empty. Refused as the length it has once trimmed.
 */
export const Name = (min: number, max: number) =>
  Type.String({ minLength: min, maxLength: max, pattern: '\\S', [K.error]: { code: 'BASE_TYPE_BAD_LENGTH', message: `Must be between ${min} and ${max} in length.` } });

/** An image as a base64 data URI (PNG, JPEG, GIF or WebP) whose bytes are that image (`IMAGE_INVALID`). */
export const ImageDataUri = (maxLength: number, description?: string) =>
  Type.String({ maxLength, [K.imageData]: true, ...(description ? { description } : {}) });

/** An absolute http(s) URL of `min`..`max` characters (`URL_TYPE_INVALID_URL`, `URL_TYPE_INVALID_SCHEME`). */
export const HttpUrl = (min: number, max: number, description?: string) =>
  Type.String({ minLength: min, maxLength: max, [K.httpUrl]: true, ...(description ? { description } : {}) });

/** A dictionary of strings (`DICT_TYPE_CONVERT`; values `BASE_TYPE_STRING`). */
export function StringMap(options: { totalLength?: number; maxKeys?: number; keyMaxLength?: number; valueMaxLength?: number; valueError?: { code: string; message: string }; description?: string } = {}) {
  const value: Record<string, unknown> = { type: 'string' };
  if (options.valueMaxLength !== undefined) value.maxLength = options.valueMaxLength;
  if (options.valueError) value[K.error] = options.valueError;
  const schema: Record<string, unknown> = { type: 'object', patternProperties: { '^.*$': value } };
  if (options.totalLength !== undefined) schema[K.totalLength] = options.totalLength;
  if (options.maxKeys !== undefined) schema.maxProperties = options.maxKeys;
  if (options.keyMaxLength !== undefined) schema.propertyNames = { maxLength: options.keyMaxLength };
  if (options.description) schema.description = options.description;
  return Type.Unsafe<Record<string, string>>(schema as never);
}

/** Lobby, member and message metadata: string keys and values, at most 1000 characters in all. */
export const Metadata = () =>
  StringMap({ totalLength: Limits.metadataMaxChars, description: `String keys and values; keys and values together at most ${Limits.metadataMaxChars} characters` });

/**
 * Query-string booleans as the public API reads them (protocols.md 2.1): `true`, `True`, `1`,
 * `false`, `False`, `0`; anything else is `BASE_TYPE_BOOLEAN`. Read it with `isTrue`.
 */
export const QueryBool = (description?: string) =>
  Type.Unsafe<'true' | 'True' | '1' | 'false' | 'False' | '0'>({
    type: 'string',
    enum: ['true', 'True', '1', 'false', 'False', '0'],
    [K.error]: { code: 'BASE_TYPE_BOOLEAN', message: 'Must be either true or false.' },
    ...(description ? { description } : {}),
  } as never);
export const isTrue = (v: string | undefined): boolean => v === 'true' || v === 'True' || v === '1';

/** A request body that may be left out (or sent as JSON null): the handler reads `req.body ?? {}`. */
export function OptionalBody<T extends TSchema>(schema: T) {
  return Nullable(schema);
}

/** Documents a response shape whose TypeScript type is the protocol's own (for the handler's return type). */
export function Wire<T>(schema: TSchema) {
  return Type.Unsafe<T>(schema);
}
