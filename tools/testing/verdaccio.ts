/**
 * A local npm registry for the publishing test: Verdaccio (the devDependency, its own process) on
 * loopback with its storage in a temporary folder. `@social-layer/*` packages live only there (no
 * uplink for them: a name we did not publish is a 404, never a download); every other package is
 * proxied from the registry npm is configured with, so a game's third-party dependencies install
 * through it as they would from a public registry.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));

export interface LocalRegistry {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  /** An npm userconfig with a publish token for this registry (for `npm publish --userconfig`). */
  userconfig: string;
  /**
   * Environment for npm commands: this registry is the only one (the user's npm config still
   * applies otherwise: its cache, and nodedir for native builds without downloads).
   */
  env: NodeJS.ProcessEnv;
  /** What Verdaccio printed (for a failing test's message). */
  output(): string;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

/** Starts Verdaccio with its files under `dir`; resolves once it answers and a publishing user exists. */
export async function startLocalRegistry(dir: string): Promise<LocalRegistry> {
  await mkdir(join(dir, 'storage'), { recursive: true });
  // Third-party packages come through the registry this machine's npm already uses.
  const upstream = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', cwd: dir }).trim();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = join(dir, 'verdaccio.yaml');
  await writeFile(
    config,
    [
      `storage: ${JSON.stringify(join(dir, 'storage'))}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(join(dir, 'htpasswd'))}`,
      '    max_users: 10',
      'uplinks:',
      '  upstream:',
      `    url: ${JSON.stringify(upstream)}`,
      '    timeout: 120s',
      '    maxage: 60m',
      'packages:',
      "  '@social-layer/*':",
      '    access: $all',
      '    publish: $authenticated',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      '    proxy: upstream',
      'web:',
      '  enable: false',
      'middlewares:',
      '  audit:',
      '    enabled: false',
      'max_body_size: 200mb',
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [join(REPO_ROOT, 'tools/testing/verdaccioMain.mjs'), config, String(port)], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited (${child.exitCode}):\n${output}`);
    const ok = await fetch(`${url}-/ping`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`verdaccio did not answer on ${url}:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  // A user to publish as (npm adduser's request); Verdaccio answers with its token.
  const user = 'release-test';
  const response = await fetch(`${url}-/user/org.couchdb.user:${user}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: user, password: 'release-test-password', type: 'user', roles: [], date: new Date().toISOString() }),
  });
  const body = (await response.json()) as { token?: string };
  if (!response.ok || !body.token) throw new Error(`verdaccio adduser answered ${response.status}: ${JSON.stringify(body)}`);
  const userconfig = join(dir, 'npmrc');
  await writeFile(userconfig, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${body.token}\n`);
  const env: NodeJS.ProcessEnv = { ...process.env };
  // npm run from a test inherits the npm_config_* of the npm that started vitest: drop them all.
  for (const key of Object.keys(env)) if (key.toLowerCase().startsWith('npm_')) delete env[key];
  Object.assign(env, { npm_config_registry: url, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' });
  return {
    url,
    userconfig,
    env,
    output: () => output,
    close: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
