/**
 * `npm create @social-layer/game [DIR] [-- --engine phaser|babylon|playcanvas] [--name NAME] [--title TITLE] [--link]`:
 * asks for what is missing when run in a terminal, writes the game, and says what to run next.
 * `--link` (run from a checkout; the repository's `npm run scaffold`) makes a game that depends on
 * that checkout's packages instead of the registry.
 */
import { basename } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { createGame } from './createGame.ts';
import { ENGINES, findEngine } from './engines.ts';
import { ownCheckout } from './link.ts';

const USAGE = `Usage: npm create @social-layer/game [DIR] -- [--engine ${ENGINES.map((e) => e.id).join('|')}] [--name NAME] [--title TITLE] [--link]
Writes a multiplayer web game on Social Layer into DIR (default: my-game). NAME is its npm name and
storage namespace (default: the folder's name), TITLE what its page's tab and header say (default: NAME).
--link (from a Social Layer checkout: npm run scaffold): depend on the checkout's packages
(file: links) and run its server, instead of the registry's.
`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      engine: { type: 'string', short: 'e' },
      template: { type: 'string', short: 't' },
      name: { type: 'string', short: 'n' },
      title: { type: 'string' },
      link: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const checkout = values.link ? await ownCheckout() : undefined;
  if (values.link && !checkout) {
    process.stderr.write('--link needs create-game run from a Social Layer checkout (npm run scaffold there).\n');
    return 2;
  }
  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const prompt = interactive ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  try {
    let outDir = positionals[0];
    if (!outDir) outDir = (prompt ? (await prompt.question('Folder for the game (my-game): ')).trim() : '') || 'my-game';
    let engineId = values.engine ?? values.template ?? positionals[1];
    while (!engineId || !findEngine(engineId)) {
      if (!prompt) {
        process.stderr.write(`${engineId ? `Unknown engine "${engineId}". ` : 'No engine named. '}${USAGE}`);
        return 2;
      }
      const list = ENGINES.map((e, i) => `  ${i + 1}. ${e.label} (${e.id})`).join('\n');
      const answer = (await prompt.question(`Engine:\n${list}\nChoose 1-${ENGINES.length} (1): `)).trim() || '1';
      engineId = ENGINES[Number(answer) - 1]?.id ?? answer;
    }
    const name = values.name ?? basename(outDir).toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
    const game = await createGame({ engine: engineId, outDir, name, title: values.title, link: checkout?.root });
    process.stdout.write(
      `Created ${game.dir}: a ${game.engine.label} game (${game.files.length} files).\n\n` +
        (checkout ? `Its Social Layer packages are file: links into ${checkout.root}.\n` : '') +
        `Next:\n  cd ${outDir}\n  npm install\n  npm run build\n  npm start        # the platform, serving the game at http://127.0.0.1:3333/games/${name}/\n` +
        `                   (port 3333 taken? npm start -- --port 4000)\n\n` +
        `Open that address in two browsers to meet in a lobby. README.md says more.\n`,
    );
    return 0;
  } finally {
    prompt?.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`create-game: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
