// RPC AUTHORIZE through our own RpcClient. Both public libraries exchange the code at a
// hard-coded https://discord.com/api (discord-rpc 4: `this.fetch.endpoint`; @xhayper 1: its
// @discordjs/rest instance with the default API host), so neither can finish AUTHORIZE against
// a private server unmodified (bindings/rpc/README.md). The player answers on the platform's
// consent page in their own signed-in browser (a cookie-keeping page session here).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcClient, RpcErrorCode } from '../src/index.ts';
import { type Account, type Env, signedInAccount, startCompanion, startEnv } from './helpers.ts';

let env: Env;
let player: Account;
let companion: Awaited<ReturnType<typeof startCompanion>>;
/** What the player does with the page the companion opens. */
let answer: (url: string) => Promise<void>;
const opened: string[] = [];

beforeAll(async () => {
  env = await startEnv();
  // Native games register the loopback redirect; any port matches it (RFC 8252).
  await env.server.configureApplication(env.app.id, { redirectUris: ['http://127.0.0.1/callback'] });
  player = await signedInAccount(env, 'auth_player');
  companion = await startCompanion(env, [player.token], {
    openUrl: async (url) => {
      opened.push(url);
      await answer(url);
    },
  });
});

afterAll(async () => {
  await companion?.companion.stop();
  await env?.close();
});

async function connect(): Promise<RpcClient> {
  const rpc = new RpcClient({ clientId: env.app.id, env: { XDG_RUNTIME_DIR: companion.dir } });
  await rpc.connect();
  return rpc;
}

/** The browser: follows the consent page's answer to the companion's loopback listener. */
async function decide(url: string, decision: 'allow' | 'deny'): Promise<void> {
  const location = await player.page.consentAt(url.slice(env.url.length), decision);
  const res = await fetch(location);
  expect(res.status).toBe(200);
}

describe('AUTHORIZE', () => {
  it('shows the consent page in the player’s browser and returns a code the game exchanges with its secret', async () => {
    answer = (url) => decide(url, 'allow');
    const rpc = await connect();
    const { code, redirect_uri } = await rpc.request('AUTHORIZE', { client_id: env.app.id, scopes: ['identify', 'guilds'], prompt: 'consent' });
    const page = new URL(opened.at(-1)!);
    expect(page.origin + page.pathname).toBe(`${env.url}/oauth2/authorize`);
    expect(page.searchParams.get('client_id')).toBe(env.app.id);
    expect(page.searchParams.get('scope')).toBe('identify guilds');
    expect(redirect_uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const basic = Buffer.from(`${env.app.id}:${env.app.clientSecret}`).toString('base64');
    const res = await fetch(`${env.url}/api/v10/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri }).toString(),
    });
    const tokens = await res.json();
    expect(res.status).toBe(200);
    expect(tokens.scope).toBe('identify guilds');
    // AUTHENTICATE with the fresh token: the game now acts as the player.
    const auth = await rpc.request('AUTHENTICATE', { access_token: tokens.access_token });
    expect(auth).toMatchObject({ user: { id: player.userId }, scopes: ['identify', 'guilds'], application: { id: env.app.id } });
    await rpc.close();
  });

  it('skips the page with prompt none once granted', async () => {
    answer = async (url) => {
      // No consent page: the platform redirects straight back with a code.
      const r = await player.page.get(url.slice(env.url.length));
      expect(r.status).toBe(302);
      expect((await fetch(r.location!)).status).toBe(200);
    };
    const rpc = await connect();
    const { code } = await rpc.request('AUTHORIZE', { client_id: env.app.id, scopes: ['identify'], prompt: 'none' });
    expect(code).toMatch(/\S{20,}/);
    await rpc.close();
  });

  it('answers 5000 when the player denies, and 4007/4000 for another application or bad scopes', async () => {
    answer = (url) => decide(url, 'deny');
    const rpc = await connect();
    const code = (p: Promise<unknown>) => p.then(() => 'resolved', (e: { code?: number; message?: string }) => [e.code, e.message]);
    expect(await code(rpc.request('AUTHORIZE', { client_id: env.app.id, scopes: ['identify'] }))).toEqual([RpcErrorCode.OAuth2Error, 'The player denied the request']);
    const before = opened.length;
    expect((await code(rpc.request('AUTHORIZE', { client_id: '123456789012345678', scopes: ['identify'] })) as unknown[])[0]).toBe(RpcErrorCode.InvalidClientId);
    expect((await code(rpc.request('AUTHORIZE', { scopes: 'identify' })) as unknown[])[0]).toBe(RpcErrorCode.InvalidPayload);
    expect((await code(rpc.request('AUTHORIZE', { scopes: ['identify', 'x y'] })) as unknown[])[0]).toBe(RpcErrorCode.InvalidPayload);
    // Refused requests never reached the browser.
    expect(opened.length).toBe(before);
    await rpc.close();
  });
});
