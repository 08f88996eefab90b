import { parseArgs } from 'node:util';
import { COMMANDS } from './cli/commands.ts';
import { type CliCommand, type CliIo, CliUsageError } from './cli/command.ts';

/**
 * `social-layer <command>`: the platform's admin CLI. Each command is a module under cli/ listed
 * in cli/commands.ts; this file only picks one by its words, parses its options strictly
 * (node:util parseArgs: unknown options and stray arguments are errors), and maps failures to
 * exit codes: 2 for usage and input errors, 1 for anything else.
 */
const io: CliIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

function usage(): string {
  return `Usage:\n${COMMANDS.map((c) => `  social-layer ${c.usage}`).join('\n')}\n`;
}

function find(argv: string[]): CliCommand | undefined {
  return COMMANDS.find((c) => c.words.every((w, i) => argv[i] === w));
}

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  const found = find(argv);
  if (!found) {
    io.err(usage());
    return command === undefined || command === '--help' || command === 'help' ? 0 : 2;
  }
  try {
    const { values } = parseArgs({ args: argv.slice(found.words.length), options: found.options, strict: true, allowPositionals: false });
    return await found.run(values, io);
  } catch (err) {
    const usageError = err instanceof CliUsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    if (!usageError) throw err;
    io.err(`social-layer ${found.words.join(' ')}: ${(err as Error).message}\n  social-layer ${found.usage}\n`);
    return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`social-layer: ${err instanceof Error ? err.message : String(err)}\n`);
    const inUse = err as { code?: string; port?: number; address?: string };
    // The usual first-run stumble (a second server, a game's npm start beside the main one): say
    // which port and how to pick another.
    if (inUse.code === 'EADDRINUSE') {
      process.stderr.write(
        `Port ${inUse.port ?? '?'} is taken: something (another Social Layer server?) is listening on ${inUse.address ?? 'it'}:${inUse.port ?? '?'}.\n` +
          'Pick another port: --port N or SOCIAL_LAYER_PORT=N (in a game made with create-game: npm start -- --port N).\n',
      );
    }
    process.exit(1);
  },
);
