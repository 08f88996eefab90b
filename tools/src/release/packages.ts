/**
 * The packages this repository publishes, in dependency order (a package comes after every
 * Social Layer package it depends on), and the helpers the release scripts share.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../../../', import.meta.url)));

/** Folders (relative to the repository root) of every published package. */
export const PUBLISHED_PACKAGES = [
  'bindings/protocol',
  'core-wasm',
  'bindings/rpc',
  'bindings/dave',
  'bindings/client',
  'plugins/ui',
  'plugins/phaser',
  'plugins/babylon',
  'plugins/playcanvas',
  'server',
  'tools/create-game',
] as const;

/** The package.json fields the release scripts read and write. */
export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  description?: string;
  type?: string;
  exports?: unknown;
  bin?: Record<string, string>;
  files?: string[];
  engines?: Record<string, string>;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  /**
   * What the registry gets instead of the repository's fields (the convention of pnpm and Yarn):
   * in the repository `exports` point at the TypeScript sources, which tests, `npm start` and
   * the samples' builds run from; the published package's point at `dist/`.
   */
  publishConfig?: Record<string, unknown>;
  [field: string]: unknown;
}

export function readManifest(dir: string, root = REPO_ROOT): PackageManifest {
  return JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as PackageManifest;
}

/** Every workspace folder of the repository (published or not), from the root package.json. */
export function workspaceDirs(root = REPO_ROOT): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  return manifest.workspaces;
}
