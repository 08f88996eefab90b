import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
let alice: { token: string; userId: string };
let bob: { token: string; userId: string };
let eve: { token: string; userId: string };
let lobbyId: string;

beforeAll(async () => {
  t = await startTestServer();
  alice = await t.guest('Alice');
  bob = await t.guest('Bob');
  eve = await t.guest('Eve');
  const r = await t.req('PUT', '/lobbies', { token: alice.token, body: { secret: 'room-1', lobby_metadata: { map: 'forest' }, member_metadata: { color: 'red' } } });
  expect(r.status).toBe(200);
  lobbyId = r.body.id;
  await t.req('PUT', '/lobbies', { token: bob.token, body: { secret: 'room-1' } });
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

async function messageCount(): Promise<number> {
  return t.server.store.messages.countLobbyMessages(lobbyId);
}

describe('provisional accounts', () => {
  it('gives the same user for the same device ID and a display name', async () => {
    const body = { client_id: t.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: 'device-0123456789abcdef', preferred_global_name: 'Zed' };
    const a = await t.req('POST', '/partner-sdk/token', { body });
    const b = await t.req('POST', '/partner-sdk/token', { body });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ token_type: 'Bearer', expires_in: 604800, scope: 'sdk.social_layer' });
    expect(a.body.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b.body.access_token).not.toBe(a.body.access_token);
    const meA = await t.req('GET', '/users/@me', { token: a.body.access_token });
    const meB = await t.req('GET', '/users/@me', { token: b.body.access_token });
    expect(meA.body.id).toBe(meB.body.id);
    expect(meA.body).toMatchObject({ global_name: 'Zed', is_provisional: true, bot: false });
  });

  it('issues bot-endpoint tokens for an external user ID, only with the Bot token', async () => {
    const r = await t.req('POST', '/partner-sdk/token/bot', { token: t.app.botToken, bot: true, body: { external_user_id: 'player-42', preferred_global_name: 'P42' } });
    expect(r.status).toBe(200);
    const again = await t.req('POST', '/partner-sdk/token/bot', { token: t.app.botToken, bot: true, body: { external_user_id: 'player-42' } });
    const u1 = await t.req('GET', '/users/@me', { token: r.body.access_token });
    const u2 = await t.req('GET', '/users/@me', { token: again.body.access_token });
    expect(u1.body.id).toBe(u2.body.id);
    expect(u1.body.global_name).toBe('P42');
    const noBot = await t.req('POST', '/partner-sdk/token/bot', { token: alice.token, body: { external_user_id: 'x' } });
    expect(noBot.status).toBe(403);
    const badBot = await t.req('POST', '/partner-sdk/token/bot', { token: 'not-a-token', bot: true, body: { external_user_id: 'x' } });
    expect(badBot.status).toBe(401);
    expect(badBot.body).toEqual({ code: 0, message: '401: Unauthorized' });
  });

  it('rejects bad provisional requests with field errors', async () => {
    const short = await t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.code).toBe(50035);
    expect(short.body.errors.external_auth_token._errors[0].code).toBe('BASE_TYPE_BAD_LENGTH');
    const unknownApp = await t.req('POST', '/partner-sdk/token', { body: { client_id: '123456789012345678', external_auth_type: 'DEVICE_ID', external_auth_token: 'device-0123456789abcdef' } });
    expect(unknownApp.status).toBe(404);
    expect(unknownApp.body.code).toBe(10002);
    const wrongSecret = await t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, client_secret: 'nope', external_auth_type: 'DEVICE_ID', external_auth_token: 'device-0123456789abcdef' } });
    expect(wrongSecret.body.code).toBe(530007);
    const missing = await t.req('POST', '/partner-sdk/token', { body: {} });
    expect(Object.keys(missing.body.errors).sort()).toEqual(['client_id', 'external_auth_token', 'external_auth_type']);
    expect(missing.body.errors.client_id._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    const longName = await t.req('POST', '/partner-sdk/token/bot', { token: t.app.botToken, bot: true, body: { external_user_id: 'x', preferred_global_name: 'n'.repeat(33) } });
    expect(longName.body.errors.preferred_global_name._errors[0].code).toBe('BASE_TYPE_BAD_LENGTH');
  });

  it('updates the display name', async () => {
    const g = await t.guest();
    const r = await t.req('PATCH', '/users/@me', { token: g.token, body: { global_name: 'Renamed' } });
    expect(r.status).toBe(200);
    expect(r.body.global_name).toBe('Renamed');
    const bad = await t.req('PATCH', '/users/@me', { token: g.token, body: { global_name: 42 } });
    expect(bad.body.errors.global_name._errors[0].code).toBe('BASE_TYPE_STRING');
    expect((await t.req('GET', '/users/@me', { token: g.token })).body.global_name).toBe('Renamed');
  });
});

