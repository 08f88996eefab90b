#!/usr/bin/env node
// The package ships TypeScript sources; tsx compiles them on load, so there is no build step to forget.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
