import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../src/index.ts';
import { cleanupTempDirs, tempDir } from './harness.ts';

afterAll(() => cleanupTempDirs());

function gamesDir(names: string[], activities: string[] = []): string {
  const dir = tempDir();
  for (const name of names) {
    mkdirSync(join(dir, name, 'dist'), { recursive: true });
    writeFileSync(join(dir, name, 'dist', 'index.html'), `<title>${name}</title>`);
  }
  for (const name of activities) {
    mkdirSync(join(dir, name, 'dist'), { recursive: true });
    writeFileSync(join(dir, name, 'dist', 'index.html'), `<head><meta name="social-layer-kind" content="activity"><title>${name}</title></head>`);
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

  it('lists an activity apart, with the steps to launch it in the web app, and never goes straight to it', async () => {
    const server = await startServer({ port: 0, dataDir: tempDir(), samplesDir: gamesDir(['solo-game'], ['party-activity']), logLevel: 'error' });
    try {
      const app = await server.createApplication({ name: 'Games' });
      const home = await fetch(server.url + '/', { redirect: 'manual' });
      expect(home.status).toBe(200);
      const html = await home.text();
      expect(html).toContain('href="/games/solo-game/"');
      expect(html).not.toContain('href="/games/party-activity/"');
      expect(html).toContain('<h2>Activities</h2>');
      expect(html).toContain(`npx social-layer apps update --app ${app.id} --dev --activities true`);
      expect(html).toContain(`--url-mapping /=${server.url}/games/party-activity`);
      expect(html).toContain('node samples/party-activity/server.mjs');
      // Still served: the web app frames it through its URL mapping.
      expect((await fetch(server.url + '/games/party-activity/')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
