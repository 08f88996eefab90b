// The Client API's account linking end to end: a real server, real clients, and headless
// Chromium driving the platform's sign-in and consent pages. Everything runs with verbose
// logging on both sides, and the last test checks that no token, code or secret the suite
// handled appears anywhere in those logs.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { startServer, type RunningServer } from '@social-layer/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../src/auth/sha256.ts';
import {
  AuthenticationExternalAuthType,
  AuthorizationArgs,
  AuthorizationCodeVerifier,
  AuthorizationTokenType,
  Client,
  ClientResultError,
  ClientStatus,
  DeviceAuthorizationArgs,
  ErrorType,
  LoggingSeverity,
  type AuthorizeOpener,
} from '../src/index.ts';
import { newDeviceId } from './helpers.ts';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(resolve(here, '../../..'), 'test-results');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

let server: RunningServer;
let dataDir: string;
let app: { id: string; clientSecret: string; botToken: string };
let browser: Browser;
const serverLog: string[] = [];
const clientLog: string[] = [];
/** Every credential the suite sees; none may show up in a log line. */
const secrets = new Set<string>();
const clients: Client[] = [];

function keep<T extends object>(r: T): T {
  const fields = r as Record<string, unknown>;
  for (const k of ['accessToken', 'refreshToken', 'idToken', 'code', 'verifier']) if (typeof fields[k] === 'string' && fields[k]) secrets.add(fields[k] as string);
  return r;
}

function newClient(): Client {
  const c = new Client({ apiBase: server.url, applicationId: app.id, reconnectBaseDelayMs: 50 });
  c.addLogCallback((m) => clientLog.push(m), LoggingSeverity.Verbose);
  clients.push(c);
  return c;
}

