import { CUSTOM_SCHEME_PREFIX, CUSTOM_SCHEME_REDIRECT_PATH, ErrorType } from '@social-layer/protocol';
import { ClientResultError } from '../ClientResultError.ts';
import type { AuthorizationArgs } from './AuthorizationArgs.ts';
import { base64url, randomBytes } from './sha256.ts';

/**
 * Opens the authorize page and settles with the URL the browser was finally sent to (the
 * redirect URI with `code` and `state`, or with `error`), or rejects when the user closed it.
 * Browsers default to a popup (popupOpener); Node programs (and tests) pass their own, e.g. one
 * that drives a headless browser or opens the system browser and listens on a loopback port.
 */
export type AuthorizeOpener = (authorizeUrl: string, redirectUri: string, signal: AbortSignal) => Promise<string>;

/** Client.authorize's result (the spec's AuthorizationCallback values). */
export interface AuthorizationResult {
  /** An authorization code, not a token: exchange it with getToken. */
  code: string;
  /** The redirect URI the code was issued for (getToken needs the same). */
  redirectUri: string;
}

export function defaultRedirectUri(applicationId: string, customScheme: string | undefined): string {
  return customScheme ? `${customScheme}${CUSTOM_SCHEME_REDIRECT_PATH}` : `${CUSTOM_SCHEME_PREFIX}-${applicationId}${CUSTOM_SCHEME_REDIRECT_PATH}`;
}

/** A CSPRNG state (128 bits), as the spec asks when the caller leaves it unset. */
export function newState(): string {
  return base64url(randomBytes(16));
}

export function authorizeUrl(apiBase: string, applicationId: string, args: AuthorizationArgs, redirectUri: string, state: string): string {
  const q = new URLSearchParams({ response_type: 'code', client_id: applicationId, scope: args.scopes(), redirect_uri: redirectUri, state });
  const challenge = args.codeChallenge();
  if (challenge) {
    q.set('code_challenge', challenge.challenge());
    q.set('code_challenge_method', 'S256');
  }
  const nonce = args.nonce();
  if (nonce !== undefined) q.set('nonce', nonce);
  const integration = args.integrationType();
  if (integration !== undefined) q.set('integration_type', String(integration));
  return `${apiBase}/oauth2/authorize?${q}`;
}

/**
 * Reads the redirect the authorize page ended on. The state must be the one we sent: a
 * mismatch is treated as an attack (AuthorizationFailed), never as a code. The user cancelling
 * (`access_denied`) is Aborted; any other error the server sends is AuthorizationFailed.
 */
export function readRedirect(finalUrl: string, redirectUri: string, state: string): AuthorizationResult {
  let url: URL;
  try {
    url = new URL(finalUrl);
  } catch {
    throw new ClientResultError({ type: ErrorType.AuthorizationFailed, error: 'the authorize flow ended on an invalid URL' });
  }
  const base = finalUrl.split('?')[0]!.split('#')[0]!;
  const expected = redirectUri.split('?')[0]!;
  if (base !== expected && !sameLoopbackCallback(base, expected)) {
    throw new ClientResultError({ type: ErrorType.AuthorizationFailed, error: 'the authorize flow returned to an unexpected URL' });
  }
  const q = url.searchParams;
  if (q.get('state') !== state) throw new ClientResultError({ type: ErrorType.AuthorizationFailed, error: 'state mismatch: the authorization response was not for this request' });
  const error = q.get('error');
  if (error === 'access_denied') throw new ClientResultError({ type: ErrorType.Aborted, error: 'the user cancelled the authorization' });
  if (error) throw new ClientResultError({ type: ErrorType.AuthorizationFailed, error: `${error}${q.get('error_description') ? `: ${q.get('error_description')}` : ''}` });
  const code = q.get('code');
  if (!code) throw new ClientResultError({ type: ErrorType.AuthorizationFailed, error: 'the authorization response has no code' });
  return { code, redirectUri };
}

function sameLoopbackCallback(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    return x.protocol === y.protocol && x.hostname === y.hostname && x.pathname === y.pathname && x.port === y.port;
  } catch {
    return false;
  }
}

/**
 * The browser opener: a popup on the authorize page, polled until it is back on our origin at
 * the redirect URI (reading it is only possible once it is same-origin again). Closing the
 * popup is the user cancelling.
 */
export const popupOpener: AuthorizeOpener = (authorizeUrl, redirectUri, signal) =>
  new Promise((resolve, reject) => {
    const w = globalThis as unknown as { open?: (url: string, name: string, features: string) => { closed: boolean; location: { href: string }; close(): void } | null };
    const popup = w.open?.(authorizeUrl, 'social-layer-authorize', 'popup,width=500,height=720');
    if (!popup) {
      reject(new ClientResultError({ type: ErrorType.Aborted, error: 'the authorize popup was blocked' }));
      return;
    }
    const expected = redirectUri.split('?')[0]!;
    const timer = setInterval(() => {
      if (signal.aborted) {
        clearInterval(timer);
        return reject(new ClientResultError({ type: ErrorType.Aborted, error: 'authorization aborted' }));
      }
      if (popup.closed) {
        clearInterval(timer);
        return reject(new ClientResultError({ type: ErrorType.Aborted, error: 'the authorize window was closed' }));
      }
      let href: string;
      try {
        href = popup.location.href;
      } catch {
        return; // Still on the platform's origin.
      }
      if (href.split('?')[0] === expected) {
        clearInterval(timer);
        popup.close();
        resolve(href);
      }
    }, 200);
  });

/**
 * Shows a page of the platform to the player (openConnectedGamesSettingsInDiscord's account
 * page). Nothing comes back from it, so it settles once the page is shown; a rejection is
 * reported as Aborted.
 */
export type PageOpener = (url: string) => void | Promise<void>;

/** The browser page opener: a popup like the authorize one, left open for the player to close. */
export const popupPageOpener: PageOpener = (url) => {
  const w = globalThis as unknown as { open?: (url: string, name: string, features: string) => unknown };
  const popup = w.open?.(url, 'social-layer-account', 'popup,width=560,height=720');
  if (!popup) throw new ClientResultError({ type: ErrorType.Aborted, error: 'the account popup was blocked' });
};
