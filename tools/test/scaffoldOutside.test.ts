/**
 * `npm run scaffold` as a developer uses it: games for each engine made in a folder outside the
 * checkout (under the system's temp dir, no node_modules above them), then, in each game's folder,
 * `npm install`, `npm run build` and `npm start`, as its README says; with the port taken, npm
 * start says which and how to pick another; on a free one it serves the games, and in Chromium a
 * guest of each signs in, joins the lobby and chats. The registry mode's games go the same way
 * in registry.test.ts.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, WEBGL_ARGS } from '../testing/chromium.ts';
import { chatLineAuthor, joinGame, say } from '../testing/gameChat.ts';
import { freePort } from '../testing/verdaccio.ts';

const run = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const RESULTS_DIR = join(ROOT, 'test-results');
const GAMES = [
  { engine: 'phaser', name: 'space-chat', title: 'Space Chat' },
  { engine: 'babylon', name: 'moon-base', title: 'Moon Base' },
  { engine: 'playcanvas', name: 'sea-side', title: 'Sea & Side' },
] as const;

let work: string;
let games: string;
let server: ChildProcess | undefined;
let browser: Browser | undefined;

/** The environment of a developer's shell: none of the npm_* variables of the npm that started vitest. */
function shellEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));
}

async function sh(cwd: string, command: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd, env: shellEnv(), maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} in ${cwd} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

/** `npm start -- ARGS` in `dir`, in a process group of its own; resolves once it exits or `ready` says so. */
function npmStart(dir: string, args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let output = '';
  const child = spawn('npm', ['start', '--', ...args], { cwd: dir, env: shellEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, output: () => output, exited };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sl-scaffold-outside-'));
  games = join(work, 'games');
  await mkdir(games, { recursive: true });
});

afterAll(async () => {
  await browser?.close().catch(() => {});
  if (server && server.exitCode === null) {
    const exited = new Promise((done) => server!.once('exit', done));
    // npm runs the server in a child of its own: the whole process group goes.
    process.kill(-server.pid!, 'SIGTERM');
    await exited;
  }
  if (work) await rm(work, { recursive: true, force: true });
}, 60_000);

describe('npm run scaffold, the game outside the checkout', () => {
  for (const { engine, name, title } of GAMES) {
    it(`a ${engine} game named "${name}", titled "${title}", installs and builds in its own folder`, { timeout: 300_000 }, async () => {
      const dir = join(games, name);
      await sh(ROOT, 'npm', ['run', '--silent', 'scaffold', '--', dir, '--engine', engine, '--title', title]);
      const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { name: string };
      expect(pkg.name).toBe(name);
      const page = await readFile(join(dir, 'index.html'), 'utf8');
      const escaped = title.replace('&', '&#38;');
      expect(page).toContain(`<title>${escaped}</title>`);
      expect(page).toContain(`<h1>${escaped}</h1>`);
      const readme = await readFile(join(dir, 'README.md'), 'utf8');
      expect(readme).toContain('npm start -- --port 4000');

      await sh(dir, 'npm', ['install', '--no-audit', '--no-fund']);
      await sh(dir, 'npm', ['run', 'build']);
      const dist = await readdir(join(dir, 'dist'));
      expect(dist).toContain('index.html');
      // The Opus fallback, found through the linked client (not in the game's node_modules).
      expect(existsSync(join(dir, 'node_modules/opusscript'))).toBe(false);
      expect(dist.some((f) => /^opusscript-.*\.js$/.test(f))).toBe(true);
      expect(dist.some((f) => /^opusscript_native_wasm-.*\.wasm$/.test(f))).toBe(true);
      if (engine === 'phaser') {
        // One Phaser: the linked plugin's import resolves to the game's copy, not the checkout's.
        const versions = (await readFile(join(dir, 'dist/bundle.js'), 'utf8')).match(/VERSION:"\d+\.\d+\.\d+"/g) ?? [];
        expect(versions).toHaveLength(1);
      }
    });
  }

  it('npm start on a taken port says which port and how to pick another', { timeout: 120_000 }, async () => {
    const holder: Server = createServer();
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
    const port = (holder.address() as { port: number }).port;
    try {
      const start = npmStart(join(games, GAMES[0].name), ['--port', String(port)]);
      expect(await start.exited).not.toBe(0);
      expect(start.output()).toContain(`Port ${port} is taken`);
      expect(start.output()).toContain('npm start -- --port N');
    } finally {
      holder.close();
    }
  });

  it('npm start -- --port serves every game on a free port; in Chromium a guest of each signs in, joins the lobby and chats', { timeout: 240_000 }, async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const start = npmStart(join(games, GAMES[0].name), ['--port', String(port)]);
    server = start.child;
    await expect
      .poll(async () => {
        if (server!.exitCode !== null) throw new Error(`npm start exited (${server!.exitCode}):\n${start.output()}`);
        return fetch(`${base}/games/config.json`).then((r) => r.ok, () => false);
      }, { timeout: 120_000, interval: 500 })
      .toBe(true);
    expect(start.output()).toContain(`${base}/games/${GAMES[0].name}/`);

    browser = await launchChromium(WEBGL_ARGS);
    await mkdir(RESULTS_DIR, { recursive: true });
    for (const { engine, name, title } of GAMES) {
      const errors: string[] = [];
      const { context, page, info } = await joinGame(browser, engine, `${base}/games/${name}/`, errors);
      try {
        expect(await page.title()).toBe(title);
        expect(await page.locator('header h1').textContent()).toBe(title);
        const text = `hello from ${name} ${Date.now()}`;
        await say(page, text);
        expect(await chatLineAuthor(page, text)).toBe(info.userId);
        await page.screenshot({ path: join(RESULTS_DIR, `scaffold-outside-${engine}.png`) });
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });
});
