import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineChoice } from './engines.ts';

/**
 * The README of a new game: how to build, run and invite, how it works, its files and what to
 * change first. It is about this game, not about the sample it was made from. `linkedTo`: the
 * checkout a linked game (`--link`, `npm run scaffold`) depends on.
 */
export async function gameReadme(dir: string, name: string, engine: EngineChoice, linkedTo?: string): Promise<string> {
  const files = await sourceFiles(dir);
  const made = linkedTo
    ? `made with\n\`npm run scaffold\` in a Social Layer checkout (the \`${engine.id}\` template)`
    : `made with\n\`npm create @social-layer/game\` (the \`${engine.id}\` template)`;
  const platform = linkedTo
    ? `\`npm start\` runs the Social Layer platform of the checkout this game is linked to
(\`${linkedTo}\`)`
    : `\`npm start\` runs the Social Layer platform from the registry (\`@social-layer/server\`)`;
  return `# ${name}

A multiplayer web game on Social Layer, written with ${engine.label}, ${made}. Players meet in a lobby, see each
other move, chat, add friends, invite them, and talk with push-to-talk.

## Run it

\`\`\`sh
npm install && npm run build   # bundles src/ into dist/
npm start                      # ${linkedTo ? 'the linked checkout\'s server: social-layer start --dev --games ..' : 'npx @social-layer/server start --dev --games ..'}
\`\`\`

${platform} in
development mode with an embedded SQLite database under \`./data\`; it serves every built game in
the folder that holds this one, this one at \`http://127.0.0.1:3333/games/${name}/\`. Open that
address: it becomes the lobby's invite link (\`?lobby=...\`); open it in another browser or a
private window for a second player.

Port 3333 taken (another Social Layer server, say)? Pick another: \`npm start -- --port 4000\` (or
\`SOCIAL_LAYER_PORT=4000 npm start\`), then open \`http://127.0.0.1:4000/games/${name}/\`.
${linkedTo ? linkedNote(linkedTo) : ''}
## How it works

\`src/main.ts\` calls \`GameSession.start({ game: '${name}', ... })\` from \`@social-layer/ui\`, which
signs the player in (a guest account kept on this device, or the full account they linked with
"Sign in to keep your progress"), joins the lobby named in the URL or a new one, follows invite
links, keeps rich presence up to date so friends can join, and runs voice chat (hold V to talk).
The player bar in the page header shows the player's name, the invite link, sign-in and voice.
\`${engine.plugin}\` shows the friends, players and chat panels over the canvas; Shift+Tab folds
them.

Each player's state (position, color) is lobby member metadata: \`session.setState(...)\` shares
it (the newest value only) and keeps it on the device, so a reload puts the player back.
\`window.__socialLayerSample\` exposes the session and a few helpers for tests and for poking in
devtools; delete it if you do not want it.

## Your code

${files.map(({ file, about }) => `- \`${file}\`${about ? `: ${about}` : ''}`).join('\n')}
- \`index.html\`: the page (header for the player bar, \`#game\` for the canvas)
- \`build.mjs\`, \`buildGame.mjs\`: the esbuild bundle into \`dist/\` with code splitting: the Opus
  fallback for browsers without WebCodecs and the end-to-end encryption (MLS) of voice are chunks
  of their own, loaded only when needed

## Next steps

- Make the world yours in the scene file; what a player shares lives in \`avatarState.ts\`.
- For "Sign in to keep your progress", register \`http://127.0.0.1/games/${name}/\` (any port on
  loopback) as a redirect URI of your application in the developer portal (\`/developers\`).
- Going live: run \`npx @social-layer/server start\` (production mode) behind your domain with
  \`--public-url\`, and host \`dist/\` with \`--games\` or on any static host of the same origin.
- The SDK's API reference is served by the platform at \`/docs/sdk\`.
`;
}

/** What a linked game's README says about its links. */
function linkedNote(root: string): string {
  return `
This game is linked to that checkout: its Social Layer dependencies are \`file:\` links into
\`${root}\`, so SDK changes there reach the game on its next build, and nothing is fetched from a
registry for them. Once the SDK is released, depend on it instead: replace each \`file:\` link in
\`package.json\` with the released version (\`^x.y.z\`) and the \`start\` script with
\`npx @social-layer/server start --dev --games ..\`.
`;
}

/** The game's TypeScript sources with the first sentence of each one's first doc comment (main.ts first). */
export async function sourceFiles(dir: string): Promise<{ file: string; about: string }[]> {
  const src = join(dir, 'src');
  const names = (await readdir(src)).filter((f) => f.endsWith('.ts')).sort((a, b) => (a === 'main.ts' ? -1 : b === 'main.ts' ? 1 : a.localeCompare(b)));
  const out: { file: string; about: string }[] = [];
  for (const name of names) {
    if (name === 'main.ts') {
      out.push({ file: 'src/main.ts', about: 'boots the game: `GameSession.start`, then the engine and its scene' });
      continue;
    }
    const text = await readFile(join(src, name), 'utf8');
    // The doc comment of the file's first exported class (what the file is for), else of its first export.
    const docOf = (kind: string) => new RegExp(`/\\*\\*((?:(?!\\*/)[\\s\\S])*)\\*/\\s*export (?:${kind})\\b`).exec(text)?.[1];
    const doc = docOf('class') ?? docOf('class|function|async function|interface|const|type') ?? '';
    const prose = doc.replace(/^\s*\*\s?/gm, ' ').replace(/\s+/g, ' ').trim();
    const about = /^(.*?[.:])(\s|$)/.exec(prose)?.[1] ?? prose;
    out.push({ file: `src/${name}`, about: about.replace(/[.:]$/, '') });
  }
  return out;
}
