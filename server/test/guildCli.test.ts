import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from './harness.ts';
import { RawGateway } from './harness.ts';
import { startServer } from '../src/index.ts';

const BIN = fileURLToPath(new URL('../bin/social-layer.js', import.meta.url));
afterAll(() => cleanupTempDirs());

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout, err: r.stderr, json: () => JSON.parse(r.stdout) };
}

describe('guild admin CLI', () => {
  it('guilds create makes general and General; apps install adds the bot with a managed role; the bot then sees the guild', async () => {
    const data = tempDir();
    const app = cli(['apps', 'create', '--name', 'Guild Bot', '--data', data]).json();
    const user = cli(['users', 'create', '--username', 'guildowner', '--data', data]);
    expect(user.status).toBe(0);
    const owner = user.json();

    const created = cli(['guilds', 'create', '--owner', 'guildowner', '--name', 'Operators', '--data', data]);
    expect(created.status).toBe(0);
    const guild = created.json();
    expect(guild).toMatchObject({ name: 'Operators', owner_id: owner.id });

    const perms = ((1n << 10n) | (1n << 4n)).toString();
    const installed = cli(['apps', 'install', '--app', app.id, '--guild', guild.id, '--permissions', perms, '--data', data]);
    expect(installed.status).toBe(0);
    expect(installed.json()).toMatchObject({ guild_id: guild.id, application_id: app.id, permissions: perms });

    // Bad input: exit 2 and a message, nothing written.
    expect(cli(['apps', 'install', '--app', app.id, '--guild', guild.id, '--permissions', 'all', '--data', data]).status).toBe(2);
    expect(cli(['apps', 'install', '--app', app.id, '--guild', '123', '--data', data]).status).toBe(2);
    expect(cli(['guilds', 'create', '--owner', 'nobody-here', '--name', 'X1', '--data', data]).status).toBe(2);
    expect(cli(['guilds', 'create', '--owner', 'guildowner', '--data', data]).err).toContain('--name');

    const server = await startServer({ port: 0, dataDir: data, serveSamples: false, logLevel: 'error' });
    try {
      const res = await fetch(`${server.url}/api/v10/guilds/${guild.id}/channels`, { headers: { authorization: `Bot ${app.bot_token}` } });
      const channels = (await res.json()) as { name: string; type: number }[];
      expect(channels.map((c) => [c.type, c.name])).toEqual(expect.arrayContaining([[0, 'general'], [2, 'General']]));
      const roles = (await (await fetch(`${server.url}/api/v10/guilds/${guild.id}/roles`, { headers: { authorization: `Bot ${app.bot_token}` } })).json()) as any[];
      expect(roles.find((r) => r.managed)).toMatchObject({ permissions: perms, tags: { bot_id: expect.any(String) } });
      const gw = await RawGateway.open(server);
      gw.send({ op: 2, d: { token: app.bot_token, intents: 1, properties: { os: 'l', browser: 'b', device: 'd' } } });
      await gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guild.id);
      gw.terminate();
    } finally {
      await server.close();
    }
  }, 60_000);
});
