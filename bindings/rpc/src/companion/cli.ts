import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_IPC_NAME } from '../ipcPath.ts';
import { Companion } from './Companion.ts';
import { deviceSignIn } from './deviceSignIn.ts';
import { openBrowser } from './openBrowser.ts';
import { RestApi } from './RestApi.ts';
import { defaultTokenFile, readTokenFile, TokenFileError, writeTokenFile, type StoredToken } from './tokenStore.ts';

export const COMPANION_USAGE = `  social-layer companion [--server URL] [--ipc-name NAME] [--token-file PATH]
                         [--client-id ID] [--scopes "..."] [--no-browser]
      The desktop companion: serves local RPC over IPC (<name>-ipc-N under XDG_RUNTIME_DIR,
      or the named pipe on Windows) for native games and the public RPC libraries, acting for
      the signed-in player. --server defaults to http://localhost:3333; --ipc-name to
      social-layer (use discord for unmodified RPC clients). --client-id ID signs the player
      in to that application once with the device flow (/activate page); tokens are kept in
      ${'$'}XDG_CONFIG_HOME/social-layer/companion-tokens.json with mode 0600. --token-file PATH
      uses that file instead and skips the sign-in; it must not be readable by others.
`;

/** The companion's command-line options (node:util parseArgs), shared with the server's CLI module. */
export const COMPANION_OPTIONS = {
  server: { type: 'string' },
  'ipc-name': { type: 'string' },
  'token-file': { type: 'string' },
  'client-id': { type: 'string' },
  scopes: { type: 'string' },
  'no-browser': { type: 'boolean' },
} as const;

export interface CompanionCliValues {
  server?: string;
  'ipc-name'?: string;
  'token-file'?: string;
  'client-id'?: string;
  scopes?: string;
  'no-browser'?: boolean;
}

/** `companion ...` from raw arguments (tests, or a bin of its own). Returns an exit code, or -1 while running. */
export async function companionMain(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { ...COMPANION_OPTIONS, help: { type: 'boolean' } }, strict: true, allowPositionals: false }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${COMPANION_USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(COMPANION_USAGE);
    return 0;
  }
  return runCompanion(values);
}

/**
 * `social-layer companion`: signs in when asked, then serves until SIGINT/SIGTERM. Returns an
 * exit code (2 bad input, 1 failure), or -1 while running.
 */
export async function runCompanion(values: CompanionCliValues): Promise<number> {
  const serverUrl = (values.server ?? process.env.SOCIAL_LAYER_SERVER ?? 'http://localhost:3333').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+$/.test(serverUrl)) {
    process.stderr.write(`--server must be an http(s) origin, e.g. http://localhost:3333\n`);
    return 2;
  }
  const clientId = values['client-id'];
  if (clientId !== undefined && !/^\d{1,20}$/.test(clientId)) {
    process.stderr.write('--client-id must be an application id\n');
    return 2;
  }
  const say = (line: string) => process.stderr.write(`companion: ${line}\n`);
  const opener = values['no-browser'] ? undefined : openBrowser;
  const rest = new RestApi(serverUrl);

  let tokens: StoredToken[];
  // Refreshed tokens go back to the file they came from (the old refresh token stops working).
  const file = values['token-file'] ?? defaultTokenFile();
  try {
    if (values['token-file']) {
      tokens = readTokenFile(file);
    } else {
      tokens = existsSync(file) ? readTokenFile(file) : [];
      if (clientId && !tokens.some((t) => t.application_id === clientId)) {
        const token = await deviceSignIn({
          rest,
          clientId,
          scopes: (values.scopes ?? 'identify sdk.social_layer_presence guilds').split(/\s+/).filter(Boolean),
          show: (code, uri, complete) => say(`to sign in, open ${complete} (or ${uri} and enter ${code})`),
          openUrl: opener,
        });
        tokens = [...tokens.filter((t) => t.application_id !== clientId), token];
        writeTokenFile(file, tokens);
        say(`signed in; token saved to ${file}`);
      }
      if (tokens.length === 0) {
        process.stderr.write('Not signed in: run `social-layer companion --client-id <application id>` once, or pass --token-file PATH\n');
        return 2;
      }
    }
  } catch (err) {
    process.stderr.write(`${err instanceof TokenFileError || err instanceof Error ? err.message : 'Sign-in failed'}\n`);
    return 1;
  }

  const companion = new Companion({
    serverUrl,
    tokens,
    ipcName: values['ipc-name'] ?? DEFAULT_IPC_NAME,
    openUrl: opener,
    log: say,
    onTokensRefreshed: (fresh) => {
      try {
        writeTokenFile(file, fresh);
      } catch {
        say(`could not save the refreshed token to ${file}`);
      }
    },
  });
  // The signal handlers go in before the socket exists and before the "listening" line, so a
  // SIGINT/SIGTERM at any moment after start-up begins ends in stop() (socket removed, exit 0),
  // never in the default action that kills the process and leaves the socket behind. A signal
  // during start() waits for it, so the socket it is about to make is removed too.
  const starting = companion.start();
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= starting.then(
      () => companion.stop(),
      () => companion.stop(),
    );
    stopping.then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Whatever else ends the process (an uncaught error, process.exit elsewhere), the socket goes.
  process.once('exit', () => companion.removeSocket());
  try {
    await starting;
  } catch (err) {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    process.stderr.write(`${(err as Error).message}\n`);
    return 1;
  }
  // Tests and scripts wait for this line on stdout.
  process.stdout.write(`Companion listening on ${companion.socketPath}\n`);
  return -1;
}
