/**
 * Writes a new game from an engine template: its sources, page and build script, a package.json
 * that depends on the Social Layer packages from the registry (the SDK version this package was
 * released with), its own storage namespace and page title, a .gitignore and a README.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findEngine, ENGINES, type EngineChoice } from './engines.ts';
import { linkedDependencies, linkedStartScript, readCheckout, type Checkout } from './link.ts';
import { gameReadme } from './readme.ts';
import { writeTemplate, type TemplateManifest } from './templates.ts';

export interface CreateGameOptions {
  /** `phaser`, `babylon` or `playcanvas`. */
  engine: string;
  /** Where the game goes; must not exist, or be empty. */
  outDir: string;
  /** npm package name of the game (lowercase letters, digits and dashes). */
  name: string;
  /** What the page's tab and header call the game (default: `name`). */
  title?: string;
  /** Version range of the Social Layer packages (default: `^` this package's version, which is the SDK's). */
  sdkRange?: string;
  /** Folder holding `<engine>/template.json` (default: this package's `templates/`). */
  templatesDir?: string;
  /**
   * A Social Layer checkout (its root folder) to depend on instead of the registry: the template
   * is made from its samples, every Social Layer package the game needs becomes a `file:` link
   * into it, and `npm start` runs its server (`link.ts`). What `npm run scaffold` uses before a
   * release; `sdkRange` and `templatesDir` do not apply.
   */
  link?: string;
}

/** What {@link createGame} wrote. */
export interface CreatedGame {
  /** The game's folder, absolute. */
  dir: string;
  engine: EngineChoice;
  /** Files written, relative to `dir`, sorted. */
  files: string[];
}

const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url));
/** The repository's samples, when this runs from a checkout (the CLI's fallback for templates). */
const REPO_SAMPLES = join(PACKAGE_DIR, '../../samples');
const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** This package's version: the SDK's, since every Social Layer package is released with one version. */
export function sdkVersion(): string {
  return (JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string }).version;
}

export async function createGame(options: CreateGameOptions): Promise<CreatedGame> {
  const engine = findEngine(options.engine);
  if (!engine) throw new Error(`unknown engine "${options.engine}"; choose one of: ${ENGINES.map((e) => e.id).join(', ')}`);
  if (!NAME.test(options.name)) throw new Error(`invalid game name "${options.name}": use lowercase letters, digits and dashes`);
  const dir = resolve(options.outDir);
  if (existsSync(dir) && (await readdir(dir)).length > 0) throw new Error(`${dir} exists and is not empty`);

  const checkout: Checkout | undefined = options.link !== undefined ? await readCheckout(resolve(options.link)) : undefined;
  const samples = checkout ? join(checkout.root, 'samples') : REPO_SAMPLES;

  let template = join(options.templatesDir ?? join(PACKAGE_DIR, 'templates'), engine.id);
  let scratch: string | undefined;
  if (checkout || !existsSync(join(template, 'template.json'))) {
    // Linked, or run from the repository with nothing built: make the template from the sample now.
    if (!checkout && (options.templatesDir !== undefined || !existsSync(REPO_SAMPLES))) throw new Error(`no ${engine.id} template in ${template}`);
    scratch = await mkdtemp(join(tmpdir(), 'sl-template-'));
    template = join(scratch, engine.id);
    const root = JSON.parse(await readFile(join(samples, '../package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
    await writeTemplate(samples, engine, template, root.devDependencies?.esbuild ?? '*');
  }
  try {
    await mkdir(dir, { recursive: true });
    const manifest = JSON.parse(await readFile(join(template, 'template.json'), 'utf8')) as TemplateManifest;
    for (const entry of await readdir(template)) {
      if (entry !== 'template.json') await cp(join(template, entry), join(dir, entry), { recursive: true });
    }
    const range = options.sdkRange ?? `^${sdkVersion()}`;
    const dependencies: Record<string, string> = { ...manifest.dependencies };
    if (checkout) Object.assign(dependencies, await linkedDependencies(checkout, manifest.socialLayer));
    else for (const name of manifest.socialLayer) dependencies[name] = range;
    const game = {
      name: options.name,
      version: '0.1.0',
      private: true,
      type: 'module',
      description: `A multiplayer ${engine.label} game on Social Layer.`,
      scripts: {
        build: 'node build.mjs',
        // The platform from the registry (linked: the checkout's), serving every built game in the
        // folder above this one.
        start: checkout ? linkedStartScript(checkout) : `npx --yes @social-layer/server@${range} start --dev --games ..`,
      },
      dependencies: sortKeys(dependencies),
      devDependencies: sortKeys(manifest.devDependencies),
      engines: { node: '>=20.19' },
    };
    await writeFile(join(dir, 'package.json'), JSON.stringify(game, null, 2) + '\n');
    await writeFile(join(dir, '.gitignore'), 'node_modules/\ndist/\ndata/\n');

    // The game's own storage namespace and title: two games on one origin must not share a device
    // ID, and the tab should say which game it is.
    const main = join(dir, 'src', 'main.ts');
    if (existsSync(main)) await writeFile(main, (await readFile(main, 'utf8')).replace(/game: '[A-Za-z0-9_-]+'/, `game: '${options.name}'`));
    const page = join(dir, 'index.html');
    if (existsSync(page)) {
      const title = escapeHtml(options.title ?? options.name);
      const html = (await readFile(page, 'utf8')).replace(/<title>[^<]*<\/title>/, `<title>${title}</title>`).replace(/<h1>[\s\S]*?<\/h1>/, `<h1>${title}</h1>`);
      await writeFile(page, html);
    }
    await writeFile(join(dir, 'README.md'), await gameReadme(dir, options.name, engine, checkout?.root));
    return { dir, engine, files: await listFiles(dir) };
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sortKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await listFiles(join(dir, entry.name), rel)));
    else out.push(rel);
  }
  return out.sort();
}
