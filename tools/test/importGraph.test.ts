// Every package of the workspace reads one way: no two files import each other, directly or round
// a longer circle (type-only imports included), and no source file grows past 600 lines.
import { readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCircles, importGraph, importSpecifiers, sourceFiles } from '../testing/importGraph.ts';

const root = resolve(import.meta.dirname, '../..');
const workspaces = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
/** Packages outside the npm workspaces that still hold our code. */
const PACKAGES = [...workspaces, 'samples/activity-lobby'];

/** Longest a source file may be. Past it a file holds several jobs; split it by them. */
const MAX_LINES = 600;
/** The Client facade (one delegation per SDK method, no logic of its own) may be longer. */
const LONG_ALLOWED = new Set(['bindings/client/src/Client.ts']);

const files = (pkg: string) => sourceFiles(join(root, pkg));

describe('import graph', () => {
  it('walks every package', () => {
    expect(PACKAGES).toEqual(expect.arrayContaining(['server', 'bindings/client', 'bindings/dave', 'plugins/ui', 'tools']));
    for (const pkg of PACKAGES) expect(files(pkg).length, pkg).toBeGreaterThan(0);
  });

  it.each(PACKAGES)('%s has no import circle', (pkg) => {
    expect(importCircles(importGraph(files(pkg)), root)).toEqual([]);
  });

  it('finds a circle when there is one (two files, and three round a longer way)', () => {
    const two = new Map([
      ['/p/a.ts', ['/p/b.ts']],
      ['/p/b.ts', ['/p/a.ts']],
    ]);
    expect(importCircles(two, '/p')).toEqual([['a.ts', 'b.ts']]);
    const three = new Map([
      ['/p/a.ts', ['/p/b.ts']],
      ['/p/b.ts', ['/p/c.ts']],
      ['/p/c.ts', ['/p/a.ts']],
      ['/p/d.ts', ['/p/a.ts']],
    ]);
    expect(importCircles(three, '/p')).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    // The reader counts type-only imports and re-exports, not a deferred import() nor a package.
    const text = "import type { A } from './a.ts';\nexport { b } from '../b.ts';\nimport x from 'ws';\nconst c = await import('./c.ts');\n";
    expect(importSpecifiers('/p/x.ts', text)).toEqual(['./a.ts', '../b.ts']);
  });
});

describe('file size', () => {
  it(`no source file is over ${MAX_LINES} lines (tests and generated files aside; the Client facade allowed)`, () => {
    const long: string[] = [];
    for (const pkg of PACKAGES) {
      for (const file of files(pkg)) {
        const path = relative(root, file);
        if (path.split(sep).includes('test') || LONG_ALLOWED.has(path)) continue;
        const text = readFileSync(file, 'utf8');
        if (/^\/\/ (@generated|Generated)|^\/\* (@generated|Generated)/m.test(text.slice(0, 300))) continue;
        const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
        if (lines > MAX_LINES) long.push(`${path}: ${lines}`);
      }
    }
    expect(long).toEqual([]);
  });
});
