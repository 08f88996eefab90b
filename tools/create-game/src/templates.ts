/**
 * Engine templates: what a new game starts from. A template is one of the repository's samples
 * (they double as templates) with its tests and repository-only files left out, the shared build
 * script beside it, and `template.json` naming its dependencies. `npm run build:packages` writes
 * them into this package's `templates/` folder (gitignored, published); run from the repository
 * (tsx, nothing built), the CLI makes them from `samples/` on the fly.
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineChoice } from './engines.ts';

/** `template.json`: the template's own dependencies (Social Layer ones by name only: their version is the SDK's). */
export interface TemplateManifest {
  engine: string;
  sample: string;
  /** Dependencies that are not Social Layer packages, with their ranges. */
  dependencies: Record<string, string>;
  /** The Social Layer packages the game imports. */
  socialLayer: string[];
  devDependencies: Record<string, string>;
}

/** Sample files that belong to the repository's test setup, not to a game. */
const SKIP = new Set(['test', 'dist', 'node_modules', 'build.d.mts', 'README.md', 'package.json']);

/**
 * Copies `samplesDir/<engine's sample>` into `outDir` as a template: sources, page, build script
 * (pointed at its own copy of the shared `buildGame.mjs`) and `template.json`.
 */
export async function writeTemplate(samplesDir: string, engine: EngineChoice, outDir: string, esbuildRange: string): Promise<void> {
  const sampleDir = join(samplesDir, engine.sample);
  if (!existsSync(join(sampleDir, 'package.json'))) throw new Error(`no sample ${engine.sample} in ${samplesDir}`);
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  for (const entry of await readdir(sampleDir)) {
    if (!SKIP.has(entry)) await cp(join(sampleDir, entry), join(outDir, entry), { recursive: true });
  }
  const buildScript = join(outDir, 'build.mjs');
  await writeFile(buildScript, (await readFile(buildScript, 'utf8')).replace("'../buildGame.mjs'", "'./buildGame.mjs'"));
  await cp(join(samplesDir, 'buildGame.mjs'), join(outDir, 'buildGame.mjs'));
  const pkg = JSON.parse(await readFile(join(sampleDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const manifest: TemplateManifest = {
    engine: engine.id,
    sample: engine.sample,
    dependencies: Object.fromEntries(Object.entries(pkg.dependencies ?? {}).filter(([name]) => !name.startsWith('@social-layer/'))),
    socialLayer: Object.keys(pkg.dependencies ?? {}).filter((name) => name.startsWith('@social-layer/')).sort(),
    // The build script bundles with esbuild.
    devDependencies: { esbuild: esbuildRange, ...pkg.devDependencies },
  };
  await writeFile(join(outDir, 'template.json'), JSON.stringify(manifest, null, 2) + '\n');
}
