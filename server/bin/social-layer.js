#!/usr/bin/env node
// In the repository the package runs its TypeScript sources (tsx compiles them on load, so there
// is no build step to forget); published, it has no sources and runs the JavaScript built into
// dist/ (npm run build:packages).
import { existsSync } from 'node:fs';

const source = new URL('../src/cli.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/cli.js');
}
