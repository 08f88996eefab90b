// The build every sample (and every game made from one) shares: esbuild bundles src/main.ts into
// dist/bundle.js with code splitting, and the Opus fallback becomes a chunk of its own (see
// opusFallback below), loaded only by browsers without WebCodecs Opus.
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as esbuild from 'esbuild';

/**
 * Bundles `<root>/src/main.ts` and copies `<root>/index.html` into `outdir`; resolves to outdir.
 * Production builds publish no source maps (a map hands anyone the original sources): `sourcemap`
 * (`node build.mjs --sourcemap`) writes linked maps for debugging.
 */
export async function buildGame(root, { outdir = join(root, 'dist'), minify = true, sourcemap = false } = {}) {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  await esbuild.build({
    entryPoints: [{ in: join(root, 'src/main.ts'), out: 'bundle' }],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    // The client loads `ws` only in Node, through a dynamic import a browser never reaches.
    external: ['ws'],
    loader: { '.wasm': 'file' },
    chunkNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    plugins: [gameDependencies(root), opusFallback(root)],
    minify,
    sourcemap: sourcemap ? 'linked' : false,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  await copyFile(join(root, 'index.html'), join(outdir, 'index.html'));
  return outdir;
}

/**
 * The game's own dependencies (the engine) resolve from the game's folder, whoever imports them.
 * A package linked from a checkout (`npm run scaffold`'s `file:` links) resolves its imports from
 * that checkout, so the plugin's `phaser` would otherwise be a second copy of the engine beside
 * the game's: twice the size, and two engines that do not know each other's classes.
 */
export function gameDependencies(root) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const names = new Set(Object.keys(manifest.dependencies ?? {}).filter((name) => !name.startsWith('@social-layer/')));
  const packageOf = (path) => path.split('/').slice(0, path.startsWith('@') ? 2 : 1).join('/');
  return {
    name: 'social-layer-game-dependencies',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData?.fromGame || !names.has(packageOf(args.path)) || args.resolveDir === root) return undefined;
        const found = await build.resolve(args.path, { kind: args.kind, resolveDir: root, pluginData: { fromGame: true } });
        return found.errors.length > 0 ? { errors: found.errors } : { path: found.path, namespace: found.namespace, sideEffects: found.sideEffects };
      });
    },
  };
}

/**
 * The client imports `opusscript` (libopus 1.4) only where WebCodecs has no Opus, with a dynamic
 * import, so with splitting it is a chunk a browser with WebCodecs never downloads. This plugin
 * makes that chunk the WASM build alone: the asm.js build (about 580 KB that opusscript's index
 * requires too) is left out, and the chunk fetches the .wasm file (emitted next to the bundle)
 * before handing over the library, which Emscripten then instantiates from those bytes
 * (`wasmBinary`): in a page's main thread it could not fetch them itself synchronously.
 */
export function opusFallback(root) {
  // opusscript is the client's dependency, so it is looked up from the file that imports it (the
  // client's), not from the game's folder: npm need not put it there, and a client linked from a
  // checkout (`npm run scaffold`) has it in that checkout's node_modules.
  const opusDirFrom = (importer) => dirname(createRequire(importer || join(root, 'package.json')).resolve('opusscript/package.json'));
  const loader = `
import wasmUrl from './build/opusscript_native_wasm.wasm';
const response = await fetch(new URL(wasmUrl, import.meta.url));
if (!response.ok) throw new Error('Opus fallback: ' + wasmUrl + ' answered HTTP ' + response.status);
globalThis.__socialLayerOpusWasm = new Uint8Array(await response.arrayBuffer());
export { default } from 'opusscript';
`;
  return {
    name: 'social-layer-opus-fallback',
    setup(build) {
      build.onResolve({ filter: /^opusscript$/ }, (args) => {
        if (args.namespace === 'social-layer-opus') return { path: join(args.pluginData.opusDir, 'index.js') };
        const opusDir = opusDirFrom(args.importer);
        return { path: opusDir, namespace: 'social-layer-opus', pluginData: { opusDir } };
      });
      build.onLoad({ filter: /.*/, namespace: 'social-layer-opus' }, (args) => ({ contents: loader, loader: 'js', resolveDir: args.pluginData.opusDir, pluginData: args.pluginData }));
      build.onResolve({ filter: /opusscript_native_nasm\.js$/ }, () => ({ path: 'asm.js build left out', namespace: 'social-layer-opus-none' }));
      build.onLoad({ filter: /.*/, namespace: 'social-layer-opus-none' }, () => ({
        contents: "module.exports = () => { throw new Error('the asm.js build of opusscript is not bundled: use the WASM build'); };",
        loader: 'js',
      }));
      build.onLoad({ filter: /opusscript_native_wasm\.js$/ }, async (args) => ({
        contents:
          (await readFile(args.path, 'utf8')) +
          '\nvar __slOpusFactory = module.exports;\nmodule.exports = (options = {}) => __slOpusFactory(Object.assign({ wasmBinary: globalThis.__socialLayerOpusWasm }, options));\n',
        loader: 'js',
        resolveDir: dirname(args.path),
      }));
    },
  };
}
