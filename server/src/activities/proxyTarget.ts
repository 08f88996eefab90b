import { matchMapping, targetBase, type UrlMapping } from './activitySettings.ts';

/**
 * The upstream URL for a request on an activity's proxy host, or undefined when the request may
 * not reach any mapped target. Refused: anything but an origin-form path (absolute-form
 * `GET http://elsewhere/`, `//host`), backslashes, control characters, encoded slashes,
 * backslashes and NULs (`%2F`, `%5C`, `%00`), `.`/`..` segments in any encoding, empty segments.
 * `/.proxy/...` and `/...` resolve alike (protocols.md 6.7). The result is checked again after
 * URL parsing: same origin as the mapping's target and inside its path.
 */
export function resolveProxyUrl(mappings: readonly UrlMapping[], rawUrl: string): URL | undefined {
  if (!rawUrl.startsWith('/') || rawUrl.startsWith('//')) return undefined;
  const q = rawUrl.indexOf('?');
  let path = q >= 0 ? rawUrl.slice(0, q) : rawUrl;
  const query = q >= 0 ? rawUrl.slice(q) : '';
  if (/[\\\u0000-\u0020\u007f#]/.test(path) || /%(2f|5c|00)/i.test(path) || /[\u0000-\u001f\u007f#]/.test(query)) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (decoded.split('/').some((s) => s === '.' || s === '..') || path.slice(1).split('/').slice(0, -1).some((s) => s === '')) return undefined;
  if (path === '/.proxy' || path.startsWith('/.proxy/')) path = path.slice('/.proxy'.length) || '/';
  const hit = matchMapping(mappings, path);
  if (!hit) return undefined;
  const base = targetBase(hit.mapping.target);
  const basePath = base.pathname === '/' ? '' : base.pathname;
  const joined = basePath + hit.rest || '/';
  let out: URL;
  try {
    out = new URL(base.origin + joined + query);
  } catch {
    return undefined;
  }
  if (out.origin !== base.origin) return undefined;
  if (basePath && out.pathname !== basePath && !out.pathname.startsWith(`${basePath}/`)) return undefined;
  return out;
}

/** The application ID when `hostHeader` names `<application_id>.<proxy host>` (any port). */
export function proxiedApplicationId(hostHeader: string | undefined, proxyHostname: string): string | undefined {
  if (!hostHeader) return undefined;
  const host = hostHeader.toLowerCase().replace(/:\d{1,5}$/, '');
  const suffix = `.${proxyHostname.toLowerCase()}`;
  if (!host.endsWith(suffix)) return undefined;
  const id = host.slice(0, -suffix.length);
  return /^\d{1,20}$/.test(id) ? id : undefined;
}

/** RFC 9110 7.6.1 hop-by-hop fields, plus the names a Connection header lists: never forwarded either way. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

export function stripHopByHop<T extends Record<string, unknown>>(headers: T): T {
  const out: Record<string, unknown> = { ...headers };
  const listed = typeof out.connection === 'string' ? out.connection.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean) : [];
  for (const name of [...HOP_BY_HOP, ...listed]) delete out[name];
  return out as T;
}

/**
 * Set-Cookie from a target names the target's domain, which the browser would refuse on the proxy
 * host: the Domain attribute is dropped so the cookie belongs to `<application_id>.<proxy host>`
 * alone; SameSite=None; Secure; Partitioned pass through, so a cookie works inside the iframe.
 */
export function rewriteSetCookie(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : [value];
  return list.map((c) => c.split(';').filter((part, i) => i === 0 || !/^\s*domain\s*=/i.test(part)).join(';'));
}

/**
 * The policy every proxied response carries (besides the target's own, which browsers enforce
 * too): everything from the proxy origin only, as the public platform does, so an activity cannot
 * load or call an unmapped origin directly; frames only inside the platform's web app.
 */
export function activityCsp(proxyOrigin: string, platformOrigin: string): string {
  const wsOrigin = proxyOrigin.replace(/^http/, 'ws');
  return [
    `default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:`,
    `connect-src 'self' ${wsOrigin}`,
    `frame-ancestors 'self' ${platformOrigin}`,
  ].join('; ');
}
