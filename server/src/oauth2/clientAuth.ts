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
    let decoded: string;
    try {
      decoded = Buffer.from(authorization.replace(/^Basic\s+/i, '').trim(), 'base64').toString('utf8');
    } catch {
      throw OAuthErrors.invalidClient(true);
    }
    const colon = decoded.indexOf(':');
    if (colon < 0) throw OAuthErrors.invalidClient(true);
    const basicId = decodeURIComponent(decoded.slice(0, colon));
    if (id !== undefined && id !== basicId) throw OAuthErrors.invalidRequest('client_id does not match the Authorization header');
    id = basicId;
    secret = decodeURIComponent(decoded.slice(colon + 1));
  }
  if (!id || !/^\d{1,20}$/.test(id)) throw OAuthErrors.invalidClient(basic);
  const application = await store.applications.get(id);
  if (!application) throw OAuthErrors.invalidClient(basic);
  if (secret !== undefined) {
    if (!secretMatches(secret, application.client_secret_hash)) throw OAuthErrors.invalidClient(basic);
    return { application, confidential: true };
  }
  if (application.public_client !== 1) throw OAuthErrors.invalidClient(basic);
  return { application, confidential: false };
}