/** A browser window that signs in (or up) and answers the consent page like a player. */
function browserOpener(context: BrowserContext, login: string, decision: 'allow' | 'deny' = 'allow', shot?: string): AuthorizeOpener {
  return async (url) => {
    const page = await context.newPage();
    let final: string | undefined;
    // The consent POST answers 303 to the redirect URI (a custom scheme Chromium cannot open):
    // take the Location from the response itself.
    await page.route('**/oauth2/authorize', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      const res = await route.fetch({ maxRedirects: 0 });
      final = res.headers().location;
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>Back to the game…</p>' });
    });
    await page.goto(url);
    if (page.url().includes('/login')) {
      await page.click('text=Create an account');
      await page.fill('#login', login);
      await page.fill('#display_name', login.toUpperCase());
      await page.fill('#password', 'a long password 123');
      if (shot) await page.screenshot({ path: join(resultsDir, `${shot}-signup.png`) });
      await page.click('#sign-up');
      await page.waitForSelector('#authorize');
    }
    if (shot) await page.screenshot({ path: join(resultsDir, `${shot}-consent.png`) });
    await page.click(decision === 'allow' ? '#authorize' : '#deny');
    await page.waitForFunction(() => document.body.textContent?.includes('Back to the game'));
    await page.close();
    if (!final) throw new Error('no redirect');
    return final;
  };
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}`);
  await mkdir(resultsDir, { recursive: true });
  dataDir = await mkdtemp(join(tmpdir(), 'sl-auth-test-'));
  server = await startServer({ port: 0, dataDir, serveSamples: false, logLevel: 'debug', logSink: (l) => serverLog.push(l), accounts: { deviceIntervalSeconds: 1 } });
  app = await server.createApplication({ name: 'Auth Game' });
  secrets.add(app.clientSecret);
  secrets.add(app.botToken);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  for (const c of clients) await c.destroy();
  await browser?.close();
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function linkedClient(login: string, shot?: string): Promise<{ client: Client; tokens: Awaited<ReturnType<Client['getToken']>>; context: BrowserContext }> {
  const context = await browser.newContext();
  const client = newClient();
  client.setAuthorizeOpener(browserOpener(context, login, 'allow', shot));
  const v = client.createAuthorizationCodeVerifier();
  secrets.add(v.verifier());
  const args = new AuthorizationArgs();
  args.setScopes(Client.getDefaultCommunicationScopes());
  args.setCodeChallenge(v.challenge());
  args.setNonce('nonce-123');
  const { code, redirectUri } = keep(await client.authorize(args));
  expect(redirectUri).toBe(`social-layer-${app.id}:/authorize/callback`);
  const tokens = keep(await client.getToken(app.id, code, v.verifier(), redirectUri));
  return { client, tokens, context };
}

describe('value classes', () => {
  it('follow the object rules and make S256 challenges', () => {
    expect(AuthorizationArgs.nullobj.valid()).toBe(false);
    expect(new AuthorizationArgs().valid()).toBe(true);
    expect(AuthorizationCodeVerifier.nullobj.valid()).toBe(false);
    const a = new AuthorizationArgs();
    a.setScopes('openid');
    a.setState('s');
    const b = new AuthorizationArgs(a);
    b.setScopes('identify');
    expect([a.scopes(), b.scopes(), b.state()]).toEqual(['openid', 'identify', 's']);
    expect(a.clone().scopes()).toBe('openid');
    expect(() => AuthorizationArgs.nullobj.setScopes('x')).toThrow();
    const v = newClient().createAuthorizationCodeVerifier();
    expect(v.verifier()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(v.challenge().challenge()).toBe(createHash('sha256').update(v.verifier()).digest('base64url'));
    for (const n of [0, 1, 55, 56, 64, 1000]) {
      const data = new Uint8Array(n).map((_, i) => (i * 7) & 255);
      expect(Buffer.from(sha256(data)).toString('hex')).toBe(createHash('sha256').update(data).digest('hex'));
    }
    expect(Client.getDefaultCommunicationScopes()).toBe('openid sdk.social_layer');
    expect(Client.getDefaultPresenceScopes()).toBe('openid sdk.social_layer_presence');
  });
});

describe('authorize, getToken and the token operations', () => {
  it('links through the real sign-up and consent pages, then connects with the token', async () => {
    const { client, tokens } = await linkedClient('player_one', 'auth');
    expect(tokens).toMatchObject({ tokenType: AuthorizationTokenType.Bearer, expiresIn: 604800, scopes: 'openid sdk.social_layer' });
    expect(tokens.refreshToken).not.toBe('');
    await client.updateToken(AuthorizationTokenType.Bearer, tokens.accessToken);
    await client.connect();
    expect(client.getCurrentUserV2()).toMatchObject({ username: 'player_one', isProvisional: false });
  });

  it('rejects the player cancelling as Aborted and a server refusal as AuthorizationFailed', async () => {
    const context = await browser.newContext();
    const client = newClient();
    // Sign up once in this context so the next pages go straight to consent.
    client.setAuthorizeOpener(browserOpener(context, 'player_two', 'deny'));
    const args = new AuthorizationArgs();
    args.setScopes('openid sdk.social_layer');
    const cancelled = await client.authorize(args).catch((e) => e);
    expect(cancelled).toBeInstanceOf(ClientResultError);
    expect(cancelled.type).toBe(ErrorType.Aborted);
    // identify.premium is not approved for this app: the server sends invalid_scope back.
    client.setAuthorizeOpener(async (url) => {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') } });
      return res.headers.get('location')!;
    });
    args.setScopes('identify identify.premium');
    const refused = await client.authorize(args).catch((e) => e);
    expect(refused.type).toBe(ErrorType.AuthorizationFailed);
    expect(refused.error).toMatch(/^invalid_scope/);
  });

  it('generates a CSPRNG state, checks it on return, and validates arguments before opening anything', async () => {
    const client = newClient();
    const seen: string[] = [];
    client.setAuthorizeOpener(async (url, redirectUri) => {
      const state = new URL(url).searchParams.get('state')!;
      seen.push(state);
      return `${redirectUri}?code=stolen&state=${state}x`;
    });
    const args = new AuthorizationArgs();
    args.setScopes('openid');
    for (let i = 0; i < 2; i++) {
      const e = await client.authorize(args).catch((x) => x);
      expect(e.type).toBe(ErrorType.AuthorizationFailed);
      expect(e.error).toMatch(/state mismatch/);
    }
    expect(seen[0]).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(seen[0]).not.toBe(seen[1]);
    args.setCustomSchemeParam('mygame');
    client.setAuthorizeOpener(async (url, redirectUri) => {
      expect(redirectUri).toBe('mygame:/authorize/callback');
      return `${redirectUri}?error=access_denied&state=${new URL(url).searchParams.get('state')}`;
    });
    expect((await client.authorize(args).catch((x) => x)).type).toBe(ErrorType.Aborted);
    expect((await client.authorize(AuthorizationArgs.nullobj).catch((x) => x)).type).toBe(ErrorType.ValidationError);
    const empty = new AuthorizationArgs();
    expect((await client.authorize(empty).catch((x) => x)).type).toBe(ErrorType.ValidationError);
  });

  it('refreshes (old refresh token then invalid_grant), revokes (the Gateway closes 4004, REST 401)', async () => {
    const { client, tokens } = await linkedClient('player_three');
    const fresh = keep(await client.refreshToken(app.id, tokens.refreshToken));
    expect(fresh.accessToken).not.toBe(tokens.accessToken);
    const stale = await client.refreshToken(app.id, tokens.refreshToken).catch((e) => e);
    expect(stale).toMatchObject({ type: ErrorType.AuthorizationFailed, status: 400 });
    expect(stale.error).toMatch(/^invalid_grant/);

    await client.updateToken(AuthorizationTokenType.Bearer, fresh.accessToken);
    await client.connect();
    const closed = new Promise<number>((res) => client.on('statusChanged', (status, _e, detail) => status === ClientStatus.Disconnected && res(detail)));
    await client.revokeToken(app.id, fresh.accessToken);
    expect(await closed).toBe(4004);
    const rest = await client.updateProvisionalAccountDisplayName('x').catch((e) => e);
    expect(rest).toMatchObject({ type: ErrorType.HTTPError, status: 401 });
    const dead = await client.refreshToken(app.id, fresh.refreshToken).catch((e) => e);
    expect(dead.error).toMatch(/^invalid_grant/);
  });

  it('runs the device flow, with the player approving on the activate page', async () => {
    const context = await browser.newContext();
    const client = newClient();
    const page = await context.newPage();
    // Sign up first in this browser.
    await page.goto(`${server.url}/signup`);
    await page.fill('#login', 'couch_player');
    await page.fill('#password', 'a long password 123');
    await Promise.all([page.waitForURL('**/account'), page.click('#sign-up')]);
    client.setAuthorizeDeviceScreen({
      open: (info) => {
        void (async () => {
          await page.goto(info.verificationUriComplete);
          await Promise.all([page.waitForURL('**/activate'), page.click('#continue')]);
          await page.waitForSelector('#authorize');
          await page.screenshot({ path: join(resultsDir, 'auth-device-consent.png') });
          await page.click('#authorize');
        })().catch((e) => clientLog.push(`device screen failed: ${String(e)}`));
      },
      close: () => {},
    });
    const args = new DeviceAuthorizationArgs();
    args.setScopes('openid sdk.social_layer');
    const tokens = keep(await client.getTokenFromDevice(args));
    await client.updateToken(AuthorizationTokenType.Bearer, tokens.accessToken);
    await client.connect();
    expect(client.getCurrentUserV2()?.username).toBe('couch_player');
  });

  it('merges a provisional account when linking, and unmerges it back', async () => {
    const deviceId = newDeviceId();
    secrets.add(deviceId);
    const guestClient = newClient();
    const guest = keep(await guestClient.getProvisionalToken(app.id, AuthenticationExternalAuthType.DeviceId, deviceId));
    const context = await browser.newContext();
    const client = newClient();
    client.setAuthorizeOpener(browserOpener(context, 'merged_player'));
    const v = client.createAuthorizationCodeVerifier();
    secrets.add(v.verifier());
    const args = new AuthorizationArgs();
    args.setScopes(Client.getDefaultCommunicationScopes());
    args.setCodeChallenge(v.challenge());
    const { code, redirectUri } = keep(await client.authorize(args));
    const tokens = keep(await client.getTokenFromProvisionalMerge(app.id, code, v.verifier(), redirectUri, AuthenticationExternalAuthType.DeviceId, deviceId));
    await client.updateToken(AuthorizationTokenType.Bearer, tokens.accessToken);
    await client.connect();
    expect(client.getCurrentUserV2()?.isProvisional).toBe(false);
    const again = await guestClient.getProvisionalToken(app.id, AuthenticationExternalAuthType.DeviceId, deviceId).catch((e) => e);
    expect(again.errorCode).toBe(530010);
    void guest;

    await client.unmergeIntoProvisionalAccount(app.id, AuthenticationExternalAuthType.DeviceId, deviceId);
    const back = keep(await guestClient.getProvisionalToken(app.id, AuthenticationExternalAuthType.DeviceId, deviceId));
    await guestClient.updateToken(AuthorizationTokenType.Bearer, back.accessToken);
    await guestClient.connect();
    expect(guestClient.getCurrentUserV2()?.isProvisional).toBe(true);
  });

  it('exchanges a parent token for a child application token', async () => {
    const child = await server.createApplication({ name: 'Auth Game DLC' });
    secrets.add(child.clientSecret);
    secrets.add(child.botToken);
    await server.configureApplication(child.id, { parentId: app.id });
    const { client, tokens } = await linkedClient('suite_player');
    const childToken = keep(await client.exchangeChildToken(tokens.accessToken, child.id));
    expect(childToken).toMatchObject({ tokenType: AuthorizationTokenType.Bearer, scopes: 'openid sdk.social_layer' });
    const childClient = newClient();
    await childClient.updateToken(AuthorizationTokenType.Bearer, childToken.accessToken);
    await childClient.connect();
    expect(childClient.getCurrentUserV2()?.username).toBe('suite_player');
  });
});

describe('AUTHORIZE_REQUEST', () => {
  it('fires the registered callback, again after a reconnect, and not after removal', async () => {
    const client = newClient();
    const guest = keep(await client.getProvisionalToken(app.id, AuthenticationExternalAuthType.DeviceId, newDeviceId()));
    await client.updateToken(AuthorizationTokenType.Bearer, guest.accessToken);
    let calls = 0;
    client.registerAuthorizeRequestCallback(() => calls++);
    await client.connect();
    const userId = client.getCurrentUserV2()!.id;
    const trigger = () =>
      fetch(`${server.url}/api/v10/applications/@me/authorize-requests`, { method: 'POST', headers: { authorization: `Bot ${app.botToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ user_id: userId }) });
    const waitFor = async (n: number) => {
      for (let i = 0; i < 100 && calls < n; i++) await new Promise((r) => setTimeout(r, 20));
    };
    expect((await trigger()).status).toBe(204);
    await waitFor(1);
    expect(calls).toBe(1);
    await client.disconnect();
    await client.connect();
    await trigger();
    await waitFor(2);
    expect(calls).toBe(2);
    client.removeAuthorizeRequestCallback();
    await trigger();
    await new Promise((r) => setTimeout(r, 200));
    expect(calls).toBe(2);
  });
});

describe('logs', () => {
  it('never contain a token, code, verifier or secret, at any level', () => {
    expect(serverLog.length).toBeGreaterThan(20);
    expect(clientLog.length).toBeGreaterThan(20);
    // The server logs JSON lines (pino): some at debug.
    expect(serverLog.some((l) => (JSON.parse(l) as { levelName?: string }).levelName === 'debug')).toBe(true);
    const leaks: string[] = [];
    for (const s of secrets) {
      for (const line of [...serverLog, ...clientLog]) if (line.includes(s)) leaks.push(`${s.slice(0, 6)}… in: ${line.slice(0, 160)}`);
    }
    expect(leaks).toEqual([]);
    expect(secrets.size).toBeGreaterThan(20);
  });
});
