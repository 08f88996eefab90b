/**
 * Publishing, end to end, as a game developer meets it (issue 20): every package is built and
 * published to a local registry (Verdaccio on loopback); in an empty folder outside the
 * repository, `npm create @social-layer/game` writes a game for each engine against that registry
 * alone; each installs and builds; `@social-layer/server` installed from the same registry starts
 * (`npx @social-layer/server start`) and serves the games; two headless Chromium players of the
 * Phaser game meet in a lobby and chat. No `file:` link anywhere: every package the games and
 * the server install resolves to the local registry.
 *
 * Heavy (three game installs through the registry, the server's install): the two 3D games are
 * installed, built and served; the browser part runs on one. better-sqlite3's prebuilt binary
 * comes from a loopback mirror (testing/prebuildMirror.ts) instead of a compile from source.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackages } from '../src/release/build.ts';
import { publishPackages } from '../src/release/publish.ts';
import { PUBLISHED_PACKAGES, readManifest } from '../src/release/packages.ts';
import { launchChromium } from '../testing/chromium.ts';
import { waitReady, watchErrors } from '../testing/sampleServer.ts';
import { startPrebuildMirror, type PrebuildMirror } from '../testing/prebuildMirror.ts';
import { freePort, startLocalRegistry, type LocalRegistry } from '../testing/verdaccio.ts';

const run = promisify(execFile);
const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const RESULTS_DIR = join(REPO_ROOT, 'test-results');
const ENGINES = ['phaser', 'babylon', 'playcanvas'] as const;
const started = Date.now();
const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;

let work: string;
let registry: LocalRegistry;
let prebuilds: PrebuildMirror | undefined;
let server: ChildProcess | undefined;
let serverOutput = '';
let browser: Browser | undefined;
const log: string[] = [];
const note = (line: string) => {
  log.push(`[${elapsed()}] ${line}`);
  process.stderr.write(`registry test [${elapsed()}] ${line}\n`);
};

/** npm (or npx) in `cwd` against the local registry only; resolves to its stdout (stderr goes in a failure's message). */
async function npm(cwd: string, args: string[], command = 'npm'): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd, env: registry.env, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} in ${cwd} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

/** Every `resolved` URL in a lockfile, and every dependency spec in its root package: none may be a file: link or another registry. */
async function checkRegistryOnly(dir: string): Promise<void> {
  const pkg = await readFile(join(dir, 'package.json'), 'utf8');
  expect(pkg).not.toContain('file:');
  const lock = JSON.parse(await readFile(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string; link?: boolean }> };
  const entries = Object.entries(lock.packages).filter(([path]) => path !== '');
  expect(entries.length).toBeGreaterThan(10);
  for (const [path, entry] of entries) {
    expect(entry.link, `${path} is a link`).not.toBe(true);
    if (entry.resolved !== undefined) expect(entry.resolved.startsWith(registry.url), `${path} resolved from ${entry.resolved}`).toBe(true);
  }
  const ours = entries.filter(([path]) => path.startsWith('node_modules/@social-layer/'));
  expect(ours.length).toBeGreaterThan(0);
}

beforeAll(async () => {
  // Outside the repository: no workspace, no node_modules above it to fall back on.
  work = await mkdtemp(join(tmpdir(), 'sl-registry-'));
  await mkdir(RESULTS_DIR, { recursive: true });
  registry = await startLocalRegistry(join(work, 'registry'));
  note(`verdaccio on ${registry.url}`);
  // better-sqlite3's prebuilt binary from a loopback mirror (prebuildMirror.ts), not compiled again.
  prebuilds = await startPrebuildMirror(work);
  Object.assign(registry.env, prebuilds.env);
  await buildPackages({ log: () => {} });
  note('packages built');
  const published = await publishPackages({ registry: registry.url, userconfig: registry.userconfig, build: false, log: () => {} });
  note(`published ${published.join(', ')}`);
}, 300_000);

afterAll(async () => {
  await browser?.close().catch(() => {});
  if (server && server.exitCode === null) {
    const exited = new Promise((done) => server!.once('exit', done));
    // npx runs the bin in a child of its own: the whole process group goes.
    try {
      process.kill(-server.pid!, 'SIGTERM');
      await exited;
    } catch {
      // Already gone.
    }
  }
  await registry?.close();
  await prebuilds?.close();
  note(`done (${log.length} steps)`);
  if (work) await rm(work, { recursive: true, force: true });
}, 60_000);

