/**
 * The SDK reference (issue 20): TypeDoc over every SDK package's entry point (docs/typedoc.json,
 * what `npm run docs:sdk` renders into server/web/sdk-docs and the server serves at /docs/sdk)
 * converts with no warning: every exported class, interface, type, variable and enum of the SDK
 * packages has a doc comment, and every member too (properties, methods, accessors, enum and
 * table entries, the fields of inline object types): a game reads the reference for what a value
 * means on the wire, its unit and where it comes from. Links resolve, and each package is a module of its own name. The getting-started page of each engine
 * is part of it.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application, LogLevel, ReflectionKind } from 'typedoc';
import { expect, it } from 'vitest';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));

it('TypeDoc converts the SDK packages with no warning, one module per package, a getting-started page per engine', async () => {
  const app = await Application.bootstrapWithPlugins({ options: join(REPO_ROOT, 'docs/typedoc.json') });
  const messages: string[] = [];
  app.logger.log = (message: string, level: LogLevel) => {
    if (level >= LogLevel.Warn) messages.push(message);
  };
  const project = await app.convert();
  expect(project, messages.join('\n')).toBeDefined();
  app.validate(project!);
  expect(messages).toEqual([]);
  const modules = project!.getChildrenByKind(ReflectionKind.Module).map((m) => m.name).sort();
  expect(modules).toEqual([
    '@social-layer/babylon',
    '@social-layer/client',
    '@social-layer/client/desktop',
    '@social-layer/core-wasm',
    '@social-layer/dave',
    '@social-layer/phaser',
    '@social-layer/playcanvas',
    '@social-layer/protocol',
    '@social-layer/ui',
  ]);
  // Every SDK package, every member too (methods, accessors, properties, enum and table entries),
  // not only the exported declarations: the client and the protocol (wire shapes, opcodes, close and
  // error codes, limits), the quick start, the overlay and the engine plugins, DAVE and the WASM core
  // (its raw ABI, CoreExports, is @internal: out of the reference).
  const everyKind = ['Enum', 'EnumMember', 'Variable', 'Function', 'Class', 'Interface', 'TypeAlias', 'Property', 'Method', 'Accessor', 'Namespace'];
  const strict = await Application.bootstrapWithPlugins({
    options: join(REPO_ROOT, 'docs/typedoc.json'),
    requiredToBeDocumented: everyKind as never,
    packagesRequiringDocumentation: [
      '@social-layer/protocol',
      '@social-layer/client',
      '@social-layer/ui',
      '@social-layer/phaser',
      '@social-layer/babylon',
      '@social-layer/playcanvas',
      '@social-layer/dave',
      '@social-layer/core-wasm',
    ],
  });
  const strictMessages: string[] = [];
  strict.logger.log = (message: string, level: LogLevel) => {
    if (level >= LogLevel.Warn) strictMessages.push(message);
  };
  const strictProject = await strict.convert();
  strict.validate(strictProject!);
  expect(strictMessages).toEqual([]);

  const documents = (project!.documents ?? []).map((d) => d.name).sort();
  expect(documents).toEqual(['Getting started with Babylon.js', 'Getting started with PlayCanvas', 'Getting started with Phaser'].sort());
}, 300_000);
