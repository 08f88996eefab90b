/**
 * Benchmark runner: `npm run bench` runs every benchmark, `npm run bench -- NAME [NAME...]` the
 * named ones. A benchmark is `tools/src/bench/<NAME>.ts` whose default export returns its figures;
 * each figure is printed and all of them are written to `bench-results/<NAME>.json`.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './types.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const OUT = resolve(HERE, '../../../bench-results');
// The runner itself and the modules benchmarks share (they have no default export to run).
const NOT_BENCHMARKS = new Set(['run', 'types', 'stats', 'fanout', 'childProcess', 'voicePipeline', 'voiceRelay']);

function available(): string[] {
  return readdirSync(HERE)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -3))
    .filter((n) => !NOT_BENCHMARKS.has(n))
    .sort();
}

async function runOne(name: string): Promise<void> {
  const mod = (await import(`./${name}.ts`)) as { default: () => Promise<BenchResult> };
  const started = Date.now();
  const result = await mod.default();
  const record = { name, date: new Date().toISOString(), node: process.version, durationMs: Date.now() - started, ...result };
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, `${name}.json`), JSON.stringify(record, null, 2) + '\n');
  process.stdout.write(`\n== ${name} ==\n${result.description}\n`);
  const width = Math.max(...Object.keys(result.figures).map((k) => k.length));
  for (const [key, value] of Object.entries(result.figures)) {
    process.stdout.write(`  ${key.padEnd(width)}  ${typeof value === 'number' ? formatNumber(value) : value}\n`);
  }
  for (const note of result.notes ?? []) process.stdout.write(`  note: ${note}\n`);
  process.stdout.write(`  -> ${join('bench-results', `${name}.json`)}\n`);
}

function formatNumber(n: number): string {
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  return Math.abs(n) >= 100 ? n.toFixed(1) : n.toFixed(3);
}

const requested = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = requested.length > 0 ? requested : available();
for (const n of names) {
  if (!available().includes(n)) {
    process.stderr.write(`Unknown benchmark "${n}". Available: ${available().join(', ')}\n`);
    process.exit(2);
  }
}
for (const n of names) await runOne(n);
process.exit(0);
