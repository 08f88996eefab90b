import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../src/index.ts';
import { cleanupTempDirs, tempDir } from './harness.ts';

afterAll(() => cleanupTempDirs());

function gamesDir(names: string[]): string {
  const dir = tempDir();
  for (const name of names) {
    mkdirSync(join(dir, name, 'dist'), { recursive: true });
    writeFileSync(join(dir, name, 'dist', 'index.html'), `<title>${name}</title>`);
  }
  // A folder without a built dist/ is not a game to serve.
  mkdirSync(join(dir, 'unbuilt'), { recursive: true });
  return dir;
}

describe('hosted games', () => {
  it('lists every built game on the landing page and serves each with its config', async () => {
    const server = await startServer({ port: 0, dataDir: tempDir(), samplesDir: gamesDir(['alpha-game', 'beta-game']), logLevel: 'error' });
    try {
      const app = await server.createApplication({ name: 'Games' });
      const home = await fetch(server.url + '/', { redirect: 'manual' });
      expect(home.status).toBe(200);
      const html = await home.text();
      expect(html).toContain('href="/games/alpha-game/"');
      expect(html).toContain('href="/games/beta-game/"');
      expect(html).not.toContain('unbuilt');
      expect(await (await fetch(server.url + '/games/beta-game/')).text()).toContain('beta-game');
      expect(await (await fetch(server.url + '/games/config.json')).json()).toEqual({ applicationId: app.id, apiBase: server.url });
    } finally {
      await server.close();
    }
  });

  it('goes straight to the game when there is only one', async () => {
    const server = await startServer({ port: 0, dataDir: tempDir(), samplesDir: gamesDir(['solo-game']), logLevel: 'error' });
    try {
      const home = await fetch(server.url + '/', { redirect: 'manual' });
      expect(home.status).toBe(302);
      expect(home.headers.get('location')).toBe('/games/solo-game/');
    } finally {
      await server.close();
    }
  });
});
