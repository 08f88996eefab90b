// A module resolve hook for gateway-idle's compiled arm: the workspace packages export their
// TypeScript sources (`src/*.ts`, run through tsx in the repository); installed from the registry
// they export the JavaScript built into `dist/` (publishConfig, `npm run build:packages`). This
// maps each resolved `<package>/src/<path>.ts` to `<package>/dist/<path>.js`, which the build
// writes file for file, so plain node runs exactly the files a registry install would hold.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const m = /^(file:\/\/.*)\/src\/(.*)\.ts$/.exec(resolved.url);
  if (!m || resolved.url.includes('/node_modules/')) return resolved;
  const built = `${m[1]}/dist/${m[2]}.js`;
  return existsSync(fileURLToPath(built)) ? { ...resolved, url: built, format: 'module' } : resolved;
}
