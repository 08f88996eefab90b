/**
 * Publishing, end to end, as a game developer meets it (issue 20): every package is built and
 * published to a local registry (Verdaccio on loopback); in an empty folder outside the
 * repository, `npm create @social-layer/game` writes a game for each engine against that registry
 * alone; each installs and builds; the Phaser game's `npm start -- --port N` starts
 * `@social-layer/server` from the same registry (npx) on that port, serving the games; in one
 * headless Chromium, two players of each game meet in a lobby and chat. No `file:` link anywhere: every package the games and
 * the server install resolves to the local registry.
 *
 * Heavy (three game installs through the registry, the server's install); the three games' players
 * share one browser and play at the same time. better-sqlite3's prebuilt binary
 * comes from a loopback mirror (testing/prebuildMirror.ts) instead of a compile from source.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHED_PACKAGES, readManifest } from '../src/release/packages.ts';
import { launchChromium, WEBGL_ARGS } from '../testing/chromium.ts';
import { twoGuestsChat } from '../testing/gameChat.ts';
import { checkRegistryOnly as checkLockfile, startPublishedRegistry, type PublishedRegistry } from '../testing/publishedRegistry.ts';
import { freePort, type LocalRegistry } from '../testing/verdaccio.ts';

const run = promisify(execFile);
const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const RESULTS_DIR = join(REPO_ROOT, 'test-results');
const ENGINES = ['phaser', 'babylon', 'playcanvas'] as const;
const started = Date.now();
const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;

let work: string;
let published: PublishedRegistry | undefined;
let registry: LocalRegistry;
let server: ChildProcess | undefined;
let serverOutput = '';
let browser: Browser | undefined;
const log: string[] = [];
const note = (line: string) => {
  log.push(`[${elapsed()}] ${line}`);
  process.stderr.write(`registry test [${elapsed()}] ${line}\n`);
};

const npm = (cwd: string, args: string[], command = 'npm') => published!.npm(cwd, args, command);
const checkRegistryOnly = (dir: string) => checkLockfile(dir, registry.url);

beforeAll(async () => {
  // Outside the repository: no workspace, no node_modules above it to fall back on.
  work = await mkdtemp(join(tmpdir(), 'sl-registry-'));
  await mkdir(RESULTS_DIR, { recursive: true });
  published = await startPublishedRegistry(work);
  registry = published.registry;
  note(`verdaccio on ${registry.url}; published ${published.published.join(', ')}`);
}, 900_000);

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
  await published?.close();
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

  it("the game's npm start runs the server from the registry (npx) on the port given with -- --port, serving the games; in Chromium two players of each game (Phaser, Babylon.js, PlayCanvas) meet in a lobby and chat", async () => {
    // npm start as the game's README says, on a free port: `npx --yes @social-layer/server@^x
    // start --dev --games ..`. npx installs the server into its own cache: a cache of this run, so
    // an earlier run's install of the same version (other bytes) is not reused.
    const game = join(work, 'games', 'my-phaser-game');
    const npxCache = join(work, 'start-cache');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = spawn('npm', ['start', '--', '--port', String(port)], {
      cwd: game,
      env: { ...registry.env, npm_config_cache: npxCache },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    server.stdout?.on('data', (c: Buffer) => (serverOutput += c.toString()));
    server.stderr?.on('data', (c: Buffer) => (serverOutput += c.toString()));
    const deadline = Date.now() + 300_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}):\n${serverOutput}`);
      if (await fetch(`${base}/games/config.json`).then((r) => r.ok, () => false)) break;
      if (Date.now() > deadline) throw new Error(`the server did not answer:\n${serverOutput}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    // What npx installed came from the local registry alone.
    const npxDirs = await readdir(join(npxCache, '_npx'));
    expect(npxDirs).toHaveLength(1);
    const installed = JSON.parse(await readFile(join(npxCache, '_npx', npxDirs[0]!, 'node_modules/.package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string; link?: boolean }> };
    const entries = Object.entries(installed.packages);
    expect(entries.some(([path]) => path === 'node_modules/@social-layer/server')).toBe(true);
    for (const [path, entry] of entries) {
      expect(entry.link, `${path} is a link`).not.toBe(true);
      if (entry.resolved !== undefined) expect(entry.resolved.startsWith(registry.url), `${path} resolved from ${entry.resolved}`).toBe(true);
    }
    note(`server answering (prebuilt binary requests: ${published!.prebuilds.requests.join(', ') || 'none'})`);
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

    // One browser; the three games' pairs of guests in parallel (each pair in contexts of its own).
    browser = await launchChromium(WEBGL_ARGS);
    const errors: string[] = [];
    await Promise.all(
      ENGINES.map(async (engine) => {
        const { a, b } = await twoGuestsChat(browser!, engine, `${base}/games/my-${engine}-game/`, errors);
        await a.page.screenshot({ path: join(RESULTS_DIR, `registry-${engine}-player-a.png`) });
        await b.page.screenshot({ path: join(RESULTS_DIR, `registry-${engine}-player-b.png`) });
        note(`${engine}: two players met and chatted`);
      }),
    );
    expect(errors).toEqual([]);
  }, 900_000);
});
