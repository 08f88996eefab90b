// A real OIDC issuer for the tests: the `oidc-provider` package on 127.0.0.1 with a key we
// hold, so a test can get genuine ID tokens through the provider's own login flow and also mint
// broken ones with the provider's key. The server must run with allowLoopbackOidcIssuers.
import { createServer, type Server } from 'node:http';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export const OIDC_KID = 'test-key-1';
export const OIDC_AUDIENCE = 'game-web';
export const OIDC_AUDIENCE_SECRET = 'game-web-secret';
export const OIDC_OTHER_CLIENT = { id: 'other-app', secret: 'other-secret' };
/** Where the issuer says its users' pictures are (the `picture` claim). */
export const OIDC_PICTURE_BASE = 'https://issuer.example/pictures';

export function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

export interface OidcIssuer {
  issuer: string;
  key: KeyObject;
  /** Runs the provider's authorization code flow (its development login and consent forms) for `login`. */
  idToken(login: string, clientId?: string, secret?: string): Promise<string>;
  close(): void;
}

export async function startOidcIssuer(): Promise<OidcIssuer> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const server = createServer();
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: OIDC_KID, alg: 'RS256', use: 'sig' }] as any },
    clients: [
      { client_id: OIDC_AUDIENCE, client_secret: OIDC_AUDIENCE_SECRET, redirect_uris: [`${issuer}/cb`], grant_types: ['authorization_code'], response_types: ['code'] },
      { client_id: OIDC_OTHER_CLIENT.id, client_secret: OIDC_OTHER_CLIENT.secret, redirect_uris: [`${issuer}/cb`], grant_types: ['authorization_code'], response_types: ['code'] },
    ],
    // preferred_username and picture feed the identity's application profile (issue 19).
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub, name: `Player ${sub}`, preferred_username: `${sub}_at_issuer`, picture: `${OIDC_PICTURE_BASE}/${sub}.png` }),
    }),
    claims: { openid: ['sub', 'name', 'preferred_username', 'picture'] },
    pkce: { required: () => false },
    // Explicit lifetimes (seconds) keep the provider from printing a notice for each default.
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, AuthorizationCode: 60, IdToken: 3600 },
  } as any);
  server.on('request', provider.callback());

  async function idToken(login: string, clientId = OIDC_AUDIENCE, secret = OIDC_AUDIENCE_SECRET): Promise<string> {
    const cookies = new Map<string, string>();
    const go = async (url: string, form?: Record<string, string>) => {
      const res = await fetch(url.startsWith('http') ? url : issuer + url, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        body: form ? new URLSearchParams(form).toString() : undefined,
      });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const eq = pair!.indexOf('=');
        cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
      return { status: res.status, location: res.headers.get('location'), text: await res.text() };
    };
    let r = await go(`/auth?${new URLSearchParams({ client_id: clientId, response_type: 'code', scope: 'openid', redirect_uri: `${issuer}/cb`, nonce: 'n', state: 's' })}`);
    for (let i = 0; i < 12; i++) {
      if (r.location?.startsWith(`${issuer}/cb`)) break;
      if (r.location) {
        r = await go(r.location);
        continue;
      }
      const action = /action="([^"]+)"/.exec(r.text)![1]!;
      const prompt = /name="prompt" value="([^"]+)"/.exec(r.text)![1]!;
      r = await go(action, prompt === 'login' ? { prompt, login, password: 'any' } : { prompt });
    }
    const code = new URL(r.location!).searchParams.get('code')!;
    const token = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: `${issuer}/cb` }).toString(),
    });
    return ((await token.json()) as { id_token: string }).id_token;
  }

  return { issuer, key: privateKey, idToken, close: () => server.close() };
}
