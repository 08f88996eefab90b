import { secretMatches } from '../auth/secrets.ts';
import type { ApplicationsTable } from '../storage/schema.ts';
import type { Store } from '../storage/Store.ts';
import { OAuthErrors } from './OAuthError.ts';

export interface AuthenticatedClient {
  application: ApplicationsTable;
  /** True when the client proved its secret; public clients send only client_id. */
  confidential: boolean;
}

/**
 * Client authentication of the token, revoke and device endpoints (protocols.md 2.7): HTTP Basic
 * `client_id:client_secret`, or `client_id` (+ `client_secret`) form fields; never both
 * (RFC 6749 2.3.1). A public client sends its client_id alone.
 */
export async function authenticateClient(store: Store, authorization: string | undefined, form: URLSearchParams): Promise<AuthenticatedClient> {
  let id = form.get('client_id') ?? undefined;
  let secret = form.get('client_secret') ?? undefined;
  const basic = typeof authorization === 'string' && /^Basic\s+/i.test(authorization);
  if (basic) {
    if (form.has('client_secret')) throw OAuthErrors.invalidRequest('Use one client authentication method');
    const credentials = decodeBasic(authorization);
    if (!credentials) throw OAuthErrors.invalidClient(true);
    if (id !== undefined && id !== credentials.id) throw OAuthErrors.invalidRequest('client_id does not match the Authorization header');
    id = credentials.id;
    secret = credentials.secret;
  }
  if (!id || !/^\d{1,20}$/.test(id)) throw OAuthErrors.invalidClient(basic);
  const application = await store.applications.get(id);
  // The platform's own client is no OAuth2 client: a token of it is the web app's session, which
  // only a signed-in page gets (POST /app/session). Named as an unknown client.
  if (!application || application.first_party === 1) throw OAuthErrors.invalidClient(basic);
  if (secret !== undefined) {
    if (!secretMatches(secret, application.client_secret_hash)) throw OAuthErrors.invalidClient(basic);
    return { application, confidential: true };
  }
  if (application.public_client !== 1) throw OAuthErrors.invalidClient(basic);
  return { application, confidential: false };
}

/**
 * `Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 2.3.1). Anything malformed (not
 * base64, no colon, a broken %-escape, which made decodeURIComponent throw a 500 before: issue 9,
 * fix 4) is undefined, so the caller answers 401 invalid_client.
 */
function decodeBasic(authorization: string): { id: string; secret: string } | undefined {
  const encoded = authorization.replace(/^Basic\s+/i, '').trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}
