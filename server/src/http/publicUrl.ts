/**
 * The platform's public origin, from configuration (`--public-url`, SOCIAL_LAYER_PUBLIC_URL), or
 * the listen address when unset. Every URL the server hands out (apiBase, the Gateway URL, the
 * OIDC issuer and endpoints, device verification URIs) is built from it, never from a request's
 * Host or X-Forwarded-* headers: those are the caller's to choose, so a forged Host would have
 * put an attacker's origin into tokens' `iss`, discovery documents and links (issue 9, fix 7).
 */
export class PublicUrl {
  private origin: URL | undefined;

  constructor(configured: string | undefined) {
    if (configured !== undefined && configured !== '') this.origin = parsePublicUrl(configured);
  }

  /** Called once the server listens: the default when nothing was configured. */
  listening(host: string, port: number, secure = false): void {
    // A wildcard listen address names no host; loopback is the one that surely reaches it.
    const named = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
    // Serving TLS: every URL handed out says https/wss (voice clients dial wss://<endpoint>).
    this.origin ??= new URL(`${secure ? 'https' : 'http'}://${named.includes(':') ? `[${named}]` : named}:${port}`);
  }

  /** http(s)://host[:port], no trailing slash. */
  http(): string {
    if (!this.origin) throw new Error('public URL read before the server listens');
    return this.origin.origin;
  }

  /** ws(s)://host[:port]/gateway. */
  gateway(): string {
    return `${this.http().replace(/^http/, 'ws')}/gateway`;
  }
}

/** An http(s) origin: no path, query, fragment or credentials, so nothing is appended wrongly. */
export function parsePublicUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`Invalid public URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`The public URL must be http(s): ${value}`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
    throw new Error(`The public URL must be an origin (scheme, host, port), without a path: ${value}`);
  }
  return url;
}