describe('lobbies', () => {
  it('creates, then joins by the same secret, with lobby and member metadata', async () => {
    const r = await t.req('GET', `/lobbies/${lobbyId}`, { token: bob.token });
    expect(r.status).toBe(200);
    expect(r.body.metadata).toEqual({ map: 'forest' });
    expect(r.body.members.map((m: any) => m.id).sort()).toEqual([alice.userId, bob.userId].sort());
    const a = r.body.members.find((m: any) => m.id === alice.userId);
    expect(a.metadata).toEqual({ color: 'red' });
    expect(a.user.global_name).toBe('Alice');
    expect(a.connected).toBe(false);
  });

  it('keeps secrets apart per application', async () => {
    const other = await t.server.createApplication({ name: 'Other' });
    const tok = await t.req('POST', '/partner-sdk/token', { body: { client_id: other.id, external_auth_type: 'DEVICE_ID', external_auth_token: 'other-device-0123456789' } });
    const r = await t.req('PUT', '/lobbies', { token: tok.body.access_token, body: { secret: 'room-1' } });
    expect(r.status).toBe(200);
    expect(r.body.id).not.toBe(lobbyId);
    const cross = await t.req('GET', `/lobbies/${lobbyId}`, { token: tok.body.access_token });
    expect(cross.status).toBe(404);
    expect(cross.body.code).toBe(10031);
  });

  it('sends messages to members and returns history newest first, capped at the limit', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await t.req('POST', `/lobbies/${lobbyId}/messages`, { token: i % 2 ? bob.token : alice.token, body: { content: `msg ${i}`, metadata: { i: String(i) } } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ content: `msg ${i}`, lobby_id: lobbyId, channel_id: lobbyId, application_id: t.app.id, metadata: { i: String(i) } });
    }
    const h = await t.req('GET', `/lobbies/${lobbyId}/messages?limit=3`, { token: bob.token });
    expect(h.status).toBe(200);
    expect(h.body.map((m: any) => m.content)).toEqual(['msg 4', 'msg 3', 'msg 2']);
    const all = await t.req('GET', `/lobbies/${lobbyId}/messages`, { token: alice.token });
    expect(all.body.length).toBe(5);
    for (const bad of ['0', '201', 'abc', '-1']) {
      const r = await t.req('GET', `/lobbies/${lobbyId}/messages?limit=${bad}`, { token: alice.token });
      expect(r.status, bad).toBe(400);
      expect(r.body.code).toBe(50035);
    }
  });

  it('does not serve history older than 72 hours', async () => {
    const old = Date.now() - 73 * 3600_000;
    const { db } = t.server.store.database;
    await db.insertInto('lobby_messages').values({
      id: '1000000000000000001', lobby_id: lobbyId, application_id: t.app.id, author_id: alice.userId, content: 'ancient',
      metadata: null, moderation_metadata: null, additional_name: null, flags: 0, created_at: old,
    }).execute();
    const h = await t.req('GET', `/lobbies/${lobbyId}/messages?limit=200`, { token: alice.token });
    expect(h.body.some((m: any) => m.content === 'ancient')).toBe(false);
    await db.deleteFrom('lobby_messages').where('id', '=', '1000000000000000001').execute();
  });

  it('refuses non-members with 50001 and writes nothing', async () => {
    const before = await messageCount();
    const send = await t.req('POST', `/lobbies/${lobbyId}/messages`, { token: eve.token, body: { content: 'let me in' } });
    expect(send.status).toBe(403);
    expect(send.body).toEqual({ code: 50001, message: 'Missing Access' });
    const read = await t.req('GET', `/lobbies/${lobbyId}/messages`, { token: eve.token });
    expect(read.body.code).toBe(50001);
    const get = await t.req('GET', `/lobbies/${lobbyId}`, { token: eve.token });
    expect(get.body.code).toBe(50001);
    expect(await messageCount()).toBe(before);
  });

  it('answers malformed JSON, wrong types, oversized content and bodies with the documented errors, changing nothing', async () => {
    const before = await messageCount();
    const path = `/lobbies/${lobbyId}/messages`;
    const malformed = await t.req('POST', path, { token: alice.token, raw: '{"content": "hi"' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ code: 50109, message: 'The request body contains invalid JSON.' });

    const wrongType = await t.req('POST', path, { token: alice.token, body: { content: 12, metadata: { a: 1 } } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.code).toBe(50035);
    expect(wrongType.body.message).toBe('Invalid Form Body');
    expect(wrongType.body.errors.content._errors[0].code).toBe('BASE_TYPE_STRING');
    expect(wrongType.body.errors.metadata.a._errors[0].code).toBe('BASE_TYPE_STRING');

    const empty = await t.req('POST', path, { token: alice.token, body: { content: '' } });
    expect(empty.body.errors.content._errors[0].code).toBe('BASE_TYPE_BAD_LENGTH');

    const tooLong = await t.req('POST', path, { token: alice.token, body: { content: 'x'.repeat(2001) } });
    expect(tooLong.body.errors.content._errors[0].message).toBe('Must be between 1 and 2000 in length.');

    const bigMeta = await t.req('POST', path, { token: alice.token, body: { content: 'ok', metadata: { k: 'v'.repeat(1000) } } });
    expect(bigMeta.body.errors.metadata._errors[0].code).toBe('BASE_TYPE_MAX_LENGTH');

    const huge = await t.req('POST', path, { token: alice.token, raw: JSON.stringify({ content: 'x', pad: 'y'.repeat(100_000) }) });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe(40005);

    const notJson = await t.req('POST', path, { token: alice.token, raw: 'content=hi', headers: { 'content-type': 'text/plain' } });
    expect(notJson.status).toBe(400);
    expect(notJson.body.code).toBe(50035);

    const arrayBody = await t.req('POST', path, { token: alice.token, body: ['content'] });
    expect(arrayBody.body.errors._errors[0].code).toBe('MODEL_TYPE_CONVERT');

    expect(await messageCount()).toBe(before);
  });

  it('answers unknown IDs with Unknown Lobby, and unknown routes with 404', async () => {
    for (const id of ['123456789012345678', 'not-a-snowflake', '99999999999999999999999']) {
      const r = await t.req('POST', `/lobbies/${id}/messages`, { token: alice.token, body: { content: 'hi' } });
      expect(r.status, id).toBe(404);
      expect(r.body.code).toBe(10031);
    }
    const r = await t.req('GET', '/nope', { token: alice.token });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 0, message: '404: Not Found' });
  });

  it('validates create-or-join fields', async () => {
    const r = await t.req('PUT', '/lobbies', { token: alice.token, body: { secret: 's'.repeat(251), idle_timeout_seconds: 1, lobby_metadata: 'x' } });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors).sort()).toEqual(['idle_timeout_seconds', 'lobby_metadata', 'secret']);
    expect(r.body.errors.idle_timeout_seconds._errors[0].code).toBe('NUMBER_TYPE_MIN');
    expect(r.body.errors.lobby_metadata._errors[0].code).toBe('DICT_TYPE_CONVERT');
    const unauth = await t.req('PUT', '/lobbies', { body: { secret: 'x' } });
    expect(unauth.status).toBe(401);
  });

  it('lets a member leave, after which they are refused', async () => {
    const carol = await t.guest('Carol');
    await t.req('PUT', '/lobbies', { token: carol.token, body: { secret: 'room-1' } });
    const leave = await t.req('DELETE', `/lobbies/${lobbyId}/members/@me`, { token: carol.token });
    expect(leave.status).toBe(204);
    const after = await t.req('POST', `/lobbies/${lobbyId}/messages`, { token: carol.token, body: { content: 'still here?' } });
    expect(after.body.code).toBe(50001);
    const lobby = await t.req('GET', `/lobbies/${lobbyId}`, { token: alice.token });
    expect(lobby.body.members.some((m: any) => m.id === carol.userId)).toBe(false);
  });
});

