import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from './harness.ts';

const BIN = fileURLToPath(new URL('../bin/social-layer.js', import.meta.url));
afterAll(() => cleanupTempDirs());

describe('social-layer CLI', () => {
  it('apps create prints a new application as JSON', () => {
    const data = tempDir();
    const r = spawnSync(process.execPath, [BIN, 'apps', 'create', '--name', 'Space Game', '--data', data], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const app = JSON.parse(r.stdout);
    expect(app.name).toBe('Space Game');
    expect(app.id).toMatch(/^\d{17,20}$/);
    expect(app.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(app.bot_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('apps create without a name fails with usage', () => {
    const r = spawnSync(process.execPath, [BIN, 'apps', 'create'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--name');
  });

  it('start reads port and data from the environment, creates the dev app once, and serves the API', async () => {
    const data = tempDir();
    const port = 20000 + Math.floor(Math.random() * 20000);
    const run = async () => {
      const child = spawn(process.execPath, [BIN, 'start'], { env: { ...process.env, SOCIAL_LAYER_PORT: String(port), SOCIAL_LAYER_DATA: data } });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const deadline = Date.now() + 30_000;
      while (!out.includes('listening on') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain(`listening on http://127.0.0.1:${port}`);
      const res = await fetch(`http://127.0.0.1:${port}/api/v10/gateway`);
      expect(await res.json()).toEqual({ url: `ws://127.0.0.1:${port}/gateway` });
      const cfg = await (await fetch(`http://127.0.0.1:${port}/games/config.json`)).json();
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      return { out, cfg };
    };
    const first = await run();
    const printed = JSON.parse(first.out.slice(first.out.indexOf('{'), first.out.indexOf('}') + 1));
    expect(printed.application_id).toMatch(/^\d+$/);
    expect(printed.bot_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.cfg.applicationId).toBe(printed.application_id);
    const second = await run();
    expect(second.out).not.toContain('Created the development application');
    expect(second.cfg.applicationId).toBe(printed.application_id);
  });

  it('rejects an invalid port', () => {
    const r = spawnSync(process.execPath, [BIN, 'start', '--port', 'abc', '--data', tempDir()], { encoding: 'utf8' });
    expect(r.status).toBe(2);
  });
});
