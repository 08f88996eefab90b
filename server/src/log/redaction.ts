/**
 * Credential redaction for every log line (DESIGN.md security rules: a token never reaches a log
 * at any level). Two layers: pino `redact` paths censor credential fields by name wherever a
 * caller puts them in a log object, and `redact()` masks token-shaped text that slips into a
 * message, an error or a string field (an authorize redirect carries `code=`, an error message
 * may quote a header).
 */

/** Token-shaped strings: our 43-char base64url tokens and anything after Bearer/Bot/Basic. */
const TOKEN_PATTERNS: RegExp[] = [
  /\b(Bearer|Bot|Basic)\s+[A-Za-z0-9._~+/=-]+/gi,
  /\b[A-Za-z0-9_-]{43}\b/g,
];

/** OAuth2 and account parameters that hold credentials, in a query string, a form or JSON. */
export const SECRET_PARAMS = [
  'code', 'device_code', 'user_code', 'code_verifier', 'token', 'access_token', 'refresh_token', 'id_token',
  'subject_token', 'client_secret', 'external_auth_token', 'password',
] as const;
const SECRET_ALTERNATION = SECRET_PARAMS.join('|');
const SECRET_QUERY = new RegExp(`((?:^|[?&\\s])(?:${SECRET_ALTERNATION})=)[^&#\\s"']+`, 'gi');
const SECRET_JSON = new RegExp(`("(?:${SECRET_ALTERNATION})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gi');

export const CENSOR = '[redacted]';

/**
 * The shape of a path no route matched, for its log line: words (letters, `@`, `.`, `-`, `_`, up to
 * 32 characters) stay, IDs of up to 20 digits become `:id`, and every other segment `:segment`. By
 * shape, not length: an interaction token is 64 characters and an unversioned or misspelt path
 * can hold any credential.
 */
export function pathShape(path: string): string {
  return path
    .split('/')
    .map((segment) => (segment === '' || /^[A-Za-z@._-]{1,32}$/.test(segment) || /^v\d{1,2}$/.test(segment) ? segment : /^\d{1,20}$/.test(segment) ? ':id' : ':segment'))
    .join('/');
}

/** Masks credentials in free text. */
export function redact(text: string): string {
  let out = text;
  for (const re of TOKEN_PATTERNS) out = out.replace(re, (m) => (/^(bearer|bot|basic)\s/i.test(m) ? `${m.split(/\s+/)[0]} ${CENSOR}` : CENSOR));
  return out.replace(SECRET_QUERY, `$1${CENSOR}`).replace(SECRET_JSON, `$1"${CENSOR}"`);
}

/**
 * pino `redact` paths: the credential parameters at the top of a log object and one or two levels
 * down (`{ form: { password } }`, `{ body: { tokens: { access_token } } }`), and the headers that
 * carry credentials. `code` is left out: a log line's or error body's `code` (50035,
 * `invalid_grant`) is not a secret, and an authorization code travels in a query or form, which
 * the string pass masks.
 */
export const REDACT_PATHS: string[] = [
  ...SECRET_PARAMS.filter((p) => p !== 'code').flatMap((p) => [p, `*.${p}`, `*.*.${p}`]),
  'authorization', 'cookie',
  'headers.authorization', 'headers.cookie', 'headers["set-cookie"]',
  '*.headers.authorization', '*.headers.cookie', '*.headers["set-cookie"]',
];

/** Applies `redact()` to every string inside a log object (copying, never mutating the caller's). */
export function redactStrings(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return serializeError(value);
  if (Array.isArray(value)) return value.map((v) => redactStrings(v, depth + 1));
  // Class instances (a fastify request) are left to their serializers, which mask what they keep.
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = redactStrings(v, depth + 1);
  return out;
}

/** Errors keep type, message, code and stack, each masked; never their other own properties (a request, a config). */
export function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return typeof err === 'string' ? redact(err) : err;
  const code = (err as { code?: unknown }).code;
  return {
    type: err.name,
    message: redact(err.message),
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(err.stack ? { stack: redact(err.stack) } : {}),
  };
}