describe('publishing to a registry and starting from it', () => {
  it('every SDK package and the server are on the registry with dist/ JavaScript, declarations and source maps, no private flag', async () => {
    for (const dir of PUBLISHED_PACKAGES) {
      const { name, version } = readManifest(dir);
      const response = await fetch(`${registry.url}${name.replace('/', '%2f')}`);
      expect(response.status, name).toBe(200);
      const doc = (await response.json()) as { versions: Record<string, { exports?: unknown; private?: boolean; engines?: Record<string, string>; dist: { tarball: string } }> };
      const published = doc.versions[version]!;
      expect(published.private).toBeUndefined();
      expect(published.engines?.node).toBeDefined();
      expect(JSON.stringify(published.exports ?? {})).not.toContain('/src/');
    }
    // One tarball looked into: what the client ships.
    const tarballDir = join(work, 'tarball');
    await mkdir(tarballDir, { recursive: true });
    const out = await npm(tarballDir, ['pack', `@social-layer/client@${readManifest('bindings/client').version}`, '--dry-run', '--json']);
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('dist/index.js.map');
    expect(files.some((f) => f.startsWith('src/'))).toBe(false);
  });

  it('plain Node imports the published client outside the repository (its JSON import survives the build)', async () => {
    const dir = join(work, 'node-consumer');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'node-consumer', version: '1.0.0', private: true, type: 'module' }) + '\n');
    const { version } = readManifest('bindings/client');
    await npm(dir, ['install', `@social-layer/client@${version}`]);
    await checkRegistryOnly(dir);
    await writeFile(join(dir, 'main.js'), "import { Client } from '@social-layer/client';\nconsole.log(JSON.stringify([typeof Client, Client.getVersionMajor(), Client.getVersionMinor(), Client.getVersionPatch()]));\n");
    const { stdout } = await run(process.execPath, ['main.js'], { cwd: dir });
    const [major, minor, patch] = version.split(/[.+-]/).map((n) => Number(n));
    expect(JSON.parse(stdout)).toEqual(['function', major, minor, patch]);
    note('plain Node imported @social-layer/client');
  }, 300_000);

  it('npm create @social-layer/game writes a game per engine that installs and builds from the registry alone', async () => {
    const games = join(work, 'games');
    await mkdir(games, { recursive: true });
    for (const engine of ENGINES) {
      const name = `my-${engine}-game`;
      // Its own npm cache for the create step: npm exec keeps what it ran in the cache, and a rerun
      // of this test publishes the same version anew.
      await npm(games, ['create', '--yes', '@social-layer/game', name, '--cache', join(work, 'npx-cache'), '--', '--engine', engine]);
      const dir = join(games, name);
      const readme = await readFile(join(dir, 'README.md'), 'utf8');
      expect(readme).toContain(`# ${name}`);
      expect(readme).not.toMatch(/sample's tests|test hooks of the repository/);
      const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
      expect(Object.keys(pkg.dependencies)).toContain(`@social-layer/${engine}`);
      note(`created ${name}`);
      await npm(dir, ['install']);
      note(`installed ${name}`);
      await checkRegistryOnly(dir);
      await npm(dir, ['run', 'build']);
      expect(existsSync(join(dir, 'dist', 'index.html'))).toBe(true);
      expect((await readdir(join(dir, 'dist'))).some((f) => f.endsWith('.js'))).toBe(true);
      note(`built ${name}`);
    }
  }, 1_200_000);

  it('the server from the registry starts with npx and serves the games; two Chromium players of the Phaser game meet in a lobby and chat', async () => {
    const platform = join(work, 'platform');
    await mkdir(platform, { recursive: true });
    await writeFile(join(platform, 'package.json'), JSON.stringify({ name: 'platform', version: '1.0.0', private: true }) + '\n');
    await npm(platform, ['install', `@social-layer/server@${readManifest('server').version}`]);
    await checkRegistryOnly(platform);
    note(`server installed (prebuilt binary requests: ${prebuilds?.requests.join(', ') || 'none'})`);

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = spawn('npx', ['--no-install', '@social-layer/server', 'start', '--dev', '--port', String(port), '--data', join(work, 'data'), '--games', join(work, 'games')], {
      cwd: platform,
      env: registry.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    server.stdout?.on('data', (c: Buffer) => (serverOutput += c.toString()));
    server.stderr?.on('data', (c: Buffer) => (serverOutput += c.toString()));
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}):\n${serverOutput}`);
      if (await fetch(`${base}/games/config.json`).then((r) => r.ok, () => false)) break;
      if (Date.now() > deadline) throw new Error(`the server did not answer:\n${serverOutput}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    note('server answering');
    // The SDK reference the published server carries, beside the HTTP one.
    const docs = await fetch(`${base}/docs/sdk/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('Social Layer SDK');
    expect((await fetch(`${base}/docs/sdk/documents/Getting_started_with_Phaser.html`)).status).toBe(200);
    for (const engine of ENGINES) {
      const page = await fetch(`${base}/games/my-${engine}-game/`);
      expect(page.status, engine).toBe(200);
      expect(await page.text()).toContain(`<title>my-${engine}-game</title>`);
    }

    browser = await launchChromium();
    const errors: string[] = [];
    const open = async (name: string, url: string): Promise<Page> => {
      const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      watchErrors(page, name, errors);
      await page.goto(url);
      return page;
    };
    const a = await open('A', `${base}/games/my-phaser-game/`);
    const infoA = await waitReady(a, errors);
    const b = await open('B', a.url());
    const infoB = await waitReady(b, errors);
    expect(infoB.userId).not.toBe(infoA.userId);
    expect(infoB.lobbyId).toBe(infoA.lobbyId);

    const text = `hello from a registry install ${Date.now()}`;
    await a.locator('.sl-chat-input').fill(text);
    await a.locator('.sl-chat-input').press('Enter');
    const received = b.locator('.sl-chat-message', { hasText: text });
    await received.waitFor({ timeout: 30_000 });
    expect(await received.getAttribute('data-author-id')).toBe(infoA.userId);
    await a.screenshot({ path: join(RESULTS_DIR, 'registry-phaser-player-a.png') });
    await b.screenshot({ path: join(RESULTS_DIR, 'registry-phaser-player-b.png') });
    expect(errors).toEqual([]);
    note('two players met and chatted');
  }, 900_000);
});
