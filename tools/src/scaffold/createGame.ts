import { cp, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gameReadme } from './gameReadme.ts';

export interface CreateGameOptions {
  /** A folder name under samples/ (phaser-lobby, ...). */
  sample: string;
  /** Where the new game goes; must not exist, or be empty. */
  outDir: string;
  /** npm package name of the new game (lowercase, digits, dashes). */
  name: string;
  /** This checkout (defaults to the repository these tools live in). */
  repoRoot?: string;
}

export interface CreatedGame {
  dir: string;
  files: string[];
}

const DEFAULT_ROOT = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
/** Sample files that belong to this repository's test setup, not to a game. */
const SKIP = new Set(['test', 'dist', 'node_modules', 'build.d.mts']);
const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/**
 * Makes a new game from a sample (the samples double as templates): copies its sources, page and
 * build script, renames the package, and points its Social Layer dependencies at this checkout
 * with `file:` links, since the packages are not published to a registry yet.
 */
export async function createGame(options: CreateGameOptions): Promise<CreatedGame> {
  const root = options.repoRoot ?? DEFAULT_ROOT;
  if (!NAME.test(options.name)) throw new Error(`invalid game name "${options.name}": use lowercase letters, digits and dashes`);
  const sampleDir = join(root, 'samples', options.sample);
  if (!/^[a-z0-9-]+$/.test(options.sample) || !existsSync(join(sampleDir, 'package.json'))) {
    const known = (await readdir(join(root, 'samples'))).filter((n) => existsSync(join(root, 'samples', n, 'package.json')));
    throw new Error(`unknown sample "${options.sample}"; choose one of: ${known.join(', ')}`);
  }
  const dir = resolve(options.outDir);
  if (existsSync(dir) && (await readdir(dir)).length > 0) throw new Error(`${dir} exists and is not empty`);
  await mkdir(dir, { recursive: true });

  const files: string[] = [];
  for (const entry of await readdir(sampleDir)) {
    if (SKIP.has(entry)) continue;
    await cp(join(sampleDir, entry), join(dir, entry), { recursive: true });
  }
  // The samples share one build script (samples/buildGame.mjs); a game gets its own copy.
  const shared = join(root, 'samples', 'buildGame.mjs');
  const buildScript = join(dir, 'build.mjs');
  if (existsSync(shared) && existsSync(buildScript)) {
    await cp(shared, join(dir, 'buildGame.mjs'));
    await writeFile(buildScript, (await readFile(buildScript, 'utf8')).replace("'../buildGame.mjs'", "'./buildGame.mjs'"));
  }
  for await (const f of walk(dir)) files.push(relative(dir, f));

  const pkg = JSON.parse(await readFile(join(sampleDir, 'package.json'), 'utf8')) as {
    name: string;
    description?: string;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const rootPkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  const dependencies: Record<string, string> = {};
  for (const [dep, version] of Object.entries(pkg.dependencies ?? {})) {
    if (!dep.startsWith('@social-layer/')) dependencies[dep] = version;
  }
  // Every Social Layer package the game needs, direct or not, is linked from this checkout: none
  // is on a registry, so npm must never look one up there.
  for (const dep of await socialLayerClosure(root, Object.keys(pkg.dependencies ?? {}))) {
    dependencies[dep] = `file:${await packageDir(root, dep)}`;
  }
  const game = {
    name: options.name,
    version: '0.1.0',
    private: true,
    type: 'module',
    description: `A Social Layer game, made from the ${options.sample} sample.`,
    scripts: { build: 'node build.mjs' },
    dependencies,
    // The build script bundles with esbuild, which the sample took from the workspace root.
    devDependencies: { esbuild: rootPkg.devDependencies?.esbuild ?? '*', ...pkg.devDependencies },
  };
  await writeFile(join(dir, 'package.json'), JSON.stringify(game, null, 2) + '\n');

  // The game's own storage namespace and title: two games on one origin must not share a
  // device ID, and the tab should say which game it is.
  const main = join(dir, 'src', 'main.ts');
  if (existsSync(main)) await writeFile(main, (await readFile(main, 'utf8')).replace(/game: '[A-Za-z0-9_-]+'/, `game: '${options.name}'`));
  const page = join(dir, 'index.html');
  if (existsSync(page)) await writeFile(page, (await readFile(page, 'utf8')).replace(/<title>[^<]*<\/title>/, `<title>${options.name}</title>`));
  const gamesDir = relative(process.cwd(), resolve(dir, '..')) || '.';
  await writeFile(join(dir, 'README.md'), await gameReadme(dir, options.name, options.sample, gamesDir));
  return { dir, files: files.sort() };
}

/** The @social-layer packages among `names` and everything they depend on, sorted. */
async function socialLayerClosure(root: string, names: string[]): Promise<string[]> {
  const seen = new Set<string>();
  const queue = names.filter((n) => n.startsWith('@social-layer/'));
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const pkg = JSON.parse(await readFile(join(await packageDir(root, name), 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dep of Object.keys(pkg.dependencies ?? {})) if (dep.startsWith('@social-layer/')) queue.push(dep);
  }
  return [...seen].sort();
}

/** The folder of a workspace package of this checkout, by its package name. */
async function packageDir(root: string, name: string): Promise<string> {
  const rootPkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  for (const ws of rootPkg.workspaces) {
    const file = join(root, ws, 'package.json');
    if (existsSync(file) && (JSON.parse(await readFile(file, 'utf8')) as { name: string }).name === name) return join(root, ws);
  }
  throw new Error(`no workspace package named ${name}`);
}

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir)) {
    const path = join(dir, entry);
    if ((await stat(path)).isDirectory()) yield* walk(path);
    else yield path;
  }
}
