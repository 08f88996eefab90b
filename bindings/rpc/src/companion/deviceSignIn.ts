import type { RestApi } from './RestApi.ts';
import type { StoredToken } from './tokenStore.ts';
import type { UrlOpener } from './authorizeFlow.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export interface DeviceSignInArgs {
  rest: RestApi;
  clientId: string;
  scopes: string[];
  /** Shows the code and the page to the player (the CLI prints it). */
  show(userCode: string, verificationUri: string, completeUri: string): void;
  openUrl?: UrlOpener;
  /** Test hook: a faster clock than the server's interval is refused (slow_down) anyway. */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Signs the player in to one application with the OAuth2 device flow (RFC 8628): the platform's
 * /activate page, opened in the player's browser, and polling at the server's interval.
 */
export async function deviceSignIn(args: DeviceSignInArgs): Promise<StoredToken> {
  const start = await args.rest.request('POST', '/oauth2/device/authorize', undefined, undefined, { client_id: args.clientId, scope: args.scopes.join(' ') });
  if (start.status !== 200) throw new Error(`The server refused the sign-in: ${start.body?.error_description ?? start.body?.error ?? `HTTP ${start.status}`}`);
  const d = start.body as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; expires_in: number; interval: number };
  args.show(d.user_code, d.verification_uri, d.verification_uri_complete);
  if (args.openUrl) await Promise.resolve(args.openUrl(d.verification_uri_complete)).catch(() => {});
  const sleep = args.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let interval = Math.max(1, d.interval) * 1000;
  const deadline = Date.now() + d.expires_in * 1000;
  while (Date.now() < deadline) {
    await sleep(interval);
    const r = await args.rest.request('POST', '/oauth2/token', undefined, undefined, { grant_type: GRANT, client_id: args.clientId, device_code: d.device_code });
    if (r.status === 200) {
      return {
        access_token: r.body.access_token,
        ...(r.body.refresh_token ? { refresh_token: r.body.refresh_token } : {}),
        ...(typeof r.body.expires_in === 'number' ? { expires_at: Date.now() + r.body.expires_in * 1000 } : {}),
        application_id: args.clientId,
      };
    }
    const error = r.body?.error;
    if (error === 'authorization_pending') continue;
    if (error === 'slow_down') {
      interval += 5000;
      continue;
    }
    if (error === 'access_denied') throw new Error('The sign-in was denied');
    if (error === 'expired_token') break;
    throw new Error(`Sign-in failed: ${r.body?.error_description ?? error ?? `HTTP ${r.status}`}`);
  }
  throw new Error('The sign-in code expired; run the companion again');
}
