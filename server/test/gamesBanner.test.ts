/**
 * The start banner names the games that are really served: with `--games DIR` (scaffolded games)
 * it points at those, not at the bundled Phaser sample; with none built it says how to build.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { gamesBanner, hostedGames } from '../src/http/routes/games.ts';
import { cleanupTempDirs, tempDir } from './harness.ts';

const BIN = fileURLToPath(new URL('../bin/social-layer.js', import.meta.url));
afterAll(() => cleanupTempDirs());

function gamesFolder(built: string[], unbuilt: string[] = []): string {
  const dir = tempDir();
  for (const name of built) {
    mkdirSync(join(dir, name, 'dist'), { recursive: true });
    writeFileSync(join(dir, name, 'dist', 'index.html'), `<!doctype html><title>${name}</title>`);
  }
  for (const name of unbuilt) mkdirSync(join(dir, name), { recursive: true });
  return dir;
}

describe('games banner', () => {
  it('lists only built games with URL-safe names', () => {
    const dir = gamesFolder(['zeta-run', 'alpha'], ['not-built']);
    mkdirSync(join(dir, 'Bad Name', 'dist'), { recursive: true });
    writeFileSync(join(dir, 'Bad Name', 'dist', 'index.html'), '');
    expect(hostedGames(dir)).toEqual(['alpha', 'zeta-run']);
    expect(hostedGames(join(dir, 'missing'))).toEqual([]);
    expect(gamesBanner('http://h', [])).toContain('npm run build');
    expect(gamesBanner('http://h', ['alpha'])).toBe('Play alpha: http://h/games/alpha/\n');
    expect(gamesBanner('http://h', ['alpha', 'zeta-run'])).toBe('Games (2): http://h/\n  alpha: http://h/games/alpha/\n  zeta-run: http://h/games/zeta-run/\n');
    // An activity is launched in the web app: the banner sends people to the landing page's steps.
    expect(gamesBanner('http://h', ['alpha', 'party'], new Set(['party']))).toBe('Games (2): http://h/\n  alpha: http://h/games/alpha/\n  party: an activity, launched in the web app (how: http://h/)\n');
    expect(gamesBanner('http://h', ['party'], new Set(['party']))).toBe('Games (1): http://h/\n  party: an activity, launched in the web app (how: http://h/)\n');
  });

  it('start --games DIR points at the scaffolded game it serves, not at the bundled sample', async () => {
    const games = gamesFolder(['space-tag']);
    const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--data', tempDir(), '--games', games], { env: { ...process.env, SOCIAL_LAYER_GAMES: '' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      const deadline = Date.now() + 45_000;
      while (!out.includes('Developer portal') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      const url = /Play space-tag: (http:\/\/127\.0\.0\.1:\d+\/games\/space-tag\/)/.exec(out)?.[1];
      expect(url, out).toBeDefined();
      expect(out).not.toContain('phaser-lobby');
      const page = await fetch(url!);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>space-tag</title>');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }, 60_000);

  // The games' "Sign in to keep your progress" comes back to the game's page with PKCE, so the
  // development application must list those pages and be a public client; production adds nothing.
  it.each([
    { mode: 'development', args: ['--dev'], expectPages: true },
    { mode: 'production', args: [], expectPages: false },
  ])('start ($mode) makes the first-run application ready for sign-in from the hosted games: $expectPages', async ({ args, expectPages }) => {
    const games = gamesFolder(['space-tag']);
    const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--data', tempDir(), '--games', games, ...args], { env: { ...process.env, SOCIAL_LAYER_GAMES: '', SOCIAL_LAYER_DEV: '' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      const deadline = Date.now() + 45_000;
      while (!out.includes('Developer portal') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      const base = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(out);
      expect(base, out).not.toBeNull();
      const printed = JSON.parse(out.slice(out.indexOf('{'), out.indexOf('}') + 1)) as { bot_token: string };
      const res = await fetch(`${base![1]}/api/v10/applications/@me`, { headers: { authorization: `Bot ${printed.bot_token}` } });
      const app = (await res.json()) as { redirect_uris: string[]; public_client: boolean };
      if (expectPages) {
        expect(app.redirect_uris).toEqual(expect.arrayContaining(['http://127.0.0.1/games/space-tag/', `http://localhost:${base![2]}/games/space-tag/`]));
        expect(app.public_client).toBe(true);
      } else {
        expect(app.redirect_uris).toEqual([]);
      }
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }, 60_000);
});
