import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

describe('browser bundle', () => {
  it('bundles for the browser with esbuild (no fs, no fetch) and runs', async () => {
    const result = await build({
      entryPoints: [new URL('../src/index.ts', import.meta.url).pathname],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/from ["']node:/);
    const dir = mkdtempSync(join(tmpdir(), 'core-wasm-bundle-'));
    try {
      const file = join(dir, 'bundle.mjs');
      writeFileSync(file, code);
      const mod = await import(pathToFileURL(file).href);
      const state = await mod.LobbyState.create();
      state.upsertLobby({ id: '18446744073709551615', metadataJson: 'null', members: [] });
      expect(state.drainEvents()).toEqual([{ kind: 1, lobbyId: '18446744073709551615', memberId: '0' }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
