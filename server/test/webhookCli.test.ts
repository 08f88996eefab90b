import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSince } from '../src/cli/webhooks.ts';
import { cleanupTempDirs, startTestServer, tempDir } from './harness.ts';
import { WebhookReceiver } from './webhookReceiver.ts';

const BIN = fileURLToPath(new URL('../bin/social-layer.js', import.meta.url));
afterAll(() => cleanupTempDirs());

describe('social-layer webhooks replay', () => {
  it('sends an application\'s events again, with their ids, to a running server\'s receiver', async () => {
    const data = tempDir();
    const t = await startTestServer({ dataDir: data, webhooks: { allowLoopback: true, pollIntervalMs: 50 } });
    const receiver = await WebhookReceiver.start();
    try {
      receiver.publicKey = (await t.server.webhooks.wire(t.app.id)).verify_key;
      await t.server.webhooks.update(t.app.id, { event_webhooks_url: receiver.url, event_webhooks_types: ['LOBBY_MESSAGE_CREATE'] });
      const g = await t.guest('Rex');
      const lobby = (await t.req('PUT', '/lobbies', { token: g.token, body: { secret: 'replay-room' } })).body;
      for (const content of ['one', 'two', 'three']) await t.req('POST', `/lobbies/${lobby.id}/messages`, { token: g.token, body: { content } });
      await receiver.waitFor(() => receiver.events().length === 3);
      const ids = receiver.events().map((e) => e.body.id);

      const r = spawnSync(process.execPath, [BIN, 'webhooks', 'replay', '--app', t.app.id, '--since', '1h', '--data', data], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ application_id: t.app.id, requeued: 3 });
      await receiver.waitFor(() => receiver.events().length === 6).catch((err) => {
        throw new Error(`${err.message}: ${JSON.stringify(receiver.received.map((x) => [x.body?.type, x.body?.id, x.status, x.verified]))}`);
      });
      expect(receiver.events().slice(3).map((e) => e.body.id)).toEqual(ids);

      // Nothing since a time in the future; bad input is a usage error (exit 2).
      const none = spawnSync(process.execPath, [BIN, 'webhooks', 'replay', '--app', t.app.id, '--since', '2999-01-01T00:00:00Z', '--data', data], { encoding: 'utf8' });
      expect(JSON.parse(none.stdout).requeued).toBe(0);
      for (const args of [['--app', t.app.id, '--since', 'yesterday'], ['--app', '123', '--since', '1h'], ['--since', '1h'], ['--app', t.app.id]]) {
        const bad = spawnSync(process.execPath, [BIN, 'webhooks', 'replay', ...args, '--data', data], { encoding: 'utf8' });
        expect(bad.status, args.join(' ')).toBe(2);
      }
    } finally {
      await t.close();
      await receiver.close();
    }
  }, 60_000);

  it('reads --since as ISO 8601 or a span back from now', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(parseSince('90m', now)).toBe(now - 90 * 60_000);
    expect(parseSince('2d', now)).toBe(now - 2 * 86_400_000);
    expect(parseSince('2026-11-23T10:00:00Z', now)).toBe(Date.parse('2026-11-23T10:00:00Z'));
    expect(() => parseSince('10 minutes ago', now)).toThrow(/--since/);
  });
});
