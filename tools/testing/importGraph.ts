import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of a package's own files, read with the TypeScript compiler's parser (no
 * type-checking, so a whole package takes well under a second). An edge is a static `import` or
 * `export ... from` of a relative path, type-only ones included: a type-only circle costs nothing
 * at run time but still means neither file can be read without the other. Dynamic `import()` is
 * left out: it is how a file defers loading (the CLI's commands), not part of reading order.
 * Imports of other packages (`@social-layer/...`, npm) are not edges; the workspaces order those.
 */

const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'build', 'coverage', '.vite', 'generated']);

/** Every source file under `dir` (declaration files and build output left out). */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) {
        if (!SKIP_DIRS.has(name) && !name.startsWith('.')) walk(path);
      } else if (SOURCE.test(name) && !name.endsWith('.d.ts')) {
        out.push(path);
      }
    }
  };
  walk(dir);
  return out.sort();
}

/** The relative specifiers a file imports statically (value and type imports, re-exports). */
export function importSpecifiers(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const specs: string[] = [];
  for (const statement of source.statements) {
    const spec = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier;
    if (spec && ts.isStringLiteral(spec) && spec.text.startsWith('.')) specs.push(spec.text);
  }
  return specs;
}

/** The file a relative specifier names: as written, or a `.js` spelling of a `.ts` file, or a folder's index. */
function resolveSpecifier(from: string, spec: string, known: Set<string>): string | undefined {
  const base = resolve(dirname(from), spec);
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.js')];
  return candidates.find((c) => known.has(c));
}

export type ImportGraph = Map<string, string[]>;

/** file -> the files of the same set that it imports. */
export function importGraph(files: string[]): ImportGraph {
  const known = new Set(files);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const deps = importSpecifiers(file)
      .map((s) => resolveSpecifier(file, s, known))
      .filter((d): d is string => d !== undefined);
    graph.set(file, [...new Set(deps)]);
  }
  return graph;
}

/**
 * The import circles of a graph: one entry per strongly connected set of files that import each
 * other (Tarjan), each written as the files in a circle's order, relative to `root`.
 */
export function importCircles(graph: ImportGraph, root: string): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const connect = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const set: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        set.push(w);
      } while (w !== v);
      const selfImport = set.length === 1 && (graph.get(v) ?? []).includes(v);
      if (set.length > 1 || selfImport) circles.push(set.reverse().map((f) => relative(root, f)));
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) connect(v);
  return circles;
}
