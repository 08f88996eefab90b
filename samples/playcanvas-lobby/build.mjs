// Bundles the sample into dist/ (index.html + bundle.js), the folder the server serves at
// /games/playcanvas-lobby/. `node build.mjs`, or import { build } from a test.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = dirname(fileURLToPath(import.meta.url));

export async function build({ outdir = join(root, 'dist'), minify = true } = {}) {
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
    sourcemap: true,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  await copyFile(join(root, 'index.html'), join(outdir, 'index.html'));
  return outdir;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outdir = await build();
  console.log(`built ${outdir}`);
}
