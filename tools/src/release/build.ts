/**
 * Builds every published package into its `dist/`: JavaScript (one ES module per source file,
 * esbuild, with source maps that carry the sources), `.d.ts` declarations (one tsc run over all
 * of them) and, for create-game, the engine templates. The repository itself never runs from
 * `dist/` (tests, `npm start` and the samples run from the sources through tsx and esbuild);
 * `dist/` is what the registry gets (`npm run release:publish`), and it is gitignored.
 *
 * `npm run build:packages` runs it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { PUBLISHED_PACKAGES, REPO_ROOT } from './packages.ts';
import { writeTemplates } from './templates.ts';

export interface BuildOptions {
  /** Package folders to build (default: every published package). */
  dirs?: readonly string[];
  /** Emit declarations with tsc (default true; it type-checks everything once, the slow part). */
  declarations?: boolean;
  log?: (line: string) => void;
}

/**
 * Relative import specifiers written with `.ts` (the repository runs its sources as they are)
 * become `.js` in what is published. The two spellings have the same length, so source maps
 * stay exact.
 */
const RELATIVE_TS = /((?:\bfrom|\bimport)\s*\(?\s*)(['"])(\.\.?\/[^'"\n]*?)\.ts\2/g;
export function rewriteSpecifiers(code: string): string {
  return code.replace(RELATIVE_TS, (_m, pre: string, quote: string, path: string) => `${pre}${quote}${path}.js${quote}`);
}

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir)) {
    const path = join(dir, entry);
    if ((await stat(path)).isDirectory()) yield* walk(path);
    else yield path;
  }
}

async function listFiles(dir: string, keep: (path: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  if (!existsSync(dir)) return out;
  for await (const path of walk(dir)) if (keep(path)) out.push(path);
  return out.sort();
}

const isSource = (path: string) => path.endsWith('.ts') && !path.endsWith('.d.ts') && !path.endsWith('.test.ts');

/** What the packages need built before they can be packed: the WASM core, the web app and the SDK reference. */
function buildInputs(dirs: readonly string[], log: (line: string) => void): void {
  if (dirs.includes('core-wasm') && !existsSync(join(REPO_ROOT, 'core-wasm/build/coreWasmBytes.js'))) {
    log('building core-wasm (build/coreWasmBytes.js)');
    execFileSync('npm', ['run', 'build', '--workspace=core-wasm'], { cwd: REPO_ROOT, stdio: 'inherit' });
  }
  if (dirs.includes('server') && !existsSync(join(REPO_ROOT, 'server/web/dist/app.js'))) {
    log('building the web app (server/web/dist)');
    execFileSync(process.execPath, ['server/web/build.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' });
  }
  if (dirs.includes('server') && !existsSync(join(REPO_ROOT, 'server/web/sdk-docs/index.html'))) {
    log('building the SDK reference (server/web/sdk-docs, served at /docs/sdk)');
    execFileSync('npm', ['run', 'docs:sdk'], { cwd: REPO_ROOT, stdio: 'inherit' });
  }
}

/** One package's JavaScript: every source file to `dist/` (same layout), plus hand-written `.d.ts` files. */
async function buildJavaScript(dir: string): Promise<number> {
  const src = join(REPO_ROOT, dir, 'src');
  const dist = join(REPO_ROOT, dir, 'dist');
  await rm(dist, { recursive: true, force: true });
  const entryPoints = await listFiles(src, isSource);
  await esbuild.build({
    entryPoints,
    outdir: dist,
    outbase: src,
    bundle: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    // Import attributes (`with { type: 'json' }`, the client's version.ts) are newer than es2022,
    // and esbuild drops what the target lacks: Node then refuses the JSON import. Node 20 reads them.
    supported: { 'import-attributes': true },
    sourcemap: 'linked',
    sourcesContent: true,
    logLevel: 'warning',
    tsconfig: join(REPO_ROOT, 'tsconfig.json'),
  });
  for (const file of await listFiles(dist, (p) => p.endsWith('.js'))) {
    const code = await readFile(file, 'utf8');
    const rewritten = rewriteSpecifiers(code);
    if (rewritten !== code) await writeFile(file, rewritten);
  }
  // Declarations written by hand (core-wasm's generated-module declaration) go along as they are.
  for (const file of await listFiles(src, (p) => p.endsWith('.d.ts'))) {
    const target = join(dist, relative(src, file));
    await mkdir(dirname(target), { recursive: true });
    await cp(file, target);
  }
  return entryPoints.length;
}

/**
 * Declarations for every package in one tsc run (the packages import each other's sources, so
 * one program is both faster and the only way the cross-package types resolve), written to a
 * scratch folder and moved into each package's `dist/`. Type errors are the type check's job
 * (`npm run typecheck`); tsc still writes every declaration when it finds some.
 */
function buildDeclarations(dirs: readonly string[], log: (line: string) => void): string {
  const scratch = join(REPO_ROOT, 'node_modules/.cache/social-layer-release');
  const config = join(scratch, 'tsconfig.json');
  const outDir = join(scratch, 'types');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const tsconfig = {
    extends: relative(scratch, join(REPO_ROOT, 'tsconfig.json')),
    compilerOptions: {
      noEmit: false,
      declaration: true,
      emitDeclarationOnly: true,
      rootDir: relative(scratch, REPO_ROOT),
      outDir: relative(scratch, outDir),
    },
    include: dirs.flatMap((dir) => [relative(scratch, join(REPO_ROOT, dir, 'src/**/*.ts'))]),
  };
  writeFileSync(config, JSON.stringify(tsconfig, null, 2));
  log('declarations: tsc (one program for every package)');
  try {
    execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', config], { cwd: REPO_ROOT, stdio: 'pipe' });
  } catch (err) {
    const out = String((err as { stdout?: Buffer }).stdout ?? '');
    log(`tsc reported type errors (declarations are written all the same; npm run typecheck is the gate):\n${out.split('\n').slice(0, 20).join('\n')}`);
  }
  return outDir;
}

async function moveDeclarations(typesDir: string, dir: string): Promise<number> {
  const from = join(typesDir, dir, 'src');
  const dist = join(REPO_ROOT, dir, 'dist');
  const files = await listFiles(from, (p) => p.endsWith('.d.ts'));
  for (const file of files) {
    const target = join(dist, relative(from, file));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, rewriteSpecifiers(await readFile(file, 'utf8')));
  }
  return files.length;
}

export async function buildPackages(options: BuildOptions = {}): Promise<void> {
  const dirs = options.dirs ?? PUBLISHED_PACKAGES;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  buildInputs(dirs, log);
  for (const dir of dirs) log(`${dir}: ${await buildJavaScript(dir)} modules`);
  if (options.declarations !== false) {
    const types = buildDeclarations(dirs, log);
    for (const dir of dirs) log(`${dir}: ${await moveDeclarations(types, dir)} declarations`);
  }
  if (dirs.includes('tools/create-game')) log(`create-game: templates ${(await writeTemplates()).join(', ')}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  await buildPackages({ dirs: only.length > 0 ? only : undefined, declarations: !process.argv.includes('--no-declarations') });
}
