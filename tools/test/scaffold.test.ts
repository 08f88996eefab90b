/**
 * `npm run scaffold`: create-game (`npm create @social-layer/game`) in link mode, run from this
 * checkout: a game whose Social Layer packages are `file:` links into the checkout, built and
 * served by a real server; create-game's prompts driven through a pseudo-terminal (util-linux
 * `script`), and its refusals. The registry mode is tested in releasePackages.test.ts and
 * registry.test.ts.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '@social-layer/server';
import { createGame } from '../create-game/src/index.ts';

const ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const CREATE_GAME = join(ROOT, 'tools/create-game/bin/create-game.js');
// Inside the checkout (gitignored), so the new game's build resolves esbuild and the packages
// the way an installed game would.
const BASE = join(ROOT, 'tools/.scaffold-tmp');
mkdirSync(BASE, { recursive: true });
const work = mkdtempSync(join(BASE, 'run-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const HAS_SCRIPT = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

describe('npm run scaffold (create-game --link)', () => {
  it('makes a game linked to this checkout that builds and that the platform serves', { timeout: 180_000 }, async () => {
    const dir = join(work, 'space-chat');
    // The package.json script itself, as a developer runs it (stdin is not a terminal: no prompts).
    const out = execFileSync('npm', ['run', '--silent', 'scaffold', '--', dir, '--engine', 'phaser', '--name', 'space-chat'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out).toContain('a Phaser game');
    expect(out).toContain(`file: links into ${ROOT}`);
    expect(existsSync(join(dir, 'src/main.ts'))).toBe(true);
    expect(readFileSync(join(dir, 'build.mjs'), 'utf8')).toContain("from './buildGame.mjs'");
    expect(existsSync(join(dir, 'buildGame.mjs'))).toBe(true);
    expect(existsSync(join(dir, 'test'))).toBe(false);
    expect(existsSync(join(dir, 'template.json'))).toBe(false);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('space-chat');
    // Every Social Layer package the game needs, direct or not, is linked: none is on a registry.
    for (const [name, folder] of [
      ['@social-layer/client', 'bindings/client'],
      ['@social-layer/protocol', 'bindings/protocol'],
      ['@social-layer/core-wasm', 'core-wasm'],
      ['@social-layer/ui', 'plugins/ui'],
      ['@social-layer/phaser', 'plugins/phaser'],
    ]) {
      expect(pkg.dependencies[name!], name).toBe(`file:${join(ROOT, folder!)}`);
    }
    expect(Object.entries(pkg.dependencies).filter(([name]) => name.startsWith('@social-layer/')).every(([, spec]) => String(spec).startsWith('file:'))).toBe(true);
    expect(pkg.dependencies.phaser).toMatch(/^\^4/);
    expect(pkg.devDependencies.esbuild).toBeTruthy();
    // npm start runs this checkout's server, not one from the registry.
    expect(pkg.scripts.start).toBe(`node "${join(ROOT, 'server/bin/social-layer.js')}" start --dev --games ..`);
    // The README is the game's: how to run it, that it is linked, where its code is.
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(readme.split('\n')[0]).toBe('# space-chat');
    expect(readme).toContain('made with\n`npm run scaffold` in a Social Layer checkout (the `phaser` template)');
    expect(readme).toContain(`\`file:\` links into\n\`${ROOT}\``);
    expect(readme).toContain('/games/space-chat/');
    expect(readme).toMatch(/- `src\/main\.ts`/);
    expect(readme).toMatch(/- `src\/LobbyScene\.ts`: The play field/);
    for (const sampleOnly of ['(sample)', 'samples/phaser-lobby', 'npx vitest', 'Test hook', 'npm create @social-layer/game']) {
      expect(readme, sampleOnly).not.toContain(sampleOnly);
    }
    // Its own storage namespace and page title.
    expect(readFileSync(join(dir, 'src/main.ts'), 'utf8')).toContain("game: 'space-chat'");
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toContain('<title>space-chat</title>');

    execFileSync(process.execPath, ['build.mjs'], { cwd: dir, stdio: 'pipe' });
    expect(existsSync(join(dir, 'dist/index.html'))).toBe(true);
    // The Opus fallback is a chunk with its WASM file beside the bundle, not inside it.
    const dist = readdirSync(join(dir, 'dist'));
    expect(dist.some((f) => /^opusscript-.*\.js$/.test(f))).toBe(true);
    expect(dist.some((f) => /^opusscript_native_wasm-.*\.wasm$/.test(f))).toBe(true);

    const server = await startServer({ port: 0, dataDir: mkdtempSync(join(work, 'data-')), samplesDir: work, logLevel: 'error' });
    try {
      const page = await fetch(`${server.url}/games/space-chat/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('bundle.js');
      expect((await fetch(`${server.url}/games/space-chat/bundle.js`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it.skipIf(!HAS_SCRIPT)('asks for the folder and the engine in a terminal (driven through a pseudo-terminal), again after an unknown engine', { timeout: 60_000 }, async () => {
    const cwd = mkdtempSync(join(work, 'tty-'));
    // util-linux `script` runs the CLI on a pseudo-terminal (stdin and stdout are TTYs there) and
    // copies what we write to its stdin into that terminal.
    const child = spawn('script', ['-q', '-e', '-c', `${JSON.stringify(process.execPath)} ${JSON.stringify(CREATE_GAME)} --link`, '/dev/null'], {
      cwd,
      env: { ...process.env, TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const waitFor = (text: string, after: number) =>
      new Promise<void>((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`no "${text}" on the terminal; it shows:\n${screen}`)), 30_000);
        const check = () => {
          if (screen.indexOf(text, after) >= 0) {
            clearTimeout(timer);
            child.stdout.off('data', check);
            done();
          }
        };
        child.stdout.on('data', check);
        check();
      });
    child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (screen += chunk.toString('utf8')));

    await waitFor('Folder for the game (my-game): ', 0);
    child.stdin.write('asked-game\r');
    await waitFor('Choose 1-3 (1): ', 0);
    const firstChoice = screen.lastIndexOf('Choose 1-3 (1): ');
    expect(screen).toContain('2. Babylon.js (babylon)');
    child.stdin.write('unity\r');
    // Not an engine: the list again.
    await waitFor('Choose 1-3 (1): ', firstChoice + 1);
    child.stdin.write('2\r');
    await waitFor('Created ', 0);
    expect(await exited).toBe(0);
    child.stdin.end();

    expect(screen).toContain('a Babylon.js game');
    const dir = join(cwd, 'asked-game');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('asked-game');
    expect(pkg.dependencies['@social-layer/babylon']).toBe(`file:${join(ROOT, 'plugins/babylon')}`);
    expect(readFileSync(join(dir, 'src/main.ts'), 'utf8')).toContain("game: 'asked-game'");
  });

  it('without a terminal, a missing or unknown engine is an error with the usage, writing nothing', () => {
    const cwd = mkdtempSync(join(work, 'pipe-'));
    for (const args of [['quiet-game'], ['quiet-game', '--engine', 'unity']]) {
      const run = spawnSync(process.execPath, [CREATE_GAME, '--link', ...args], { cwd, encoding: 'utf8', input: '' });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(args.length === 1 ? /No engine named\. Usage:/ : /Unknown engine "unity"\. Usage:/);
      expect(run.stderr).toContain('--link');
    }
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('refuses a bad name, an unknown engine, a non-empty target and a folder that is not a checkout, writing nothing', async () => {
    await expect(createGame({ engine: 'phaser', outDir: join(work, 'x'), name: 'Bad Name', link: ROOT })).rejects.toThrow(/invalid game name/);
    expect(existsSync(join(work, 'x'))).toBe(false);
    await expect(createGame({ engine: 'unity', outDir: join(work, 'y'), name: 'y', link: ROOT })).rejects.toThrow(/unknown engine "unity"; choose one of: phaser, babylon, playcanvas/);
    expect(existsSync(join(work, 'y'))).toBe(false);
    const notCheckout = mkdtempSync(join(work, 'plain-'));
    writeFileSync(join(notCheckout, 'package.json'), '{"name":"plain"}');
    await expect(createGame({ engine: 'phaser', outDir: join(work, 'z'), name: 'z', link: notCheckout })).rejects.toThrow(/is not a Social Layer checkout/);
    expect(existsSync(join(work, 'z'))).toBe(false);
    mkdirSync(join(work, 'taken'));
    writeFileSync(join(work, 'taken', 'keep.txt'), 'mine');
    await expect(createGame({ engine: 'phaser', outDir: join(work, 'taken'), name: 'taken', link: ROOT })).rejects.toThrow(/not empty/);
    expect(readFileSync(join(work, 'taken', 'keep.txt'), 'utf8')).toBe('mine');
  });
});
