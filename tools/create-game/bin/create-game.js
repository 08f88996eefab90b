#!/usr/bin/env node
// Published, the package runs its built JavaScript (dist/); in the repository, where the sources
// are and nothing need be built, tsx compiles them on load.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/cli.js');
}
