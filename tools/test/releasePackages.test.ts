/**
 * The release setup without a registry (the publishing test, registry.test.ts, does the rest
 * end to end): every published package's manifest, versions that move together, the manifest
 * the registry gets, the specifier rewrite of the build, and `npm create @social-layer/game`'s
 * output for each engine (from the repository's samples, as the CLI does when nothing is built).
 */
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGame, ENGINES } from '../create-game/src/index.ts';
import { rewriteSpecifiers } from '../src/release/build.ts';
import { PUBLISHED_PACKAGES, REPO_ROOT, readManifest, workspaceDirs } from '../src/release/packages.ts';
import { publishedManifest } from '../src/release/publish.ts';
import { setVersion, versionProblems } from '../src/release/version.ts';

const scratch = await mkdtemp(join(tmpdir(), 'sl-create-game-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('published packages', () => {
  it('each has files, engines, no private flag, and publishes exports that point at dist/', () => {
    for (const dir of PUBLISHED_PACKAGES) {
      const manifest = readManifest(dir);
      expect(manifest.private, dir).toBeUndefined();
      expect(manifest.files, dir).toContain('dist');
      expect(manifest.engines?.node, dir).toBe('>=20.19');
      const published = publishedManifest(manifest);
      const exportsJson = JSON.stringify(published.exports);
      expect(exportsJson, dir).toContain('./dist/');
      expect(exportsJson, dir).not.toContain('/src/');
      expect(exportsJson, dir).toContain('.d.ts');
      expect(published.scripts).toBeUndefined();
      expect(published.devDependencies).toBeUndefined();
      expect(published.publishConfig).toEqual({ access: 'public' });
    }
  });

  it('move together: one version, and every dependency on one of them names it', () => {
    expect(versionProblems()).toEqual([]);
  });

  it('release:version moves every published package and every dependency on one together (on a copy of the manifests)', () => {
    const copy = join(scratch, 'manifests');
    for (const dir of ['.', ...workspaceDirs()]) {
      mkdirSync(join(copy, dir), { recursive: true });
      cpSync(join(REPO_ROOT, dir, 'package.json'), join(copy, dir, 'package.json'));
    }
    expect(() => setVersion('not-a-version', copy)).toThrow(/not a version/);
    const changed = setVersion('7.8.9-rc.1', copy);
    expect(changed).toEqual(expect.arrayContaining(['.', 'server', 'tools/create-game', 'samples/phaser-lobby']));
    expect(versionProblems(copy)).toEqual([]);
    for (const dir of PUBLISHED_PACKAGES) expect(readManifest(dir, copy).version).toBe('7.8.9-rc.1');
    expect(readManifest('samples/babylon-lobby', copy).version).toBe(readManifest('samples/babylon-lobby').version);
    expect(readManifest('samples/babylon-lobby', copy).dependencies?.['@social-layer/babylon']).toBe('7.8.9-rc.1');
    expect(readManifest('plugins/phaser', copy).dependencies?.['@social-layer/ui']).toBe('7.8.9-rc.1');
    expect(readManifest('.', copy).dependencies?.['@social-layer/server']).toBe('7.8.9-rc.1');
  });

  it('the build rewrites relative .ts specifiers to .js, same length (source maps stay exact)', () => {
    const code = `import { a } from './a.ts';\nexport * from "../b/c.ts";\nconst d = await import('./d.ts');\nimport 'pkg/e.ts';\nimport type { F } from './f.ts';`;
    const out = rewriteSpecifiers(code);
    expect(out).toBe(`import { a } from './a.js';\nexport * from "../b/c.js";\nconst d = await import('./d.js');\nimport 'pkg/e.ts';\nimport type { F } from './f.js';`);
    expect(out.length).toBe(code.length);
  });
});

describe('npm create @social-layer/game', () => {
  for (const engine of ENGINES) {
    it(`writes a ${engine.label} game that depends on registry versions, with its README`, async () => {
      const dir = join(scratch, `my-${engine.id}`);
      const game = await createGame({ engine: engine.id, outDir: dir, name: `my-${engine.id}` });
      expect(game.files).toEqual(expect.arrayContaining(['package.json', 'README.md', '.gitignore', 'index.html', 'build.mjs', 'buildGame.mjs', 'src/main.ts']));
      expect(game.files.some((f) => f.startsWith('test/'))).toBe(false);
      const text = await readFile(join(dir, 'package.json'), 'utf8');
      expect(text).not.toContain('file:');
      const pkg = JSON.parse(text) as { name: string; dependencies: Record<string, string>; scripts: Record<string, string> };
      expect(pkg.name).toBe(`my-${engine.id}`);
      const version = readManifest('tools/create-game').version;
      expect(pkg.dependencies[engine.plugin]).toBe(`^${version}`);
      expect(pkg.dependencies['@social-layer/ui']).toBe(`^${version}`);
      expect(pkg.scripts.start).toContain('@social-layer/server');
      expect(await readFile(join(dir, 'build.mjs'), 'utf8')).toContain("'./buildGame.mjs'");
      expect(await readFile(join(dir, 'src/main.ts'), 'utf8')).toContain(`game: 'my-${engine.id}'`);
      expect(await readFile(join(dir, 'index.html'), 'utf8')).toContain(`<title>my-${engine.id}</title>`);
      const readme = await readFile(join(dir, 'README.md'), 'utf8');
      expect(readme).toContain(`# my-${engine.id}`);
      expect(readme).toContain(engine.label);
      expect(readme).toContain('npm start');
      expect(readme).not.toContain('file:');
    });
  }

  it('refuses an unknown engine, a bad name and a folder that is not empty', async () => {
    await expect(createGame({ engine: 'unity', outDir: join(scratch, 'x'), name: 'x' })).rejects.toThrow(/unknown engine "unity"; choose one of: phaser, babylon, playcanvas/);
    await expect(createGame({ engine: 'phaser', outDir: join(scratch, 'y'), name: 'Bad Name' })).rejects.toThrow(/invalid game name/);
    await expect(createGame({ engine: 'phaser', outDir: join(scratch, 'my-phaser'), name: 'again' })).rejects.toThrow(/is not empty/);
    expect(existsSync(join(scratch, 'x'))).toBe(false);
  });
});
