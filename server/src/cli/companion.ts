import type { CliCommand } from './command.ts';

/**
 * `social-layer companion`: the desktop companion for native games and the public RPC libraries
 * (bindings/rpc). It runs on a player's machine, not the platform's, so its code is loaded only
 * when this command is run.
 */
export const companion: CliCommand = {
  words: ['companion'],
  usage: `companion [--server URL] [--ipc-name NAME] [--token-file PATH] [--client-id ID] [--scopes "..."] [--no-browser]
      The desktop companion: local RPC over IPC (<name>-ipc-N under XDG_RUNTIME_DIR, or a named
      pipe on Windows) for native games and RPC libraries, acting for the signed-in player.
      --server defaults to http://localhost:3333, --ipc-name to social-layer (discord for
      unmodified RPC clients). --client-id signs the player in to that application once (device
      flow, /activate page; token kept in the user's config folder, mode 0600). --token-file
      uses a token file instead (refused when others can read it). See bindings/rpc/README.md.`,
  options: {
    server: { type: 'string' },
    'ipc-name': { type: 'string' },
    'token-file': { type: 'string' },
    'client-id': { type: 'string' },
    scopes: { type: 'string' },
    'no-browser': { type: 'boolean' },
  },
  async run(values) {
    const { runCompanion } = await import('@social-layer/rpc');
    return runCompanion(values as Parameters<typeof runCompanion>[0]);
  },
};
