// The server's floors: the domain folders (server/src/<domain>/) lie below the HTTP layer
// (server/src/http/), which maps their errors (errors/ApiError.ts) to responses. A domain file that
// imports from http/ could no longer be read or tested without the HTTP layer beneath it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importSpecifiers, sourceFiles } from '../../tools/testing/importGraph.ts';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const http = join(src, 'http');
/** Folders above the HTTP layer: the CLI starts the server (startServer.ts, at the top, too). */
const ABOVE_HTTP = new Set(['http', 'cli']);

/** Static imports and `import('...')` of relative paths: a deferred load is a dependency too. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const dynamic = [...text.matchAll(/\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)].map((m) => m[1]!);
  return [...importSpecifiers(file, text), ...dynamic];
}

describe('server floors', () => {
  const domains = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory() && !ABOVE_HTTP.has(name));

  it('no file under server/src/<domain>/ imports from server/src/http/', () => {
    expect(domains).toEqual(expect.arrayContaining(['messages', 'guilds', 'social', 'voice', 'gateway', 'errors', 'schemas']));
    const upward: string[] = [];
    for (const domain of domains) {
      for (const file of sourceFiles(join(src, domain))) {
        for (const spec of specifiers(file)) {
          const target = resolve(dirname(file), spec);
          if (target === http || target.startsWith(http + sep)) upward.push(`${relative(src, file)} imports ${spec}`);
        }
      }
    }
    expect(upward).toEqual([]);
  });

  it('the check sees an upward import when there is one', () => {
    // The walk above is only as good as its reading of imports: the HTTP layer's own files do
    // import from http/, so the same reading must find those.
    const routes = sourceFiles(join(http, 'routes'));
    const seen = routes.flatMap((file) => specifiers(file).filter((spec) => resolve(dirname(file), spec).startsWith(http + sep)));
    expect(seen.length).toBeGreaterThan(10);
  });

  it("each folder's README says what it may import, and the folder imports nothing else", () => {
    const folders = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory());
    const untrue: string[] = [];
    for (const folder of folders) {
      const readme = join(src, folder, 'README.md');
      const line = existsSync(readme) ? /^May import: (.*)$/m.exec(readFileSync(readme, 'utf8'))?.[1] : undefined;
      if (line === undefined) {
        untrue.push(`${folder}/README.md has no "May import:" line`);
        continue;
      }
      const imported = new Set<string>();
      for (const file of sourceFiles(join(src, folder))) {
        for (const spec of specifiers(file)) {
          const target = relative(src, resolve(dirname(file), spec));
          const [top, ...rest] = target.split(sep);
          // A top-level file (startServer.ts, ServerContext.ts) by its name, a folder as `name/`.
          if (top !== folder && !top!.startsWith('..')) imported.add(rest.length > 0 ? `${top}/` : top!);
        }
      }
      for (const name of imported) if (!line.includes(`\`${name}\``)) untrue.push(`${folder}/ imports ${name}, which its README does not name`);
    }
    expect(untrue).toEqual([]);
  });
});
