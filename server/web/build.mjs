// Bundles the web app into dist/ (app.js, app.css), which the server serves at /app/assets/
// (server/src/http/routes/webApp.ts builds the page around them). `node build.mjs`, or
// import { build } from a test.
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = dirname(fileURLToPath(import.meta.url));
const FILES = ['app.js', 'app.css', 'voice.js'];

export async function build({ outdir = join(root, 'dist'), minify = true } = {}) {
  // Built beside the target and renamed into it file by file (rename is atomic), so a server
  // that is serving dist/ meanwhile (tests run side by side) never sees a missing or half file.
  const scratch = `${outdir}.tmp-${process.pid}-${Date.now()}`;
  try {
    await esbuild.build({
      // main.tsx imports styles.css, which esbuild writes beside the script as app.css.
      entryPoints: { app: join(root, 'src/main.tsx') },
      outdir: scratch,
      entryNames: '[name]',
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      minify,
      // No source maps: the page's CSP and asset route serve app.js and app.css only.
      legalComments: 'none',
      logLevel: 'warning',
    });
    // Guild voice (src/voice/voiceCall.ts): the client SDK in a file of its own, which the app
    // imports only when the user joins voice. One file, no chunks: the asset route serves named
    // files only. `ws` (Node only) and `opusscript` (the fallback for browsers without WebCodecs
    // Opus, which every browser the app supports has) are left out of it.
    await esbuild.build({
      entryPoints: { voice: join(root, 'src/voice/voiceCall.ts') },
      outdir: scratch,
      entryNames: '[name]',
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      external: ['ws', 'opusscript'],
      minify,
      legalComments: 'none',
      logLevel: 'warning',
    });
    await mkdir(outdir, { recursive: true });
    for (const file of FILES) await rename(join(scratch, file), join(outdir, file));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return outdir;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outdir = await build();
  console.log(`built ${outdir}`);
}
