import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const ENGINES: Record<string, string> = { phaser: 'Phaser', babylon: 'Babylon.js', playcanvas: 'PlayCanvas' };

/**
 * The README of a new game: about this game (how to build, run and invite, where its code is,
 * what to change first), not the sample's README, which describes the repository's tests and
 * test hooks.
 */
export async function gameReadme(dir: string, name: string, sample: string, gamesDir: string): Promise<string> {
  const engine = ENGINES[sample.split('-')[0] ?? ''] ?? 'your engine';
  const files = await sourceFiles(dir);
  return `# ${name}

A multiplayer web game on Social Layer, written with ${engine}, started
from the \`${sample}\` template. Players meet in a lobby, see each other move, chat, add friends,
invite them, and talk with push-to-talk.

## Run it

\`\`\`sh
npm install && npm run build            # bundles src/ into dist/
npx social-layer start --games ${gamesDir}   # from the Social Layer checkout: serves /games/${name}/
\`\`\`

Open \`http://127.0.0.1:3333/games/${name}/\`. The address bar becomes the lobby's invite link
(\`?lobby=...\`): open it in another browser or a private window for a second player.

## How it works

\`src/main.ts\` calls \`GameSession.start({ game: '${name}', ... })\` from \`@social-layer/ui\`, which
signs the player in (a guest account kept on this device, or the full account they linked with
"Sign in to keep your progress"), joins the lobby named in the URL or a new one, follows invite
links, keeps rich presence up to date so friends can join, and runs voice chat (hold V to talk).
The player bar in the page header shows the player's name, the invite link, sign-in and voice.
The engine plugin shows the friends, players and chat panels over the canvas; Shift+Tab folds them.

Each player's state (position, color) is lobby member metadata: \`session.setState(...)\` shares
it (the newest value only) and keeps it on the device, so a reload puts the player back.

## Your code

${files.map(({ file, about }) => `- \`${file}\`${about ? `: ${about}` : ''}`).join('\n')}
- \`index.html\`: the page (header for the player bar, \`#game\` for the canvas)
- \`build.mjs\`, \`buildGame.mjs\`: the esbuild bundle into \`dist/\` (the Opus fallback for browsers
  without WebCodecs is a chunk of its own, loaded only there)

## Next steps

- Make the world yours in the scene file; what a player shares lives in \`avatarState.ts\`.
- For "Sign in to keep your progress", register \`http://127.0.0.1/games/${name}/\` (any port on
  loopback) as a redirect URI of your application in the developer portal (\`/developers\`).
`;
}

/** The game's TypeScript sources with the first sentence of each one's first doc comment. */
async function sourceFiles(dir: string): Promise<{ file: string; about: string }[]> {
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
