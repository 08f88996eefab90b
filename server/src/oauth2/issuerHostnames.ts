import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * Strict hostname rules for OIDC issuers and their key sets (spec, Authentication 5: stricter
 * hostname checks; DESIGN.md security rules). In production an issuer or JWKS URL must be:
 * - https, on the default port, with no user info, query or fragment;
 * - a fully qualified DNS name of at least two labels, made of [a-z0-9-] labels that neither
 *   start nor end with '-', with an alphabetic top-level label: no IP literals, no single-label
 *   names, no trailing dot, no 'localhost' or the special-use suffixes (.localhost, .local,
 *   .internal, .home.arpa, .test, .invalid, .example, .onion);
 * - resolving only to public unicast addresses (no loopback, private, link-local, CGNAT,
 *   multicast or reserved ranges), checked right before each fetch.
 * Redirects are never followed (the fetches use redirect: 'manual' and treat a 3xx as failure).
 *
 * Tests and local development run their issuer on 127.0.0.1 over http: that is allowed only
 * when the server is started with `accounts.allowLoopbackOidcIssuers`, and then only for
 * http(s)://127.0.0.1, [::1] or localhost on any port.
 */
const SPECIAL_SUFFIXES = ['localhost', 'local', 'internal', 'home.arpa', 'test', 'invalid', 'example', 'onion'];
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export function strictHostnameOk(hostname: string): boolean {
  if (hostname.length > 253 || hostname.endsWith('.') || isIP(hostname.replace(/^\[|\]$/g, '')) !== 0) return false;
  const labels = hostname.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return false;
  if (!/^[a-z]{2,63}$/.test(labels.at(-1)!)) return false;
  return !SPECIAL_SUFFIXES.some((s) => hostname === s || hostname.endsWith(`.${s}`));
}

export function isLoopbackHost(hostname: string): boolean {
  return hostname === '127.0.0.1' || hostname === '[::1]' || hostname === 'localhost';
}

/** Whether `raw` may be fetched as an issuer or JWKS URL under the rules above. */
export function issuerUrlAllowed(raw: string, allowLoopback: boolean): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.username || url.password || url.hash) return undefined;
  if (allowLoopback && isLoopbackHost(url.hostname) && (url.protocol === 'http:' || url.protocol === 'https:')) return url;
  if (url.protocol !== 'https:' || url.port !== '') return undefined;
  return strictHostnameOk(url.hostname) ? url : undefined;
}

/** True when every address the name resolves to is public unicast. */
export async function resolvesToPublicAddresses(hostname: string): Promise<boolean> {
  try {
    const addrs = await lookup(hostname, { all: true, verbatim: true });
    return addrs.length > 0 && addrs.every((a) => isPublicAddress(a.address));
  } catch {
    return false;
  }
}

export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 4) {
    const [a, b] = address.split('.').map(Number) as [number, number];
    if (a === 0 || a === 10 || a === 127 || a >= 224) return false;
    if (a === 100 && b >= 64 && b <= 127) return false; // CGNAT
    if (a === 169 && b === 254) return false;
    if (a === 172 && b >= 16 && b <= 31) return false;
    if (a === 192 && (b === 168 || b === 0)) return false;
    if (a === 198 && (b === 18 || b === 19)) return false;
    return true;
  }
  const v6 = address.toLowerCase();
  if (v6 === '::' || v6 === '::1') return false;
  if (v6.startsWith('::ffff:')) return isPublicAddress(v6.slice(7));
  return !/^(fc|fd|fe8|fe9|fea|feb|ff)/.test(v6);
}
