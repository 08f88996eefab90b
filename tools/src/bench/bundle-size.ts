/**
 * Bundle sizes for a browser game: each Social Layer package bundled on its own the way a game's
 * build bundles it (esbuild, browser, ESM, minified, the engine and the other Social Layer
 * packages left out), minified and gzip bytes, beside the engines' own bundles. The budget is
 * 150 KB gzip for client + ui, what every game loads. The Opus fallback (opusscript) is a chunk
 * loaded only where WebCodecs has no Opus, so it is measured on its own, not in the client.
 */
import { gzipSync } from 'node:zlib';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import type { BenchResult } from './types.ts';

const ROOT = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
const BUDGET_GZIP = 150 * 1024;
const ENGINES = ['phaser', 'playcanvas', '@babylonjs/core'];

interface Size {
  minified: number;
  gzip: number;
}

/** Bundles `contents` (an entry module's source) and sums the JavaScript it emits, chunks aside. */
async function measure(contents: string, external: string[], opusExternal = true): Promise<Size> {
  const result = await esbuild.build({
    stdin: { contents, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    splitting: false,
    // `ws` is Node-only (a dynamic import a browser never reaches); opusscript is the fallback chunk.
    external: ['ws', ...(opusExternal ? ['opusscript'] : []), ...external],
    outdir: '/tmp/bundle-size',
    logLevel: 'silent',
  });
  const js = result.outputFiles.filter((f) => f.path.endsWith('.js')).map((f) => f.contents);
  const all = Buffer.concat(js.map((b) => Buffer.from(b)));
  return { minified: all.length, gzip: gzipSync(all, { level: 9 }).length };
}

const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;

export default async function bundleSize(): Promise<BenchResult> {
  const social = ['@social-layer/client', '@social-layer/ui', '@social-layer/phaser', '@social-layer/babylon', '@social-layer/playcanvas'];
  const figures: Record<string, number | string> = {};
  const sizes = new Map<string, Size>();
  for (const name of social) {
    // Each package alone: the others and the engines are someone else's line.
    const size = await measure(`export * from '${name}';`, [...social.filter((n) => n !== name), ...ENGINES, '@babylonjs/*']);
    sizes.set(name, size);
    figures[`${name} minified KB`] = kb(size.minified);
    figures[`${name} gzip KB`] = kb(size.gzip);
  }
  const both = await measure(`export * from '@social-layer/client'; export * from '@social-layer/ui';`, [...ENGINES, '@babylonjs/*']);
  figures['client+ui minified KB'] = kb(both.minified);
  figures['client+ui gzip KB'] = kb(both.gzip);
  figures['client+ui gzip budget KB'] = kb(BUDGET_GZIP);
  figures['client+ui within budget'] = both.gzip <= BUDGET_GZIP ? 'yes' : 'NO';
  // What bundling opusscript plainly costs (its asm.js build comes along): why it must stay a chunk.
  const opus = await measure(`export { default } from 'opusscript';`, [], false);
  figures['opusscript plain bundle minified KB'] = kb(opus.minified);
  figures['opusscript plain bundle gzip KB'] = kb(opus.gzip);
  for (const engine of ENGINES) {
    const size = await measure(`import * as engine from '${engine}'; (globalThis as any).engine = engine;`, []);
    figures[`engine ${engine} minified KB`] = kb(size.minified);
    figures[`engine ${engine} gzip KB`] = kb(size.gzip);
  }
  return {
    description: 'Minified and gzip (level 9) sizes of the SDK packages as a browser bundle, each without the engine, beside the engines',
    figures,
    notes: [
      'Each package is measured alone (other Social Layer packages and the engines external); client+ui together is what every game loads.',
      'opusscript is external to the client: browsers with WebCodecs Opus never load it.',
      both.gzip <= BUDGET_GZIP ? `client+ui ${kb(both.gzip)} KB gzip is within the 150 KB budget` : `client+ui ${kb(both.gzip)} KB gzip is OVER the 150 KB budget`,
    ],
  };
}
