/**
 * `npm run release:publish -- --registry URL [--no-build] [--dry-run]`: builds every published
 * package (build.ts), stages each one as the registry gets it, and runs `npm publish` on it.
 *
 * Staging: the package's `files`, README and a package.json with `publishConfig` applied (its
 * `exports` point at `dist/` instead of the sources) and nothing the repository alone needs
 * (scripts, devDependencies). The repository's own manifests stay as they are, so tests and
 * `npm start` keep running from the sources.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { buildPackages } from './build.ts';
import { PUBLISHED_PACKAGES, REPO_ROOT, readManifest, type PackageManifest } from './packages.ts';
import { versionProblems } from './version.ts';

/** The manifest the registry gets for the package whose repository manifest is `manifest`. */
export function publishedManifest(manifest: PackageManifest): PackageManifest {
  const { publishConfig, scripts: _scripts, devDependencies: _dev, private: _private, ...rest } = manifest;
  const { exports, bin, access, ...otherConfig } = publishConfig ?? {};
  const out: PackageManifest = { ...rest };
  if (exports !== undefined) out.exports = exports;
  if (bin !== undefined) out.bin = bin as Record<string, string>;
  const config = { ...(access !== undefined ? { access } : {}), ...otherConfig };
  if (Object.keys(config).length > 0) out.publishConfig = config;
  return out;
}

/** Copies the package in `dir` as the registry gets it into `stageDir/<dir>`; returns that folder. */
export async function stagePackage(dir: string, stageDir: string): Promise<string> {
  const manifest = readManifest(dir);
  const from = join(REPO_ROOT, dir);
  const to = join(stageDir, dir);
  await rm(to, { recursive: true, force: true });
  await mkdir(to, { recursive: true });
  for (const entry of [...(manifest.files ?? []), 'README.md', 'LICENSE']) {
    const path = join(from, entry);
    if (!existsSync(path)) {
      if (manifest.files?.includes(entry)) throw new Error(`${dir}: ${entry} is missing (npm run build:packages first)`);
      continue;
    }
    await cp(path, join(to, entry), { recursive: true });
  }
  await writeFile(join(to, 'package.json'), JSON.stringify(publishedManifest(manifest), null, 2) + '\n');
  return to;
}

export interface PublishOptions {
  registry: string;
  /** An npm userconfig file (the registry's auth token); default: the user's own. */
  userconfig?: string;
  build?: boolean;
  dryRun?: boolean;
  log?: (line: string) => void;
}

/**
 * The environment for `npm publish`: ours without the `npm_*` variables of an npm that started
 * us (`npm test`, `npm run`), which would otherwise leak that run's prefix and config into it.
 */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));
}

/** Builds (unless `build: false`), stages and publishes every package; resolves to the names published. */
export async function publishPackages(options: PublishOptions): Promise<string[]> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const problems = versionProblems();
  if (problems.length > 0) throw new Error(`versions do not move together:\n${problems.join('\n')}`);
  if (options.build !== false) await buildPackages({ log });
  const stageDir = await mkdtemp(join(tmpdir(), 'sl-release-'));
  const names: string[] = [];
  try {
    for (const dir of PUBLISHED_PACKAGES) {
      const staged = await stagePackage(dir, stageDir);
      const args = ['publish', staged, '--registry', options.registry, '--access', 'public', '--ignore-scripts'];
      if (options.userconfig) args.push('--userconfig', options.userconfig);
      if (options.dryRun) args.push('--dry-run');
      execFileSync('npm', args, { stdio: 'pipe', cwd: stageDir, env: cleanEnv() });
      const { name, version } = readManifest(dir);
      names.push(`${name}@${version}`);
      log(`published ${name}@${version}`);
    }
  } finally {
    await rm(stageDir, { recursive: true, force: true });
  }
  return names;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { registry: { type: 'string' }, userconfig: { type: 'string' }, 'no-build': { type: 'boolean' }, 'dry-run': { type: 'boolean' } },
  });
  if (!values.registry) {
    process.stderr.write('Usage: npm run release:publish -- --registry URL [--userconfig FILE] [--no-build] [--dry-run]\n');
    process.exit(2);
  }
  await publishPackages({ registry: values.registry, userconfig: values.userconfig, build: !values['no-build'], dryRun: values['dry-run'] });
}
