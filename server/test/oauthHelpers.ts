// Helpers for the accounts and OAuth2 tests: a tiny cookie-keeping "browser" over fetch for the
// platform's pages, PKCE pairs, and form posts to the token endpoints. Everything goes through
// the real server's HTTP interface.
import { createHash, randomBytes } from 'node:crypto';
import type { TestServer } from './harness.ts';

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A cookie jar over fetch that never follows redirects, so tests see every Location. */
export class PageSession {
  /** The browser's cookies by name (the session, and the portal's one-time secret flash). */
  readonly cookies = new Map<string, string>();
  constructor(readonly origin: string) {}

  /** The session cookie's value, a credential tests may need to look for in logs. */
  get cookieValue(): string | undefined {
    return this.cookies.get('sl_session');
  }

  async request(method: 'GET' | 'POST', path: string, form?: Record<string, string>, extraHeaders: Record<string, string> = {}): Promise<{ status: number; location: string | null; text: string }> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin = this.origin;
      body = new URLSearchParams(form).toString();
    }
    Object.assign(headers, extraHeaders);
    const res = await fetch(path.startsWith('http') ? path : this.origin + path, { method, headers, body, redirect: 'manual' });
    for (const set of res.headers.getSetCookie()) {
      const pair = set.split(';')[0]!;
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1);
      if (value === '' || /;\s*max-age=0\b/i.test(set)) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), value);
    }
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  }

  get(path: string) {
    return this.request('GET', path);
  }
  post(path: string, form: Record<string, string>) {
    return this.request('POST', path, form);
  }

  /** A form as a browser sends it: the POST, then the GET of the page its 303 names. */
  async submit(path: string, form: Record<string, string>): Promise<{ status: number; location: string | null; text: string; postStatus: number }> {
    const posted = await this.post(path, form);
    if (posted.status !== 303 || !posted.location) return { ...posted, postStatus: posted.status };
    return { ...(await this.get(posted.location.split('#')[0]!)), postStatus: posted.status };
  }

  async signUp(login: string, password = 'correct horse battery', displayName = login): Promise<void> {
    const r = await this.post('/signup', { login, password, display_name: displayName });
    if (r.status !== 303) throw new Error(`sign-up failed: ${r.status} ${r.text.slice(0, 200)}`);
  }

  /** The csrf field of the last page that had one. */
  static csrf(html: string): string {
    const m = /name="csrf" value="([^"]+)"/.exec(html);
    if (!m) throw new Error('no csrf field on the page');
    return m[1]!;
  }

  static hiddenFields(html: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) out[m[1]!] = decodeEntities(m[2]!);
    return out;
  }

  /** Opens the authorize URL, checks the consent page, and answers it; returns the redirect Location. */
  async consent(authorizeQuery: Record<string, string>, decision: 'allow' | 'deny' = 'allow'): Promise<string> {
    return this.consentAt(`/oauth2/authorize?${new URLSearchParams(authorizeQuery)}`, decision);
  }

  /** consent() for a whole authorize URL, as a client's authorize opener receives it. */
  async consentAt(authorizeUrl: string, decision: 'allow' | 'deny' = 'allow'): Promise<string> {
    const page = await this.get(authorizeUrl);
    if (page.status !== 200) throw new Error(`authorize page: ${page.status} ${page.location ?? page.text.slice(0, 300)}`);
    const fields = PageSession.hiddenFields(page.text);
    const r = await this.post('/oauth2/authorize', { ...fields, decision });
    if (r.status !== 303 || !r.location) throw new Error(`consent: ${r.status} ${r.text.slice(0, 300)}`);
    return r.location;
  }
}

function decodeEntities(s: string): string {
  return s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** POSTs a form to an OAuth2 endpoint under /api/v10; returns status and JSON body. */
export async function oauthPost(t: TestServer, path: string, form: Record<string, string>, basic?: { id: string; secret: string }): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) headers.authorization = `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}`;
  const res = await fetch(`${t.api}${path}`, { method: 'POST', headers, body: new URLSearchParams(form).toString() });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

export function queryOf(location: string): URLSearchParams {
  return new URL(location).searchParams;
}

export function decodeJwtPayload(jwt: string): any {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
}

/**
 * Authorizes `session`'s user for an application through the consent page (PKCE S256) and
 * exchanges the code; `extra` adds token-request fields (a merge's external_auth_*). Returns
 * the token endpoint's answer with the code and verifier it used.
 */
export async function linkAccount(
  t: TestServer,
  session: PageSession,
  redirectUri: string,
  extra: Record<string, string> = {},
  scope = 'openid sdk.social_layer',
  clientId = t.app.id,
): Promise<{ status: number; body: any; code: string; verifier: string }> {
  const p = pkce();
  const location = await session.consent({ response_type: 'code', client_id: clientId, scope, redirect_uri: redirectUri, code_challenge: p.challenge, code_challenge_method: 'S256', state: 's' });
  const code = queryOf(location).get('code')!;
  const r = await oauthPost(t, '/oauth2/token', { grant_type: 'authorization_code', client_id: clientId, code, code_verifier: p.verifier, redirect_uri: redirectUri, ...extra });
  return { ...r, code, verifier: p.verifier };
}