describe('server-side member management (Bot token)', () => {
  it('upserts a member with additional_name and flags, and keeps or clears fields', async () => {
    const dave = await t.guest('Dave');
    const put = await t.req('PUT', `/lobbies/${lobbyId}/members/${dave.userId}`, { token: t.app.botToken, bot: true, body: { metadata: { team: 'blue' }, flags: 1, additional_name: 'Sir Dave' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: dave.userId, metadata: { team: 'blue' }, flags: 1, additional_name: 'Sir Dave' });
    const keep = await t.req('PUT', `/lobbies/${lobbyId}/members/${dave.userId}`, { token: t.app.botToken, bot: true, body: { metadata: { team: 'red' } } });
    expect(keep.body).toMatchObject({ metadata: { team: 'red' }, additional_name: 'Sir Dave' });
    const msg = await t.req('POST', `/lobbies/${lobbyId}/messages`, { token: dave.token, body: { content: 'hail' } });
    expect(msg.body.lobby_member).toEqual({ additional_name: 'Sir Dave' });
    const clear = await t.req('PUT', `/lobbies/${lobbyId}/members/${dave.userId}`, { token: t.app.botToken, bot: true, body: { additional_name: null } });
    expect(clear.body.additional_name).toBeUndefined();
    const asUser = await t.req('PUT', `/lobbies/${lobbyId}/members/${dave.userId}`, { token: alice.token, body: {} });
    expect(asUser.status).toBe(403);
  });

  it('bulk-updates 1 to 25 members atomically', async () => {
    const guests = await Promise.all(Array.from({ length: 3 }, (_, i) => t.guest(`G${i}`)));
    const ok = await t.req('POST', `/lobbies/${lobbyId}/members/bulk`, { token: t.app.botToken, bot: true, body: guests.map((g) => ({ id: g.userId, metadata: { bulk: '1' } })) });
    expect(ok.status).toBe(200);
    expect(ok.body.map((m: any) => m.id)).toEqual(guests.map((g) => g.userId));

    const before = (await t.req('GET', `/lobbies/${lobbyId}`, { token: alice.token })).body.members.length;
    const unknown = await t.req('POST', `/lobbies/${lobbyId}/members/bulk`, { token: t.app.botToken, bot: true, body: [{ id: guests[0]!.userId, remove_member: true }, { id: '123456789012345678' }] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe(10013);
    const tooMany = await t.req('POST', `/lobbies/${lobbyId}/members/bulk`, { token: t.app.botToken, bot: true, body: Array.from({ length: 26 }, () => ({ id: alice.userId })) });
    expect(tooMany.body.code).toBe(50035);
    const none = await t.req('POST', `/lobbies/${lobbyId}/members/bulk`, { token: t.app.botToken, bot: true, body: [] });
    expect(none.body.code).toBe(50035);
    expect((await t.req('GET', `/lobbies/${lobbyId}`, { token: alice.token })).body.members.length).toBe(before);

    const removed = await t.req('POST', `/lobbies/${lobbyId}/members/bulk`, { token: t.app.botToken, bot: true, body: guests.map((g) => ({ id: g.userId, remove_member: true })) });
    expect(removed.status).toBe(200);
    expect((await t.req('GET', `/lobbies/${lobbyId}`, { token: alice.token })).body.members.length).toBe(before - 3);
  });
});

describe('rate limits', () => {
  it('reports the public headers and refuses with 429 past the budget, changing nothing', async () => {
    const g = await t.guest('Speedy');
    const first = await t.req('PATCH', '/users/@me', { token: g.token, body: { global_name: 'n0' } });
    expect(first.headers.get('x-ratelimit-limit')).toBe('10');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('9');
    expect(Number(first.headers.get('x-ratelimit-reset-after'))).toBeGreaterThan(0);
    expect(first.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{16}$/);
    for (let i = 1; i < 10; i++) expect((await t.req('PATCH', '/users/@me', { token: g.token, body: { global_name: `n${i}` } })).status).toBe(200);
    const limited = await t.req('PATCH', '/users/@me', { token: g.token, body: { global_name: 'too-fast' } });
    expect(limited.status).toBe(429);
    expect(limited.body.message).toBe('You are being rate limited.');
    expect(limited.body.global).toBe(false);
    expect(limited.body.retry_after).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('x-ratelimit-scope')).toBe('user');
    expect((await t.req('GET', '/users/@me', { token: g.token })).body.global_name).toBe('n9');
    // Budgets are per caller: someone else is unaffected.
    expect((await t.req('PATCH', '/users/@me', { token: alice.token, body: { global_name: 'Alice' } })).status).toBe(200);
  });
});
