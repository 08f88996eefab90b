import { createHash, type JsonWebKey } from 'node:crypto';
import { ApiErrorCode } from '@social-layer/protocol';
import { ApiError } from '../errors/ApiError.ts';
import type { Logger } from '../log/Logger.ts';
import { issuerUrlAllowed, isLoopbackHost, resolvesToPublicAddresses } from './issuerHostnames.ts';
import { decodeJwt, verifyWithJwk } from './jwt.ts';

export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  /** The stable external ID we key the provisional account on: a hash of issuer and subject. */
  externalId: string;
  name?: string;
  /** The `preferred_username` claim, for the identity's application profile. */
  username?: string;
  /** The `picture` claim (a URL), for the identity's application profile. */
  picture?: string;
}

const MAX_BODY = 256 * 1024;
const FETCH_TIMEOUT_MS = 5000;
const CACHE_MS = 5 * 60_000;
const REFETCH_MIN_MS = 30_000;
const LEEWAY_S = 30;
const MAX_AGE_S = 7 * 24 * 3600;

const fail = (code: number, message: string, status = 400) => new ApiError(status, code, message);

/**
 * Checks an external OIDC ID token (provisional accounts, spec Authentication 5) against the
 * issuers an application configured: issuer and audience exact, signature with a key from the
 * issuer's JWKS, not expired and issued within a week. Discovery and key fetches follow no
 * redirects and obey the strict hostname rules of issuerHostnames.ts.
 */
export class OidcVerifier {
  private readonly jwksCache = new Map<string, { keys: JsonWebKey[]; fetchedAt: number }>();

  constructor(private readonly allowLoopback: boolean, private readonly log: Logger) {}

  async verify(token: string, issuers: { issuer: string; audience: string }[], now = Date.now()): Promise<VerifiedIdentity> {
    const parts = decodeJwt(token);
    if (!parts) throw fail(ApiErrorCode.InvalidOidcJwt, 'Invalid OIDC JWT');
    const { header, payload } = parts;
    if (typeof header.kid !== 'string' || header.kid.length === 0) throw fail(ApiErrorCode.MissingKid, 'OIDC JWT is missing the kid header');
    const config = issuers.find((i) => i.issuer === payload.iss);
    if (!config) throw fail(ApiErrorCode.InvalidIssuer, 'Invalid issuer');
    const key = await this.key(config.issuer, header.kid);
    if (!key || !verifyWithJwk(parts, key)) throw fail(ApiErrorCode.InvalidOidcJwt, 'Invalid OIDC JWT signature');
    const aud = payload.aud;
    if (!(aud === config.audience || (Array.isArray(aud) && aud.includes(config.audience)))) throw fail(ApiErrorCode.InvalidAudience, 'Invalid audience');
    const nowS = Math.floor(now / 1000);
    if (typeof payload.exp !== 'number' || payload.exp + LEEWAY_S <= nowS) throw fail(ApiErrorCode.ExpiredIdToken, 'ID token expired');
    if (typeof payload.iat !== 'number' || payload.iat < nowS - MAX_AGE_S) throw fail(ApiErrorCode.IdTokenTooOld, 'ID token was issued more than a week ago');
    if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > 255) throw fail(ApiErrorCode.InvalidOidcJwt, 'Invalid OIDC JWT subject');
    const name = typeof payload.name === 'string' ? payload.name : typeof payload.preferred_username === 'string' ? payload.preferred_username : undefined;
    const username = typeof payload.preferred_username === 'string' ? payload.preferred_username : undefined;
    const picture = typeof payload.picture === 'string' ? payload.picture : undefined;
    return {
      issuer: config.issuer,
      subject: payload.sub,
      externalId: createHash('sha256').update(`${config.issuer}\n${payload.sub}`).digest('hex'),
      ...(name ? { name } : {}),
      ...(username ? { username } : {}),
      ...(picture ? { picture } : {}),
    };
  }

  private async key(issuer: string, kid: string): Promise<JsonWebKey | undefined> {
    const jwksUri = await this.discover(issuer);
    let cached = this.jwksCache.get(jwksUri);
    const age = cached ? Date.now() - cached.fetchedAt : Infinity;
    const find = () => cached?.keys.find((k) => (k as { kid?: string }).kid === kid && (k as { use?: string }).use !== 'enc');
    // Refetch when stale, or when the kid is unknown (the issuer rotated keys), but not more than once per REFETCH_MIN_MS.
    if (age > CACHE_MS || (!find() && age > REFETCH_MIN_MS)) {
      const body = await this.fetchJson(jwksUri, ApiErrorCode.JwksNotFound, 'JWKS not found');
      const keys = (body as { keys?: unknown }).keys;
      if (!Array.isArray(keys)) throw fail(ApiErrorCode.JwksNotFound, 'JWKS not found');
      cached = { keys: keys.filter((k): k is JsonWebKey => typeof k === 'object' && k !== null), fetchedAt: Date.now() };
      this.jwksCache.set(jwksUri, cached);
    }
    return find();
  }

  /** The issuer's jwks_uri from its discovery document, which must name the same issuer. */
  private async discover(issuer: string): Promise<string> {
    const base = issuerUrlAllowed(issuer, this.allowLoopback);
    if (!base) throw fail(ApiErrorCode.InvalidIssuer, 'Issuer URL is not allowed');
    const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const config = (await this.fetchJson(url, ApiErrorCode.OidcConfigNotFound, 'OIDC configuration not found')) as { issuer?: unknown; jwks_uri?: unknown };
    if (config.issuer !== issuer || typeof config.jwks_uri !== 'string') throw fail(ApiErrorCode.OidcConfigNotFound, 'OIDC configuration not found');
    if (!issuerUrlAllowed(config.jwks_uri, this.allowLoopback)) throw fail(ApiErrorCode.JwksNotFound, 'JWKS URL is not allowed');
    return config.jwks_uri;
  }

  private async fetchJson(raw: string, code: number, message: string): Promise<unknown> {
    const url = issuerUrlAllowed(raw, this.allowLoopback);
    if (!url) throw fail(code, message);
    if (!(this.allowLoopback && isLoopbackHost(url.hostname)) && !(await resolvesToPublicAddresses(url.hostname))) throw fail(code, message);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS);
    try {
      // redirect: 'manual' hands back the 3xx itself: a redirect is a failure, never followed.
      const res = await fetch(url, { redirect: 'manual', signal: controller.signal, headers: { accept: 'application/json' } });
      if (res.status !== 200) {
        this.log.warn({ host: url.host, path: url.pathname, status: res.status }, 'oidc fetch refused');
        await res.body?.cancel();
        throw fail(code, message);
      }
      const text = await res.text();
      if (text.length > MAX_BODY) throw fail(code, message);
      return JSON.parse(text) as unknown;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      this.log.warn({ host: url.host, path: url.pathname, err }, 'oidc fetch failed');
      throw fail(code, message);
    } finally {
      clearTimeout(timer);
    }
  }
}
