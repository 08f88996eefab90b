// Writes docs/api-coverage.md: the public OpenAPI document's operations, each implemented (and how
// it is tested) or not (and why). Run from the repository root: npx tsx server/scripts/apiCoverage.ts
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../src/index.ts';
import { COVERAGE_DOC, coverageTable } from '../test/conformance/coverageTable.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'sl-coverage-'));
const server = await startServer({ port: 0, dataDir, serveSamples: false, logLevel: 'error' });
try {
  const { markdown, withoutReason, unusedReasons } = coverageTable(server.httpRoutes());
  writeFileSync(COVERAGE_DOC, markdown);
  console.log(`wrote ${fileURLToPath(COVERAGE_DOC)}`);
  if (withoutReason.length > 0) console.warn(`no reason recorded in docs/api-coverage-reasons.json for:\n  ${withoutReason.join('\n  ')}`);
  if (unusedReasons.length > 0) console.warn(`reasons for nothing (implemented now?):\n  ${unusedReasons.join('\n  ')}`);
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
