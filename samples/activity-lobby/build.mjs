// Bundles the activity into dist/ (index.html, bundle.js), the folder its root URL mapping points
// at (served by the platform at /games/activity-lobby/ or by any static server).
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildGame } from '../buildGame.mjs';

const root = dirname(fileURLToPath(import.meta.url));

export const build = (options) => buildGame(root, options);

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`built ${await build({ sourcemap: process.argv.includes('--sourcemap') })}`);
}
