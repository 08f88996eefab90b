// The client must bundle for browsers with `ws` left external: no Node built-ins, and `ws`
// reached only through the dynamic import used when there is no global WebSocket. `opusscript`
// (voice's Opus fallback where WebCodecs is missing) is external the same way.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

describe('browser bundle', () => {
  it('bundles for the browser with ws external and no node: imports', async () => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      external: ['ws', 'opusscript'],
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/from\s*["']node:/);
    expect(code).not.toMatch(/require\(/);
    expect(code.match(/["']ws["']/g)).toEqual(['"ws"']);
    expect(code).toContain('import("ws")');
    expect(code).toContain('import("opusscript")');
    expect(code).not.toMatch(/import\(\s*["']node:/);
  });
});
