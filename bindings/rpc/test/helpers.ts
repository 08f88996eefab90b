// Setup for the companion tests: the real platform in-process on a temporary database, real
// accounts signed up on its pages and signed in with the device flow (the companion's own
// sign-in code, approved on the /activate page), and a temporary XDG_RUNTIME_DIR for sockets.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '@social-layer/server';
import { PageSession } from '../../../server/test/oauthHelpers.ts';
import { KNOWN_SCOPES, tokenScopes } from '../../../server/src/oauth2/scopes.ts';
import { Companion, type CompanionOptions } from '../src/companion/Companion.ts';
import { deviceSignIn } from '../src/companion/deviceSignIn.ts';
import { RestApi } from '../src/companion/RestApi.ts';
import type { StoredToken } from '../src/companion/tokenStore.ts';

export interface Env {
  server: RunningServer;
  url: string;
  app: { id: string; clientSecret: string; botToken: string };
  /** A fresh directory to use as XDG_RUNTIME_DIR. */
  runtimeDir(): string;
  api(method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

const dirs: string[] = [];
export function tempDir(prefix = 'sl-rpc-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

export async function startEnv(): Promise<Env> {
  const server = await startServer({ port: 0, dataDir: tempDir(), logLevel: 'error', serveSamples: false, presenceGraceMs: 50, accounts: { deviceIntervalSeconds: 1 } });
  const app = await server.createApplication({ name: 'Native Game' });
  // rpc (the companion's guild and channel reads) is for approved applications only.
  await server.configureApplication(app.id, { approvedScopes: ['rpc'] });
  const rest = new RestApi(server.url);
  return {
    server,
    url: server.url,
    app,
    runtimeDir: () => tempDir('sl-xdg-'),
    api: (method, path, token, body) => rest.request(method, path, token, body),
    async close() {
      await server.close();
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

export interface Account {
  login: string;
  userId: string;
  token: string;
  /** The device flow's answer as the companion stores it (refresh token, expiry, application). */
  stored: StoredToken;
  page: PageSession;
  /** The same person's web app session: what sets up guilds, channels and guild messages. */
  web: string;
}

/** Signs up a real account and signs it in to `clientId` with the device flow, approved on /activate. */
/** `rpc` is asked for where it is granted: the test's own application is approved for it (startEnv). */
export async function signedInAccount(env: Env, login: string, clientId = env.app.id, scopes = ['identify', 'sdk.social_layer', 'guilds', ...(clientId === env.app.id ? ['rpc'] : [])]): Promise<Account> {
  const page = new PageSession(env.url);
  await page.signUp(login);
  const token = await deviceSignIn({
    rest: new RestApi(env.url),
    clientId,
    scopes,
    show: () => {},
    openUrl: async (url) => {
      const code = new URL(url).searchParams.get('user_code')!;
      const form = await page.get(`/activate?user_code=${encodeURIComponent(code)}`);
      const consent = await page.post('/activate', { csrf: PageSession.csrf(form.text), user_code: code });
      const done = await page.post('/activate/decision', { ...PageSession.hiddenFields(consent.text), decision: 'allow' });
      if (done.status !== 200) throw new Error(`activate failed: ${done.status}`);
    },
  });
  const me = await env.api('GET', '/users/@me', token.access_token);
  const webApp = await env.server.store.applications.firstParty();
  const web = await env.server.store.tokens.issue(me.body.id, webApp.id, tokenScopes([...KNOWN_SCOPES]), 3600);
  return { login, userId: me.body.id, token: token.access_token, stored: token, page, web };
}

/** Makes two accounts platform friends over REST. */
export async function befriend(env: Env, a: Account, b: Account): Promise<void> {
  const one = await env.api('PUT', `/users/@me/relationships/${b.userId}`, a.token, {});
  const two = await env.api('PUT', `/users/@me/relationships/${a.userId}?type=3`, b.token, {});
  if (one.status !== 204 || two.status !== 204) throw new Error(`befriend failed: ${one.status} ${two.status}`);
}

/** A token file with mode 0600. */
export function tokenFile(tokens: string[], mode = 0o600): string {
  const path = join(tempDir('sl-tok-'), 'tokens.json');
  writeFileSync(path, JSON.stringify({ tokens: tokens.map((access_token) => ({ access_token })) }), { mode });
  chmodSync(path, mode);
  return path;
}

/** A companion in this process, on its own XDG_RUNTIME_DIR; its log lines are collected. */
export async function startCompanion(env: Env, tokens: string[], options: Partial<CompanionOptions> = {}): Promise<{ companion: Companion; dir: string; path: string; logs: string[] }> {
  const dir = options.env?.XDG_RUNTIME_DIR ?? env.runtimeDir();
  const logs: string[] = [];
  const companion = new Companion({
    serverUrl: env.url,
    tokens: tokens.map((access_token) => ({ access_token })),
    env: { XDG_RUNTIME_DIR: dir },
    pidPollMs: 200,
    log: (l) => logs.push(l),
    ...options,
  });
  const path = await companion.start();
  return { companion, dir, path, logs };
}

/** Polls until `check` returns a truthy value. */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
