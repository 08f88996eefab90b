import { isIP } from 'node:net';
import { addressKind } from './publicAddress.ts';

/**
 * Which URLs an application may register, in one place for every surface that takes one:
 * OAuth2 redirect URIs, webhook event URLs, interactions endpoints and activity URL mappings.
 *
 * Production refuses what a deployed platform must not call or send users to: plain http
 * (except loopback redirect URIs, which RFC 8252 allows for native apps on the user's own
 * machine) and, for URLs the server itself calls, loopback, private and link-local hosts (a
 * registered `http://127.0.0.1:6379` would let any developer aim the platform at its own
 * internals). Development mode (`--dev`, `SOCIAL_LAYER_DEV=1`) allows both, so a game, a
 * webhook receiver or an interactions bot can run on the developer's machine.
 */
export type UrlKind = 'redirect_uri' | 'webhook' | 'interactions_endpoint' | 'activity_url_mapping';

export type UrlVerdict = { ok: true; value: string } | { ok: false; code: string; message: string };

export const MAX_URL_LENGTH = 512;

/** `<scheme>:/authorize/callback`, the custom-scheme redirect of the native SDK. */
const CUSTOM_SCHEME_REDIRECT = /^[a-z][a-z0-9+.-]*:\/authorize\/callback$/;

export class UrlPolicy {
  constructor(readonly dev: boolean) {}

  check(kind: UrlKind, value: string): UrlVerdict {
    if (value.length === 0 || value.length > MAX_URL_LENGTH) return bad('BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${MAX_URL_LENGTH} in length.`);
    if (/[\u0000-\u0020\u007f]/.test(value)) return bad('URL_TYPE_INVALID_URL', 'Not a well formed URL.');
    if (kind === 'redirect_uri' && CUSTOM_SCHEME_REDIRECT.test(value)) return { ok: true, value };
    // URL mappings name a target without a scheme ("example.com/game"), as the public portal does.
    const text = kind === 'activity_url_mapping' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? `https://${value}` : value;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return bad('URL_TYPE_INVALID_URL', 'Not a well formed URL.');
    }
    if (url.username || url.password) return bad('URL_TYPE_INVALID_URL', 'URLs may not carry credentials.');
    if (url.hash || text.includes('#')) return bad('URL_TYPE_INVALID_URL', 'URLs may not carry a fragment.');
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return bad('URL_TYPE_INVALID_SCHEME', 'Scheme must be https (or http in development mode).');
    const host = hostKind(url.hostname);
    if (kind === 'redirect_uri') {
      if (url.protocol === 'https:' || host === 'loopback' || this.dev) return { ok: true, value };
      return bad('URL_TYPE_INVALID_SCHEME', 'Redirect URIs must use https, or http on a loopback address (127.0.0.1 or [::1]); other http URIs need development mode.');
    }
    if (this.dev) return { ok: true, value };
    if (url.protocol !== 'https:') return bad('URL_TYPE_INVALID_SCHEME', 'Scheme must be https; http URLs need development mode.');
    if (host !== 'public') return bad('URL_TYPE_INVALID_HOST', 'Loopback, private and link-local hosts need development mode.');
    return { ok: true, value };
  }
}

function bad(code: string, message: string): UrlVerdict {
  return { ok: false, code, message };
}

type HostKind = 'loopback' | 'private' | 'public';

/**
 * Classifies a URL's hostname (IP literals by the shared address rules, publicAddress.ts, so
 * IPv6 forms embedding an IPv4 count as what they embed; names by the special-use suffixes). A
 * trailing dot (`localhost.`, the fully qualified form) is dropped first. This is only the check
 * at save time: a name can resolve anywhere, so connections are checked again by address.
 */
export function hostKind(hostname: string): HostKind {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.+$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return 'loopback';
  if (isIP(h)) return addressKind(h) ?? 'private';
  if (h.endsWith('.local') || h.endsWith('.internal') || h.endsWith('.home.arpa') || !h.includes('.')) return 'private';
  return 'public';
}
