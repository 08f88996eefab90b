/**
 * Link mode (`--link`, what the repository's `npm run scaffold` passes): a game that depends on a
 * Social Layer checkout instead of the registry, for trying SDK changes before they are released.
 * Every Social Layer package the game needs, direct or not, becomes a `file:` link into the
 * checkout (none is on a registry then, so npm must never look one up there), and `npm start` runs
 * the checkout's own server.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A Social Layer checkout: its root `package.json` names the workspaces, among them this package's. */
export interface Checkout {
  /** The repository root, absolute. */
  root: string;
  /** Each workspace package's name and its folder, absolute. */
  packages: Map<string, string>;
}

/** The checkout this package runs from (`tools/create-game` of a repository), or undefined when installed from a registry. */
export async function ownCheckout(): Promise<Checkout | undefined> {
  const root = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
  return existsSync(join(root, 'samples')) ? readCheckout(root).catch(() => undefined) : undefined;
}

/** Reads the workspaces of the checkout at `root`; throws when `root` is not one. */
export async function readCheckout(root: string): Promise<Checkout> {
  const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { workspaces?: string[] };
  if (!Array.isArray(manifest.workspaces)) throw new Error(`${root} is not a Social Layer checkout (its package.json has no workspaces)`);
  const packages = new Map<string, string>();
  for (const ws of manifest.workspaces) {
    const file = join(root, ws, 'package.json');
    if (existsSync(file)) packages.set((JSON.parse(await readFile(file, 'utf8')) as { name: string }).name, join(root, ws));
  }
  if (!packages.has('@social-layer/client')) throw new Error(`${root} is not a Social Layer checkout (no @social-layer/client workspace)`);
  return { root, packages };
}

/** `file:` links into the checkout for the Social Layer packages among `names` and everything they depend on. */
export async function linkedDependencies(checkout: Checkout, names: readonly string[]): Promise<Record<string, string>> {
  const seen = new Set<string>();
  const queue = names.filter((n) => n.startsWith('@social-layer/'));
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (seen.has(name)) continue;
    const dir = checkout.packages.get(name);
    if (!dir) throw new Error(`no workspace package named ${name} in ${checkout.root}`);
    seen.add(name);
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dep of Object.keys(pkg.dependencies ?? {})) if (dep.startsWith('@social-layer/')) queue.push(dep);
  }
  return Object.fromEntries([...seen].sort().map((name) => [name, `file:${checkout.packages.get(name)!}`]));
}

/** The `npm start` of a linked game: the checkout's server (its sources, through tsx), serving the folder above the game. */
export function linkedStartScript(checkout: Checkout): string {
  return `node ${JSON.stringify(join(checkout.packages.get('@social-layer/server') ?? join(checkout.root, 'server'), 'bin/social-layer.js'))} start --dev --games ..`;
}
