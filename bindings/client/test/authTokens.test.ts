// fetchCurrentUser, setTokenExpirationCallback and openConnectedGamesSettingsInDiscord against
// the real server, in Node. Full accounts are linked through the platform's real pages with the
// server tests' cookie-keeping page session (no browser needed here; the popup paths are in
// authBrowser.test.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '@social-layer/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PageSession } from '../../../server/test/oauthHelpers.ts';
import { TokenExpiry } from '../src/auth/TokenExpiry.ts';
import { Logger } from '../src/Logger.ts';
import {
  AuthenticationExternalAuthType,
  AuthorizationArgs,
  AuthorizationTokenType,
  Client,
  ClientStatus,
  ErrorType,
  LoggingSeverity,
} from '../src/index.ts';
import { newDeviceId, sleep, waitFor } from './helpers.ts';

const DAY = 24 * 3600 * 1000;
const WEEK_S = 7 * 24 * 3600;

let server: RunningServer;
let dataDir: string;
let app: { id: string; clientSecret: string };
const clients: Client[] = [];

function newClient(): Client {
  const c = new Client({ apiBase: server.url, applicationId: app.id, reconnectBaseDelayMs: 50 });
  clients.push(c);
  return c;
}

/** A client linked to a new full account through the sign-up and consent pages, connected unless asked not to. */
async function linkedClient(login: string, connect = true): Promise<{ client: Client; accessToken: string; page: PageSession }> {
  const page = new PageSession(server.url);
  await page.signUp(login, 'a long password 123');
  const client = newClient();
  client.setAuthorizeOpener((url) => page.consentAt(url));
  const v = client.createAuthorizationCodeVerifier();
  const args = new AuthorizationArgs();
  args.setScopes(Client.getDefaultCommunicationScopes());
  args.setCodeChallenge(v.challenge());
  const { code, redirectUri } = await client.authorize(args);
  const { accessToken } = await client.getToken(app.id, code, v.verifier(), redirectUri);
  await client.updateToken(AuthorizationTokenType.Bearer, accessToken);
  if (connect) await client.connect();
  return { client, accessToken, page };
}

