import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '@social-layer/server';
import { createGame } from '../src/scaffold/createGame.ts';

const ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
// Inside the checkout (gitignored), so the new game's build resolves esbuild and the packages
// the way an installed game would.
const BASE = join(ROOT, 'tools/.scaffold-tmp');
mkdirSync(BASE, { recursive: true });
const work = mkdtempSync(join(BASE, 'run-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('scaffolder', () => {
  it('makes a game from a sample that builds and that the platform serves', { timeout: 120_000 }, async () => {
    const dir = join(work, 'space-chat');
    const game = await createGame({ sample: 'phaser-lobby', outDir: dir, name: 'space-chat' });
    expect(game.files).toContain('src/main.ts');
    expect(game.files).toContain('build.mjs');
    expect(game.files).toContain('buildGame.mjs');
    expect(readFileSync(join(dir, 'build.mjs'), 'utf8')).toContain("from './buildGame.mjs'");
    expect(game.files.some((f) => f.startsWith('test/'))).toBe(false);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('space-chat');
    expect(pkg.dependencies['@social-layer/client']).toBe(`file:${join(ROOT, 'bindings/client')}`);
    // Packages the game only needs through others are linked too: none is on a registry.
    for (const [name, dir] of [['@social-layer/protocol', 'bindings/protocol'], ['@social-layer/core-wasm', 'core-wasm'], ['@social-layer/ui', 'plugins/ui']]) {
      expect(pkg.dependencies[name!]).toBe(`file:${join(ROOT, dir!)}`);
    }
    expect(pkg.dependencies.phaser).toMatch(/^\^4/);
    expect(pkg.devDependencies.esbuild).toBeTruthy();
    // The README is the game's: how to run it and where its code is, not the sample's tests.
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(readme.split('\n')[0]).toBe('# space-chat');
    expect(readme).toContain('started\nfrom the `phaser-lobby` template');
    expect(readme).toContain('/games/space-chat/');
    expect(readme).toMatch(/- `src\/main\.ts`/);
    expect(readme).toMatch(/- `src\/LobbyScene\.ts`: The play field/);
    for (const sampleOnly of ['(sample)', 'samples/phaser-lobby', 'npx vitest', '__socialLayerSample', 'test/', 'Test hook']) {
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

  it('refuses a bad name, an unknown sample and a non-empty target, writing nothing', async () => {
    await expect(createGame({ sample: 'phaser-lobby', outDir: join(work, 'x'), name: 'Bad Name' })).rejects.toThrow(/invalid game name/);
    expect(existsSync(join(work, 'x'))).toBe(false);
    await expect(createGame({ sample: 'no-such-sample', outDir: join(work, 'y'), name: 'y' })).rejects.toThrow(/unknown sample "no-such-sample"; choose one of: .*phaser-lobby/);
    expect(existsSync(join(work, 'y'))).toBe(false);
    mkdirSync(join(work, 'taken'));
    writeFileSync(join(work, 'taken', 'keep.txt'), 'mine');
    await expect(createGame({ sample: 'phaser-lobby', outDir: join(work, 'taken'), name: 'taken' })).rejects.toThrow(/not empty/);
    expect(readFileSync(join(work, 'taken', 'keep.txt'), 'utf8')).toBe('mine');
  });
});
