/**
 * Bundle sizes for a browser game: each Social Layer package bundled on its own the way a game's
 * build bundles it (esbuild, browser, ESM, minified, the engine and the other Social Layer
 * packages left out), minified and gzip bytes, beside the engines' own bundles. The budget is
 * 150 KB gzip for client + ui, what every game loads. The Opus fallback (opusscript) is a chunk
 * loaded only where WebCodecs has no Opus, so it is measured on its own, not in the client; DAVE/MLS
 * is a chunk loaded when a call starts, reported on its own line.
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

interface Measured extends Size {
  /** Chunks loaded only through a dynamic import (DAVE/MLS when a call starts), summed. */
  lazy: Size;
}

/**
 * Bundles `contents` (an entry module's source) the way a game's build does (code splitting on) and
 * sums the JavaScript a page loads up front: the entry file and the chunks it imports statically.
 * Chunks reached only through a dynamic `import()` (DAVE/MLS, loaded when a call starts) are summed
 * apart as `lazy`.
 */
async function measure(contents: string, external: string[], opusExternal = true): Promise<Measured> {
  const result = await esbuild.build({
    stdin: { contents, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    splitting: true,
    metafile: true,
    // `ws` is Node-only (a dynamic import a browser never reaches); opusscript is the fallback chunk.
    external: ['ws', ...(opusExternal ? ['opusscript'] : []), ...external],
    outdir: '/tmp/bundle-size',
    logLevel: 'silent',
  });
  const outputs = result.metafile.outputs;
  const byPath = new Map(result.outputFiles.map((f) => [f.path, f.contents]));
  const abs = (path: string) => resolve(ROOT, path);
  // Dynamic-import targets are entry points too: the page's own is the stdin one.
  const entry = Object.keys(outputs).find((path) => path.endsWith('.js') && outputs[path]?.entryPoint === '<stdin>');
  if (entry === undefined) throw new Error('bundle-size: esbuild reported no entry output');
  // Up front: the entry and everything it reaches through static imports.
  const eager = new Set<string>();
  const walk = (path: string) => {
    if (eager.has(path)) return;
    eager.add(path);
    for (const imp of outputs[path]?.imports ?? []) if (imp.kind === 'import-statement' && !imp.external) walk(imp.path);
  };
  walk(entry);
  const size = (paths: string[]): Size => {
    const all = Buffer.concat(paths.map((p) => Buffer.from(byPath.get(abs(p)) ?? new Uint8Array())));
    return { minified: all.length, gzip: all.length === 0 ? 0 : gzipSync(all, { level: 9 }).length };
  };
  const js = Object.keys(outputs).filter((p) => p.endsWith('.js'));
  return { ...size([...eager]), lazy: size(js.filter((p) => !eager.has(p))) };
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
  // DAVE/MLS (@social-layer/dave, ts-mls, curves): a chunk fetched when the first call starts.
  figures['client lazy chunks (DAVE/MLS) minified KB'] = kb(both.lazy.minified);
  figures['client lazy chunks (DAVE/MLS) gzip KB'] = kb(both.lazy.gzip);
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
      'Code splitting on, as the samples build: sizes are what a page loads up front; DAVE/MLS is a chunk loaded when a call starts (its line apart).',
      both.gzip <= BUDGET_GZIP ? `client+ui ${kb(both.gzip)} KB gzip is within the 150 KB budget` : `client+ui ${kb(both.gzip)} KB gzip is OVER the 150 KB budget`,
    ],
  };
}