async function guestClient(): Promise<{ client: Client; accessToken: string; deviceId: string }> {
  const client = newClient();
  const deviceId = newDeviceId();
  const { accessToken } = await client.getProvisionalToken(app.id, AuthenticationExternalAuthType.DeviceId, deviceId);
  await client.updateToken(AuthorizationTokenType.Bearer, accessToken);
  return { client, accessToken, deviceId };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sl-auth-tokens-'));
  server = await startServer({ port: 0, dataDir, serveSamples: false, logLevel: 'error', accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
  app = await server.createApplication({ name: 'Token Game' });
});

afterAll(async () => {
  for (const c of clients) await c.destroy();
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('fetchCurrentUser', () => {
  it('names the token’s user without connecting, and refuses bad tokens and token types', async () => {
    const { client, accessToken } = await guestClient();
    const other = newClient();
    const me = await other.fetchCurrentUser(AuthorizationTokenType.Bearer, accessToken);
    expect(other.getStatus()).toBe(ClientStatus.Disconnected);
    await client.connect();
    expect(me).toEqual({ id: client.getCurrentUserV2()!.id, name: client.getCurrentUserV2()!.username });
    expect(await other.fetchCurrentUser(AuthorizationTokenType.Bearer, `Bearer ${accessToken}`)).toEqual(me);

    const bad = await other.fetchCurrentUser(AuthorizationTokenType.Bearer, 'x'.repeat(43)).catch((e) => e);
    expect(bad).toMatchObject({ type: ErrorType.HTTPError, status: 401 });
    expect((await other.fetchCurrentUser(AuthorizationTokenType.User, accessToken).catch((e) => e)).type).toBe(ErrorType.ValidationError);
    expect((await other.fetchCurrentUser(AuthorizationTokenType.Bearer, '').catch((e) => e)).type).toBe(ErrorType.ValidationError);
  });
});

describe('setTokenExpirationCallback', () => {
  it('waits while disconnected, fires once per token when connected, and again for the next token', async () => {
    const { client, deviceId } = await guestClient();
    let calls = 0;
    const types: number[] = [];
    // Everything is "near expiry" with an 8-day threshold: the server's tokens last 7 days.
    client.setTokenExpirationCallback((type) => {
      calls++;
      types.push(type);
    }, 8 * DAY);
    await sleep(100);
    expect(calls).toBe(0);
    await client.connect();
    await waitFor(() => calls === 1, 'the first expiration callback');
    expect(types).toEqual([AuthorizationTokenType.Bearer]);
    await client.disconnect();
    await client.connect();
    await sleep(100);
    expect(calls).toBe(1);
    const next = await client.getProvisionalToken(app.id, AuthenticationExternalAuthType.DeviceId, deviceId);
    await client.updateToken(AuthorizationTokenType.Bearer, next.accessToken);
    await waitFor(() => calls === 2, 'the callback for the new token');
    client.setTokenExpirationCallback(null);
    const third = await client.getProvisionalToken(app.id, AuthenticationExternalAuthType.DeviceId, deviceId);
    await client.updateToken(AuthorizationTokenType.Bearer, third.accessToken);
    await sleep(100);
    expect(calls).toBe(2);
  });

  it('fires when the time comes, not before; a token with more than the threshold left stays quiet', async () => {
    const { client, accessToken } = await linkedClient('expiry_timer', false);
    let calls = 0;
    // Near expiry 1.5 s after the token was issued.
    client.setTokenExpirationCallback(() => calls++, WEEK_S * 1000 - 1500);
    await client.connect();
    await sleep(200);
    expect(calls).toBe(0);
    await waitFor(() => calls === 1, 'the timed expiration callback', 5000);

    const quiet = newClient();
    await quiet.updateToken(AuthorizationTokenType.Bearer, accessToken);
    let quietCalls = 0;
    quiet.setTokenExpirationCallback(() => quietCalls++);
    await quiet.connect();
    await sleep(150);
    expect(quietCalls).toBe(0);
  });

  it('asks the server when a token the client never saw issued expires', async () => {
    // A token the game's backend got: exchanged by hand, outside this client.
    const res = await fetch(`${server.url}/api/v10/partner-sdk/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: app.id, external_auth_type: 'DEVICE_ID', external_auth_token: newDeviceId() }),
    });
    const token = ((await res.json()) as { access_token: string }).access_token;
    const client = newClient();
    const log: string[] = [];
    client.addLogCallback((m) => log.push(m), LoggingSeverity.Verbose);
    await client.updateToken(AuthorizationTokenType.Bearer, token);
    let calls = 0;
    client.setTokenExpirationCallback(() => calls++, 8 * DAY);
    await client.connect();
    await waitFor(() => calls === 1, 'the callback after the server lookup');
    expect(log.some((l) => l.startsWith('GET /oauth2/@me -> 200'))).toBe(true);
    expect(log.some((l) => /token expiration: the token expires in 60[0-9]{4} s/.test(l))).toBe(true);
  });

  it('reports an expired token as soon as the client is connected (unit)', async () => {
    const logger = new Logger();
    const lines: string[] = [];
    logger.add((m) => lines.push(m), LoggingSeverity.Verbose);
    const lookups: string[] = [];
    const expiry = new TokenExpiry({
      logger,
      lookup: async (token) => {
        lookups.push(token);
        return undefined;
      },
    });
    let calls = 0;
    expiry.setCallback(() => calls++, 0);
    expiry.saw('expired-token', -5);
    expiry.tokenUpdated('expired-token');
    await sleep(10);
    expect(calls).toBe(0);
    expiry.statusChanged(ClientStatus.Connecting);
    await sleep(10);
    expect(calls).toBe(1);
    expect(lines).toContain('token expiration: the token has expired');
    // Unknown expiry: one lookup per token, and silence when the server cannot say.
    expiry.tokenUpdated('unknown-token');
    expiry.statusChanged(ClientStatus.Disconnected);
    expiry.statusChanged(ClientStatus.Ready);
    await sleep(10);
    expect(lookups).toEqual(['unknown-token']);
    expect(calls).toBe(1);
    expect(lines.join('\n')).not.toContain('unknown-token');
  });
});

describe('openConnectedGamesSettingsInDiscord', () => {
  it('opens /account for a connected full account, through the page opener', async () => {
    const { client, page } = await linkedClient('settings_player');
    const opened: string[] = [];
    let shown = '';
    // Without an opener, Node has nothing to show the page with.
    expect((await client.openConnectedGamesSettingsInDiscord().catch((e) => e)).type).toBe(ErrorType.ValidationError);
    client.setAccountPageOpener(async (url) => {
      opened.push(url);
      shown = (await page.get(url)).text;
    });
    await client.openConnectedGamesSettingsInDiscord();
    expect(opened).toEqual([`${server.url}/account`]);
    expect(shown).toContain('Token Game');
    expect(shown).toContain('Unlink');
    client.setAccountPageOpener(() => {
      throw new Error('no browser here');
    });
    const failed = await client.openConnectedGamesSettingsInDiscord().catch((e) => e);
    expect(failed.type).toBe(ErrorType.Aborted);
    expect(failed.error).toContain('no browser here');
  });

  it('does nothing for a client that is not connected or whose user is provisional', async () => {
    const opened: string[] = [];
    const { client: idle } = await linkedClient('settings_idle', false);
    idle.setAccountPageOpener((url) => void opened.push(url));
    expect((await idle.openConnectedGamesSettingsInDiscord().catch((e) => e)).type).toBe(ErrorType.ClientNotReady);
    const { client: guest } = await guestClient();
    guest.setAccountPageOpener((url) => void opened.push(url));
    await guest.connect();
    const refused = await guest.openConnectedGamesSettingsInDiscord().catch((e) => e);
    expect(refused.type).toBe(ErrorType.ValidationError);
    expect(refused.error).toMatch(/provisional/);
    expect(opened).toEqual([]);
  });
});
