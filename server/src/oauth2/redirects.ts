/**
 * Redirect URI rules of the authorize endpoint:
 * - an exact match with a URI registered for the application;
 * - a loopback URI (http://127.0.0.1 or http://[::1]) matches a registered loopback URI with any
 *   port, as RFC 8252 7.3 asks for native apps that listen on an ephemeral port (the native SDK
 *   registers http://127.0.0.1/callback);
 * - the custom-scheme form `<scheme>:/authorize/callback` (spec, AuthorizationArgs
 *   CustomSchemeParam): the default scheme `social-layer-<application id>` is always allowed for
 *   the application, other schemes only when registered.
 * Nothing is matched by prefix, and fragments are refused (RFC 6749 3.1.2).
 */
export const CUSTOM_SCHEME_PREFIX = 'social-layer';
export const CUSTOM_SCHEME_PATH = ':/authorize/callback';

export function defaultCustomSchemeRedirect(applicationId: string): string {
  return `${CUSTOM_SCHEME_PREFIX}-${applicationId}${CUSTOM_SCHEME_PATH}`;
}

const SCHEME = /^[a-z][a-z0-9+.-]*$/;

export function redirectUriAllowed(uri: string, applicationId: string, registered: string[]): boolean {
  if (uri.length > 512 || uri.includes('#')) return false;
  if (registered.includes(uri)) return true;
  if (uri === defaultCustomSchemeRedirect(applicationId)) return true;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === '[::1]') && !url.username && !url.password) {
    const portless = `${url.protocol}//${url.hostname}${url.pathname}${url.search}`;
    return registered.some((r) => r === portless || portlessOf(r) === portless);
  }
  return false;
}

function portlessOf(uri: string): string | undefined {
  try {
    const u = new URL(uri);
    if (u.protocol !== 'http:' || (u.hostname !== '127.0.0.1' && u.hostname !== '[::1]')) return undefined;
    return `${u.protocol}//${u.hostname}${u.pathname}${u.search}`;
  } catch {
    return undefined;
  }
}

/** True when a string may be registered as a redirect URI (http(s) URLs or `<scheme>:/authorize/callback`). */
export function registrableRedirectUri(uri: string): boolean {
  if (uri.length > 512 || uri.includes('#')) return false;
  if (uri.endsWith(CUSTOM_SCHEME_PATH)) return SCHEME.test(uri.slice(0, -CUSTOM_SCHEME_PATH.length));
  try {
    const u = new URL(uri);
    return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password;
  } catch {
    return false;
  }
}

/** Adds the response parameters to a redirect URI, keeping its own query. */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}
