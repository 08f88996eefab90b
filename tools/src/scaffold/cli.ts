/**
 * `npm run scaffold -- SAMPLE OUT_DIR [--name NAME]`: a new game from one of samples/.
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { createGame } from './createGame.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { name: { type: 'string' } } });
const [sample, outDir] = positionals;
if (!sample || !outDir) {
  process.stderr.write('Usage: npm run scaffold -- SAMPLE OUT_DIR [--name NAME]   (samples: see the samples/ folder)\n');
  process.exit(2);
}
try {
  const game = await createGame({ sample, outDir, name: values.name ?? basename(outDir) });
  process.stdout.write(`Created ${game.dir} (${game.files.length} files). Next: cd ${outDir} && npm install && npm run build\n`);
} catch (err) {
  process.stderr.write(`scaffold: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
