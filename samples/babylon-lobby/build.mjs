// Bundles the sample into dist/ (index.html, bundle.js and its chunks), the folder the server
// serves at /games/babylon-lobby/. `node build.mjs`, or import { build } from a test.
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildGame } from '../buildGame.mjs';

const root = dirname(fileURLToPath(import.meta.url));

export const build = (options) => buildGame(root, options);

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`built ${await build({ sourcemap: process.argv.includes('--sourcemap') })}`);
}
