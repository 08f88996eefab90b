/**
 * `npm run release:version -- VERSION`: every published package moves to VERSION together, and
 * every workspace's dependency on one of them names VERSION (the packages depend on each other
 * by exact version, so one release is one set). `--check` only verifies that they agree. Run
 * `npm install` afterwards so the lockfile follows, then commit, build and publish
 * (`npm run release:publish -- --registry URL`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PUBLISHED_PACKAGES, REPO_ROOT, readManifest, workspaceDirs } from './packages.ts';

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** Problems with the published packages' versions (empty when they all agree); `root`: a checkout (default this one). */
export function versionProblems(root = REPO_ROOT): string[] {
  const published = new Map(PUBLISHED_PACKAGES.map((dir) => [readManifest(dir, root).name, readManifest(dir, root).version]));
  const versions = new Set(published.values());
  const problems: string[] = [];
  if (versions.size !== 1) problems.push(`published packages disagree: ${[...published].map(([n, v]) => `${n}@${v}`).join(', ')}`);
  const [version] = versions;
  for (const dir of workspaceDirs(root)) {
    const manifest = readManifest(dir, root);
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies'] as const) {
      for (const [name, range] of Object.entries(manifest[field] ?? {})) {
        if (published.has(name) && range !== version) problems.push(`${manifest.name} ${field} ${name}@${range}, not ${version}`);
      }
    }
  }
  return problems;
}

/** Moves every published package, and every dependency on one, to `version`; resolves to the folders changed. */
export function setVersion(version: string, root = REPO_ROOT): string[] {
  if (!SEMVER.test(version)) throw new Error(`not a version: ${version}`);
  const published = new Set(PUBLISHED_PACKAGES.map((dir) => readManifest(dir, root).name));
  const changed: string[] = [];
  for (const dir of new Set(['.', ...workspaceDirs(root), ...PUBLISHED_PACKAGES])) {
    const file = join(root, dir, 'package.json');
    let text = readFileSync(file, 'utf8');
    const before = text;
    const manifest = JSON.parse(text) as { name: string };
    if (published.has(manifest.name)) text = text.replace(/("version":\s*")[^"]*(")/, `$1${version}$2`);
    // Edits in place (the manifests' own layout kept): "@social-layer/NAME": "RANGE" for each published NAME.
    for (const name of published) {
      text = text.replace(new RegExp(`("${name.replace('/', '\\/')}":\\s*")[^"]*(")`, 'g'), `$1${version}$2`);
    }
    if (text !== before) {
      writeFileSync(file, text);
      changed.push(dir);
    }
  }
  return changed;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = process.argv[2];
  if (arg === '--check' || arg === undefined) {
    const problems = versionProblems();
    for (const p of problems) process.stderr.write(`${p}\n`);
    if (arg === undefined) process.stderr.write('Usage: npm run release:version -- VERSION | --check\n');
    process.exit(problems.length > 0 || arg === undefined ? 1 : 0);
  }
  const changed = setVersion(arg);
  process.stdout.write(`version ${arg}: ${changed.join(', ')}\nNow: npm install (the lockfile follows), commit, npm run release:publish -- --registry URL\n`);
}
