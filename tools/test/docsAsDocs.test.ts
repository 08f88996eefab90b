// What users read says what is true now: READMEs and docs/ carry no issue numbers (the tracker is
// ours, not the reader's), the tools README holds today's figures and points to the dated history
// instead of growing into one, and the CLI's help does not cite issues either.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tracked = (pattern: string): string[] =>
  execFileSync('git', ['ls-files', '--', pattern], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);

const ISSUE = /\bissues? #?\d+\b|\bissue's\b/i;

describe('docs as docs', () => {
  it('no README or docs page cites an issue number', () => {
    const pages = [...tracked('*.md')].filter((p) => !p.includes('node_modules/') && !p.startsWith('tools/bench-history'));
    expect(pages.length).toBeGreaterThan(10);
    const hits = pages.flatMap((p) =>
      readFileSync(root + p, 'utf8').split('\n').flatMap((line, i) => (ISSUE.test(line) ? [`${p}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(hits).toEqual([]);
  });

  it('tools/README.md is under 250 lines, shows the figures of today and points to the dated history', () => {
    const readme = readFileSync(root + 'tools/README.md', 'utf8');
    expect(readme.split('\n').length).toBeLessThan(250);
    expect(readme).toContain('### Figures today');
    expect(readme).toContain('](bench-history.md)');
    expect(readme).not.toMatch(/\b(seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth) session\b/i);
    expect(readFileSync(root + 'tools/bench-history.md', 'utf8')).toMatch(/^# Benchmark history/);
  });

  it("the CLI's help and the benchmarks' printed notes cite no issue", () => {
    const sources = [...tracked('server/src/cli/*.ts'), ...tracked('tools/src/bench/*.ts')];
    // Only text a person sees: string and template literals, not comments.
    const literal = /(['"`])(?:\\.|(?!\1)[^\\])*\1/gs;
    const hits = sources.flatMap((p) =>
      [...readFileSync(root + p, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '').matchAll(literal)]
        .filter((m) => ISSUE.test(m[0]))
        .map((m) => `${p}: ${m[0].slice(0, 80)}`),
    );
    expect(hits).toEqual([]);
  });
});
