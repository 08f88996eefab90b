import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { WebhookReceiver } from './webhookReceiver.ts';

/**
 * Every event source that exists today reaches a verifying receiver with its payload: lobby
 * messages and game DMs (with moderation metadata, for server-side moderation) and
 * deauthorization. Each is recorded in the transaction of its change: a rolled-back change
 * leaves no event.
 */
let t: TestServer;
let receiver: WebhookReceiver;
beforeAll(async () => {
  t = await startTestServer({ webhooks: { allowLoopback: true, pollIntervalMs: 50 } });
  receiver = await WebhookReceiver.start();
  receiver.publicKey = (await t.server.webhooks.wire(t.app.id)).verify_key;
  await t.server.webhooks.update(t.app.id, {
    event_webhooks_url: receiver.url,
    event_webhooks_types: ['LOBBY_MESSAGE_CREATE', 'LOBBY_MESSAGE_UPDATE', 'GAME_DIRECT_MESSAGE_CREATE', 'GAME_DIRECT_MESSAGE_UPDATE', 'GAME_DIRECT_MESSAGE_DELETE', 'APPLICATION_DEAUTHORIZED'],
  });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
  cleanupTempDirs();
});

async function event(type: string, match: (data: any) => boolean): Promise<any> {
  let found: any;
  await receiver.waitFor(() => {
    found = receiver.events().find((e) => e.body.event.type === type && match(e.body.event.data));
    return found !== undefined;
  });
  return found.body.event.data;
}

describe('webhook event sources', () => {
  it('lobby messages: LOBBY_MESSAGE_CREATE, and LOBBY_MESSAGE_UPDATE with the moderation metadata a bot set', async () => {
    const a = await t.guest('Lia');
    const lobby = (await t.req('PUT', '/lobbies', { token: a.token, body: { secret: 'src-room' } })).body;
    const sent = (await t.req('POST', `/lobbies/${lobby.id}/messages`, { token: a.token, body: { content: 'gg', metadata: { k: 'v' } } })).body;
    const created = await event('LOBBY_MESSAGE_CREATE', (d) => d.id === sent.id);
    expect(created).toMatchObject({ id: sent.id, lobby_id: lobby.id, content: 'gg', author: { id: a.userId }, metadata: { k: 'v' }, application_id: t.app.id });

    const mod = await t.req('PUT', `/lobbies/${lobby.id}/messages/${sent.id}/moderation-metadata`, { token: t.app.botToken, bot: true, body: { verdict: 'toxic' } });
    expect(mod.status).toBe(204);
    const updated = await event('LOBBY_MESSAGE_UPDATE', (d) => d.id === sent.id);
    expect(updated).toMatchObject({ id: sent.id, lobby_id: lobby.id, moderation_metadata: { verdict: 'toxic' }, edited_timestamp: expect.any(String), timestamp: expect.any(String) });
  });

  it('game DMs: create, edit, moderation metadata, delete', async () => {
    const a = await t.guest('Mo');
    const b = await t.guest('Ned');
    for (const p of [a, b]) await t.req('PUT', '/lobbies', { token: p.token, body: { secret: 'dm-room' } });
    const sent = (await t.req('POST', `/users/${b.userId}/messages`, { token: a.token, body: { content: 'psst' } })).body;
    expect(await event('GAME_DIRECT_MESSAGE_CREATE', (d) => d.id === sent.id)).toMatchObject({ content: 'psst', channel: { id: sent.channel_id, type: 1 }, author: { id: a.userId } });
    await t.req('PATCH', `/users/${b.userId}/messages/${sent.id}`, { token: a.token, body: { content: 'psst!' } });
    expect(await event('GAME_DIRECT_MESSAGE_UPDATE', (d) => d.id === sent.id && d.content === 'psst!')).toMatchObject({ edited_timestamp: expect.any(String) });
    await t.req('PUT', `/channels/${sent.channel_id}/messages/${sent.id}/moderation-metadata`, { token: t.app.botToken, bot: true, body: { verdict: 'ok' } });
    expect(await event('GAME_DIRECT_MESSAGE_UPDATE', (d) => d.id === sent.id && d.moderation_metadata !== undefined)).toMatchObject({ moderation_metadata: { verdict: 'ok' } });
    await t.req('DELETE', `/users/${b.userId}/messages/${sent.id}`, { token: a.token });
    expect(await event('GAME_DIRECT_MESSAGE_DELETE', (d) => d.id === sent.id)).toEqual({ id: sent.id, channel_id: sent.channel_id, author_id: a.userId, recipient_id: b.userId });
  });

  it('deauthorization: APPLICATION_DEAUTHORIZED with the serialized user', async () => {
    const g = await t.guest('Ola');
    await t.server.accounts.deauthorize(t.app.id, g.userId);
    expect(await event('APPLICATION_DEAUTHORIZED', (d) => d.user?.id === g.userId)).toMatchObject({ user: { id: g.userId, global_name: 'Ola' } });
  });

  it('an event recorded in a transaction that rolls back is never stored nor sent', async () => {
    const store = t.server.store;
    const before = (await store.webhookEvents.recent(t.app.id, 1000)).length;
    let recordedId = '';
    await store.database.db
      .transaction()
      .execute(async (tx) => {
        recordedId = (await store.webhookEvents.record(tx, t.app.id, 'LOBBY_MESSAGE_CREATE', { id: 'rolled-back' }))!;
        throw new Error('the change failed');
      })
      .catch(() => {});
    expect(recordedId).not.toBe('');
    expect(await store.webhookEvents.get(recordedId)).toBeUndefined();
    expect((await store.webhookEvents.recent(t.app.id, 1000)).length).toBe(before);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.some((r) => r.body?.id === recordedId)).toBe(false);
  });
});
