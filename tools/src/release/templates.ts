/** Writes create-game's engine templates (tools/create-game/templates/, gitignored) from samples/. */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { ENGINES } from '../../create-game/src/engines.ts';
import { writeTemplate } from '../../create-game/src/templates.ts';
import { REPO_ROOT } from './packages.ts';

export async function writeTemplates(): Promise<string[]> {
  const root = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  const esbuildRange = root.devDependencies?.esbuild ?? '*';
  for (const engine of ENGINES) {
    await writeTemplate(join(REPO_ROOT, 'samples'), engine, join(REPO_ROOT, 'tools/create-game/templates', engine.id), esbuildRange);
  }
  return ENGINES.map((e) => e.id);
}
