/**
 * The web app's credential: a first-party session token that the server hands this page in
 * exchange for the signed-in account cookie (POST /app/session, same-origin and CSRF-checked;
 * server/src/http/routes/webApp.ts). The token lives in this module's memory only: never in
 * localStorage, sessionStorage, a cookie the script can read, or a URL, so a reload or a new tab
 * exchanges again and a script injected later finds nothing stored. It is never logged.
 */

export interface SessionUser {
  id: string;
  username: string;
  global_name: string | null;
}

let token: string | null = null;
let pending: Promise<string> | null = null;
let user: SessionUser | null = null;

function csrf(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
}

/** Thrown when the account session is gone (signed out elsewhere, expired): the app goes to /login. */
export class SignedOut extends Error {
  constructor() {
    super('Signed out');
  }
}

async function exchange(): Promise<string> {
  const res = await fetch('/app/session', {
    method: 'POST',
    credentials: 'same-origin',
    cache: 'no-store',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrf() },
    body: '{}',
  });
  if (res.status === 401 || res.status === 403) throw new SignedOut();
  if (!res.ok) throw new Error(`Could not start the session (HTTP ${res.status})`);
  const body = (await res.json()) as { token: string; user: SessionUser };
  user = body.user;
  return body.token;
}

/** The current token, exchanging for one when there is none (one exchange at a time). */
export async function sessionToken(): Promise<string> {
  if (token) return token;
  pending ??= exchange().then(
    (t) => {
      token = t;
      pending = null;
      return t;
    },
    (e: unknown) => {
      pending = null;
      throw e;
    },
  );
  return pending;
}

/** The API refused the token (expired or revoked): forget it so the next call exchanges again. */
export function dropToken(refused: string): void {
  if (token === refused) token = null;
}

export function currentUser(): SessionUser | null {
  return user;
}

/** Ends the account session and revokes the app's tokens, then goes to the sign-in page. */
export async function signOut(): Promise<void> {
  await fetch('/app/session/logout', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrf() },
    body: '{}',
  }).catch(() => undefined);
  token = null;
  location.assign('/login?next=%2Fapp');
}

export function goToSignIn(): void {
  location.assign(`/login?next=${encodeURIComponent(location.pathname)}`);
}
