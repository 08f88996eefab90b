import pkg from '../package.json' with { type: 'json' };

// The SDK's version for Client.getVersionMajor/Minor/Patch/Hash (social-sdk-api.md 8.3): the
// numbers come from this package's package.json, so a release bump needs no second edit.

declare const __SOCIAL_LAYER_COMMIT__: string | undefined;

const [major = 0, minor = 0, patch = 0] = String(pkg.version)
  .split(/[.+-]/)
  .slice(0, 3)
  .map((part) => Number.parseInt(part, 10) || 0);

export const VERSION = { major, minor, patch, text: String(pkg.version) } as const;

let commit: string | undefined;

/**
 * The git commit the SDK was built from. A bundle gets it from the build (esbuild
 * `define: { __SOCIAL_LAYER_COMMIT__: '"<sha>"' }`); run from source in Node, it is the checkout's
 * HEAD. Empty when neither is known (a browser bundle built without the define).
 */
export function versionHash(): string {
  if (commit !== undefined) return commit;
  commit = typeof __SOCIAL_LAYER_COMMIT__ === 'string' ? __SOCIAL_LAYER_COMMIT__ : (checkoutHead() ?? '');
  return commit;
}

type Fs = { readFileSync(path: string, encoding: 'utf8'): string; existsSync(path: string): boolean };

function checkoutHead(): string | undefined {
  const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  if (typeof getBuiltin !== 'function' || !import.meta.url.startsWith('file:')) return undefined;
  try {
    const fs = getBuiltin('node:fs') as Fs;
    const { fileURLToPath } = getBuiltin('node:url') as { fileURLToPath(url: string): string };
    const { dirname, join } = getBuiltin('node:path') as { dirname(p: string): string; join(...p: string[]): string };
    let dir = dirname(fileURLToPath(import.meta.url));
    for (let i = 0; i < 8 && !fs.existsSync(join(dir, '.git')); i++) dir = dirname(dir);
    const git = join(dir, '.git');
    if (!fs.existsSync(join(git, 'HEAD'))) return undefined;
    const head = fs.readFileSync(join(git, 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return /^[0-9a-f]{40}$/.test(head) ? head : undefined;
    const ref = head.slice(5);
    if (fs.existsSync(join(git, ref))) return fs.readFileSync(join(git, ref), 'utf8').trim();
    const packed = fs.existsSync(join(git, 'packed-refs')) ? fs.readFileSync(join(git, 'packed-refs'), 'utf8') : '';
    return packed.split('\n').find((line) => line.endsWith(` ${ref}`))?.slice(0, 40);
  } catch {
    return undefined;
  }
}
