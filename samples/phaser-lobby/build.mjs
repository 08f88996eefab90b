// Bundles the sample into dist/ (index.html + bundle.js), the folder the server serves at
// /games/phaser-lobby/. `node build.mjs`, or import { build } from a test.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = dirname(fileURLToPath(import.meta.url));

// Production builds publish no source maps (issue 9, fix 10): a map hands anyone the original
// sources. `node build.mjs --sourcemap` (or { sourcemap: true }) writes linked maps for debugging.
export async function build({ outdir = join(root, 'dist'), minify = true, sourcemap = false } = {}) {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  await esbuild.build({
    entryPoints: [join(root, 'src/main.ts')],
    outfile: join(outdir, 'bundle.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    // The client loads `ws` only in Node, through a dynamic import a browser never reaches;
    // `opusscript` likewise, only where WebCodecs has no Opus (not Chromium).
    external: ['ws', 'opusscript'],
    minify,
    sourcemap: sourcemap ? 'linked' : false,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  await copyFile(join(root, 'index.html'), join(outdir, 'index.html'));
  return outdir;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outdir = await build({ sourcemap: process.argv.includes('--sourcemap') });
  console.log(`built ${outdir}`);
}
