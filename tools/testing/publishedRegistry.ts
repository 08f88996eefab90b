/**
 * What the tests that install the packages as a game developer does share (registry.test.ts,
 * consumers.test.ts): every published package built, staged as the registry gets it and
 * published to a local Verdaccio (verdaccio.ts), better-sqlite3's prebuilt binary from a loopback
 * mirror (prebuildMirror.ts), and npm run against that registry alone.
 *
 * The build writes each package's dist/ in the checkout, and two of these test files may run at
 * once (vitest's workers): the build and the publish (which stages from dist/) hold a lock
 * folder, so one file never publishes a dist/ the other is rewriting.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { buildPackages } from '../src/release/build.ts';
import { PUBLISHED_PACKAGES, REPO_ROOT } from '../src/release/packages.ts';
import { publishPackages } from '../src/release/publish.ts';
import { startPrebuildMirror, type PrebuildMirror } from './prebuildMirror.ts';
import { startLocalRegistry, type LocalRegistry } from './verdaccio.ts';

const run = promisify(execFile);

export interface PublishedRegistry {
  registry: LocalRegistry;
  prebuilds: PrebuildMirror;
  /** Names and versions published. */
  published: string[];
  /** npm (or npx) in `cwd` against the local registry only; resolves to its stdout (stderr goes in a failure's message). */
  npm(cwd: string, args: string[], command?: string): Promise<string>;
  close(): Promise<void>;
}

const CACHE = join(REPO_ROOT, 'node_modules/.cache/social-layer-release');
const LOCK = join(CACHE, 'build.lock');
const STAMP = join(CACHE, 'built.txt');

/**
 * What the build reads, as one hash: every file's path, size and modification time in the
 * packages (dist/ and node_modules/ aside), the samples (create-game's templates) and the
 * release scripts. The same hash as the last build's: dist/ is what a build would write.
 */
function sourcesHash(): string {
  const hash = createHash('sha256');
  const visit = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'templates' || entry.name === 'test') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else {
        const { size, mtimeMs } = statSync(path);
        hash.update(`${path}\0${size}\0${mtimeMs}\n`);
      }
    }
  };
  for (const dir of [...PUBLISHED_PACKAGES, 'samples', 'tools/src/release', 'server/web/dist', 'server/web/sdk-docs']) visit(join(REPO_ROOT, dir));
  return hash.digest('hex');
}

/**
 * Builds every package unless the last build (of another test file in this run, or an earlier
 * run) was of these very sources and its dist/ folders are all there. Call it holding the lock.
 */
export async function buildPackagesOnce(): Promise<'built' | 'up to date'> {
  const before = sourcesHash();
  if (existsSync(STAMP) && readFileSync(STAMP, 'utf8') === `${before} ${distHash()}`) return 'up to date';
  await rm(STAMP, { force: true });
  await buildPackages({ log: () => {} });
  // The sources hashed before the build: what was built is what was read then (an edit during
  // the build makes the next call build again). dist/ hashed after: any other build since (a
  // partial one, by hand) no longer matches.
  await writeFile(STAMP, `${before} ${distHash()}`);
  return 'built';
}

/** Each package's dist/ folder's modification time (a build removes and rewrites it); missing, a mark that never matches. */
function distHash(): string {
  const hash = createHash('sha256');
  for (const dir of PUBLISHED_PACKAGES) {
    const dist = join(REPO_ROOT, dir, 'dist');
    hash.update(existsSync(dist) ? `${dir}\0${statSync(dist).mtimeMs}\n` : `${dir}\0missing${Math.random()}\n`);
  }
  return hash.digest('hex');
}

/** Runs `fn` holding the build lock; a lock whose holder has exited is taken over. */
export async function withBuildLock<T>(fn: () => Promise<T>): Promise<T> {
  await mkdir(join(LOCK, '..'), { recursive: true });
  const deadline = Date.now() + 600_000;
  for (;;) {
    try {
      await mkdir(LOCK);
      await writeFile(join(LOCK, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (!holderAlive()) {
        await rm(LOCK, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${LOCK} is still held after 10 minutes`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(LOCK, { recursive: true, force: true });
  }
}

function holderAlive(): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
  } catch {
    // Just made, its pid not written yet: alive.
    return existsSync(LOCK);
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts Verdaccio with its files under `work/registry` and the prebuilt-binary mirror, builds
 * every package and publishes it there.
 */
export async function startPublishedRegistry(work: string): Promise<PublishedRegistry> {
  const registry = await startLocalRegistry(join(work, 'registry'));
  let prebuilds: PrebuildMirror | undefined;
  try {
    prebuilds = await startPrebuildMirror(work);
    Object.assign(registry.env, prebuilds.env);
    const published = await withBuildLock(async () => {
      await buildPackagesOnce();
      return publishPackages({ registry: registry.url, userconfig: registry.userconfig, build: false, log: () => {} });
    });
    const mirror = prebuilds;
    return {
      registry,
      prebuilds: mirror,
      published,
      npm: async (cwd, args, command = 'npm') => {
        try {
          const { stdout } = await run(command, args, { cwd, env: registry.env, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
          return stdout;
        } catch (err) {
          const e = err as { stdout?: string; stderr?: string; message: string };
          throw new Error(`${command} ${args.join(' ')} in ${cwd} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
        }
      },
      close: async () => {
        await registry.close();
        await mirror.close();
      },
    };
  } catch (err) {
    await registry.close();
    await prebuilds?.close();
    throw err;
  }
}

/** Every `resolved` URL in `dir`'s lockfile, and every dependency spec in its package.json: none may be a file: link or another registry. */
export async function checkRegistryOnly(dir: string, registryUrl: string): Promise<void> {
  const pkg = await readFile(join(dir, 'package.json'), 'utf8');
  expect(pkg).not.toContain('file:');
  const lock = JSON.parse(await readFile(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string; link?: boolean }> };
  const entries = Object.entries(lock.packages).filter(([path]) => path !== '');
  expect(entries.length).toBeGreaterThan(10);
  for (const [path, entry] of entries) {
    expect(entry.link, `${path} is a link`).not.toBe(true);
    if (entry.resolved !== undefined) expect(entry.resolved.startsWith(registryUrl), `${path} resolved from ${entry.resolved}`).toBe(true);
  }
  const ours = entries.filter(([path]) => path.startsWith('node_modules/@social-layer/'));
  expect(ours.length).toBeGreaterThan(0);
}
