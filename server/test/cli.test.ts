import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../src/index.ts';
import { cleanupTempDirs, tempDir } from './harness.ts';

const BIN = fileURLToPath(new URL('../bin/social-layer.js', import.meta.url));
afterAll(() => cleanupTempDirs());

describe('social-layer CLI', () => {
  it('apps create prints a new application as JSON', () => {
    const data = tempDir();
    const r = spawnSync(process.execPath, [BIN, 'apps', 'create', '--name', 'Space Game', '--data', data], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const app = JSON.parse(r.stdout);
    expect(app.name).toBe('Space Game');
    expect(app.id).toMatch(/^\d{17,20}$/);
    expect(app.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(app.bot_token).toMatch(/^[A-Za-z0-9+/]+\.[A-Za-z0-9_-]{43}$/);
  });

  it('apps create without a name fails with usage', () => {
    const r = spawnSync(process.execPath, [BIN, 'apps', 'create'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--name');
  });

  it('start reads port and data from the environment, creates the dev app once, and serves the API', async () => {
    const data = tempDir();
    const port = 20000 + Math.floor(Math.random() * 20000);
    const run = async () => {
      const child = spawn(process.execPath, [BIN, 'start'], { env: { ...process.env, SOCIAL_LAYER_PORT: String(port), SOCIAL_LAYER_DATA: data } });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const deadline = Date.now() + 30_000;
      while (!out.includes('listening on') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain(`listening on http://127.0.0.1:${port}`);
      const res = await fetch(`http://127.0.0.1:${port}/api/v10/gateway`);
      expect(await res.json()).toEqual({ url: `ws://127.0.0.1:${port}/gateway` });
      const cfg = await (await fetch(`http://127.0.0.1:${port}/games/config.json`)).json();
      // The handlers are in before the banner: the signal always reaches the server's close().
      child.kill('SIGTERM');
      const code = await new Promise((r) => child.once('exit', r));
      expect(code, out).toBe(0);
      return { out, cfg };
    };
    const first = await run();
    const printed = JSON.parse(first.out.slice(first.out.indexOf('{'), first.out.indexOf('}') + 1));
    expect(printed.application_id).toMatch(/^\d+$/);
    expect(printed.bot_token).toMatch(/^[A-Za-z0-9+/]+\.[A-Za-z0-9_-]{43}$/);
    expect(first.cfg.applicationId).toBe(printed.application_id);
    const second = await run();
    expect(second.out).not.toContain('Created the development application');
    expect(second.cfg.applicationId).toBe(printed.application_id);
  });

  it('rejects an invalid port', () => {
    const r = spawnSync(process.execPath, [BIN, 'start', '--port', 'abc', '--data', tempDir()], { encoding: 'utf8' });
    expect(r.status).toBe(2);
  });
});

describe('admin CLI: applications, users and tokens', () => {
  const cli = (args: string[], env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, SOCIAL_LAYER_DEV: '', ...env } });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
  };

  it('apps update sets redirect URIs and the client type, refusing what production refuses unless --dev', () => {
    const data = tempDir();
    const app = cli(['apps', 'create', '--name', 'Configurable', '--data', data]).json();
    const r = cli(['apps', 'update', '--app', app.id, '--redirect-uri', 'https://game.example/callback', '--redirect-uri', 'http://127.0.0.1/callback', '--public', 'false', '--data', data]);
    expect(r.status, r.stderr).toBe(0);
    const updated = r.json();
    expect(updated).toMatchObject({ id: app.id, name: 'Configurable', public_client: false, social_sdk: { approval: 'approved' } });
    expect(updated.redirect_uris).toEqual(['http://127.0.0.1/callback', 'https://game.example/callback']);

    const refused = cli(['apps', 'update', '--app', app.id, '--redirect-uri', 'http://game.example/callback', '--data', data]);
    expect(refused.status).toBe(2);
    const body = JSON.parse(refused.stderr.slice(refused.stderr.indexOf('{'), refused.stderr.lastIndexOf('}') + 1));
    expect(body.code).toBe(50035);
    expect(body.errors.redirect_uris['0']._errors[0].code).toBe('URL_TYPE_INVALID_SCHEME');
    // Nothing was written by the refused call.
    expect(cli(['apps', 'update', '--app', app.id, '--public', 'true', '--data', data]).json().redirect_uris).toHaveLength(2);

    const dev = cli(['apps', 'update', '--app', app.id, '--redirect-uri', 'http://game.example/callback', '--dev', '--data', data]);
    expect(dev.status, dev.stderr).toBe(0);
    expect(dev.json().redirect_uris).toEqual(['http://game.example/callback']);
    expect(cli(['apps', 'update', '--app', app.id, '--redirect-uri', 'http://other.example/cb', '--data', data], { SOCIAL_LAYER_DEV: '1' }).status).toBe(0);
  });

  it('refuses bad input with exit code 2 and usage: unknown options, bad IDs, unknown applications', () => {
    const data = tempDir();
    // Each spawn compiles the CLI (about a second): one case per kind of refusal.
    const badValue = cli(['apps', 'update', '--app', '123', '--public', 'maybe', '--data', data]);
    expect(badValue.status).toBe(2);
    expect(badValue.stderr).toContain('--public takes true or false');
    const unknownOption = cli(['apps', 'update', '--app', 'abc', '--public', 'true', '--bogus', '--data', data]);
    expect(unknownOption.status).toBe(2);
    expect(unknownOption.stderr).toContain('--bogus');
    const unknown = cli(['apps', 'approve', '--app', '123', '--data', data]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('10002');
    const badName = cli(['users', 'create', '--username', 'x', '--data', data]);
    expect(badName.status).toBe(2);
    expect(badName.stderr).toContain('2 to 32');
  });

  it('users create and tokens issue: an OAuth2 token of an application for the user, and a first-party session token sent without a scheme', async () => {
    const data = tempDir();
    const user = cli(['users', 'create', '--username', 'Operator.Made', '--password', 'correct horse battery', '--data', data]);
    expect(user.status, user.stderr).toBe(0);
    expect(Object.keys(user.json()).sort()).toEqual(['id', 'username']);
    expect(user.json().username).toBe('operator.made');
    expect(cli(['users', 'create', '--username', 'operator.made', '--data', data]).stderr).toContain('taken');
    const passwordless = cli(['users', 'create', '--username', 'no_password', '--data', data]).json();
    const app = cli(['apps', 'create', '--name', 'Token Game', '--data', data]).json();

    const oauth = cli(['tokens', 'issue', '--user', user.json().id, '--app', app.id, '--scopes', 'identify sdk.social_layer', '--data', data]);
    expect(oauth.status, oauth.stderr).toBe(0);
    expect(oauth.json()).toMatchObject({ token_type: 'Bearer', scope: 'identify sdk.social_layer' });
    expect(oauth.json().access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cli(['tokens', 'issue', '--user', user.json().id, '--app', app.id, '--scopes', 'identify.premium', '--data', data]).status).toBe(2);
    expect(cli(['tokens', 'issue', '--user', user.json().id, '--app', app.id, '--data', data]).status).toBe(2);
    expect(cli(['tokens', 'issue', '--user', '999', '--data', data]).status).toBe(2);

    const session = cli(['tokens', 'issue', '--user', passwordless.id, '--data', data]);
    expect(session.status, session.stderr).toBe(0);
    expect(session.json().user_id).toBe(passwordless.id);

    // Against the platform started on the same data.
    const server = await startServer({ port: 0, dataDir: data, serveSamples: false, logLevel: 'error' });
    try {
      const me = (authorization: string) => fetch(`${server.url}/api/v10/users/@me`, { headers: { authorization } });
      const asApp = await me(`Bearer ${oauth.json().access_token}`);
      expect(asApp.status).toBe(200);
      expect((await asApp.json()).username).toBe('operator.made');
      const bare = await me(session.json().token);
      expect(bare.status).toBe(200);
      expect((await bare.json()).id).toBe(passwordless.id);
      // Only the first-party client's tokens travel without a scheme.
      expect((await me(oauth.json().access_token)).status).toBe(401);
      // The OAuth2 token is a real authorization: it shows in the user's connected games.
      expect((await server.store.oauth.authorizationsOf(user.json().id)).map((a) => a.application_id)).toEqual([app.id]);
      // The first-party client is the platform's own: not a game, not the development application.
      expect(await server.store.applications.count()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('apps approve lifts the pre-approval budgets of a running server', async () => {
    const data = tempDir();
    const server = await startServer({ port: 0, dataDir: data, serveSamples: false, logLevel: 'error' });
    try {
      const app = await server.createApplication({ name: 'Waiting', approval: 'pre_approval' });
      const token = await fetch(`${server.url}/api/v10/partner-sdk/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: app.id, external_auth_type: 'DEVICE_ID', external_auth_token: 'device-for-approval-test' }),
      }).then(async (r) => (await r.json()).access_token as string);
      const write = (secret: string) => fetch(`${server.url}/api/v10/lobbies`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ secret }) });
      const before = await write('a');
      expect(before.headers.get('x-ratelimit-budget')).toBe('pre-approval');
      const r = cli(['apps', 'approve', '--app', app.id, '--data', data]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.json()).toMatchObject({ id: app.id, social_sdk: { approval: 'approved' } });
      const after = await write('b');
      expect(after.status).toBe(200);
      expect(after.headers.get('x-ratelimit-budget')).toBe('production');
    } finally {
      await server.close();
    }
  });
});
