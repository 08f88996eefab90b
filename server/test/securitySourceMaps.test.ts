// Issue 9, security fix 10: production builds of the samples publish no source maps (before the
// fix every build wrote bundle.js.map next to the bundle, served at /games/<name>/). Builds each
// sample with its own build script into a temporary folder, as `npm run build` does.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { build as babylon } from '../../samples/babylon-lobby/build.mjs';
import { build as phaser } from '../../samples/phaser-lobby/build.mjs';
import { build as playcanvas } from '../../samples/playcanvas-lobby/build.mjs';
import { cleanupTempDirs, tempDir } from './harness.ts';

afterAll(() => cleanupTempDirs());

const samples = { 'babylon-lobby': babylon, 'phaser-lobby': phaser, 'playcanvas-lobby': playcanvas };

/** Every file under `dir`, relative. */
function files(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]));
}

describe('sample production builds', () => {
  it.each(Object.entries(samples))('%s: no .map file and no sourceMappingURL in what dist/ holds', async (_name, build) => {
    const outdir = await build({ outdir: join(tempDir(), 'dist') });
    const built = files(outdir);
    expect(built).toContain('bundle.js');
    expect(built.filter((f) => f.endsWith('.map'))).toEqual([]);
    for (const f of built.filter((f) => /\.(js|css|html)$/.test(f))) expect([f, readFileSync(join(outdir, f), 'utf8').includes('sourceMappingURL')]).toEqual([f, false]);
  }, 60_000);

  it('a debugging build still gets linked maps when asked for', async () => {
    const outdir = await phaser({ outdir: join(tempDir(), 'dist'), sourcemap: true });
    expect(existsSync(join(outdir, 'bundle.js.map'))).toBe(true);
    expect(readFileSync(join(outdir, 'bundle.js'), 'utf8')).toContain('sourceMappingURL=bundle.js.map');
  }, 60_000);
});
