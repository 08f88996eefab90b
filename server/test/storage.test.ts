import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/storage/database.ts';
import { Store } from '../src/storage/Store.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer } from './harness.ts';

afterAll(async () => {
  cleanupTempDirs();
  await dropTestSchemas();
});

/** One contract suite for every storage backend (DESIGN.md convention 5). */
describe.each(databaseConfigs())('storage on $name', ({ config }) => {
  let store: Store;
  let appId: string;

  beforeEach(async () => {
    store = new Store(await openDatabase(config()));
    appId = (await store.applications.create('Contract')).id;
  });
  afterEach(async () => {
    await store.close();
  });

  it('stores applications with hashed secrets only', async () => {
    const created = await store.applications.create('Hashed');
    const row = await store.applications.get(created.id);
    expect(row).toBeDefined();
    expect(JSON.stringify(row)).not.toContain(created.botToken);
    expect(JSON.stringify(row)).not.toContain(created.clientSecret);
    expect((await store.applications.findByBotToken(created.botToken))?.id).toBe(created.id);
    expect(await store.applications.findByBotToken(created.clientSecret)).toBeUndefined();
    const bot = await store.users.get(created.botUserId);
    expect(bot?.is_bot).toBe(1);
  });

  it('creates one provisional user per external identity, even under concurrency', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'same-device', 'Pat')));
    const ids = new Set(results.map((r) => r.user.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.created).length).toBe(1);
    const other = await store.users.findOrCreateProvisional(appId, 'BOT', 'same-device', undefined);
    expect(other.user.id).not.toBe(results[0]!.user.id);
  });

  it('resolves tokens until they expire, and never stores them in the clear', async () => {
    const { user } = await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'tok-device', undefined);
    const token = await store.tokens.issue(user.id, appId, ['sdk.social_layer'], 60);
    const grant = await store.tokens.resolve(token);
    expect(grant).toMatchObject({ userId: user.id, applicationId: appId, scopes: ['sdk.social_layer'] });
    expect(await store.tokens.resolve(token, Date.now() + 61_000)).toBeUndefined();
    // A different token: its first character changed (never to itself, which 'x' would be 1 time in 64).
    expect(await store.tokens.resolve((token[0] === 'x' ? 'y' : 'x') + token.slice(1))).toBeUndefined();
    const rows = await store.database.db.selectFrom('access_tokens').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('keeps lobby secrets unique per application and rolls back a failed transaction whole', async () => {
    const { user } = await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'lobby-device', undefined);
    const lobby = await store.lobbies.transaction((tx) => store.lobbies.create(tx, { applicationId: appId, secret: 's1', metadata: { a: 'b' }, idleTimeoutSeconds: 300 }));
    await expect(store.lobbies.transaction((tx) => store.lobbies.create(tx, { applicationId: appId, secret: 's1', metadata: null, idleTimeoutSeconds: 300 }))).rejects.toThrow();
    await expect(
      store.lobbies.transaction(async (tx) => {
        await store.lobbies.upsertMember(tx, lobby.id, user.id, { metadata: { x: '1' } });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await store.lobbies.members(lobby.id)).toEqual([]);
    expect((await store.lobbies.findBySecret(appId, 's1'))?.id).toBe(lobby.id);
  });

  it('upserts members (keep, overwrite, clear) and lists a user\'s lobbies', async () => {
    const { user } = await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'member-device', undefined);
    const lobby = await store.lobbies.transaction((tx) => store.lobbies.create(tx, { applicationId: appId, secret: 's2', metadata: null, idleTimeoutSeconds: 300 }));
    const first = await store.lobbies.transaction((tx) => store.lobbies.upsertMember(tx, lobby.id, user.id, { metadata: { x: '1' }, additionalName: 'Knight' }));
    expect(first.added).toBe(true);
    const second = await store.lobbies.transaction((tx) => store.lobbies.upsertMember(tx, lobby.id, user.id, { flags: 1 }));
    expect(second.added).toBe(false);
    expect(second.row).toMatchObject({ metadata: '{"x":"1"}', flags: 1, additional_name: 'Knight' });
    const cleared = await store.lobbies.transaction((tx) => store.lobbies.upsertMember(tx, lobby.id, user.id, { additionalName: null, metadata: null }));
    expect(cleared.row).toMatchObject({ metadata: null, additional_name: null, flags: 1 });
    expect((await store.lobbies.forUser(user.id, appId)).map((l) => l.id)).toEqual([lobby.id]);
    expect(await store.lobbies.countForUser(user.id, appId)).toBe(1);
    expect(await store.lobbies.transaction((tx) => store.lobbies.removeMember(tx, lobby.id, user.id))).toBe(true);
    expect(await store.lobbies.transaction((tx) => store.lobbies.removeMember(tx, lobby.id, user.id))).toBe(false);
  });

  it('returns history newest first within the age limit, and deletes a lobby with its rows', async () => {
    const { user } = await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'history-device', undefined);
    const lobby = await store.lobbies.transaction((tx) => store.lobbies.create(tx, { applicationId: appId, secret: 's3', metadata: null, idleTimeoutSeconds: 300 }));
    await store.lobbies.transaction((tx) => store.lobbies.upsertMember(tx, lobby.id, user.id, {}));
    for (let i = 0; i < 4; i++) {
      await store.messages.insertLobbyMessage(store.database.db, { lobbyId: lobby.id, applicationId: appId, authorId: user.id, content: `m${i}`, metadata: i === 0 ? { k: 'v' } : null, additionalName: null, flags: 0 });
    }
    const history = await store.messages.lobbyHistory(lobby.id, 3, 0);
    expect(history.map((m) => m.content)).toEqual(['m3', 'm2', 'm1']);
    expect(await store.messages.lobbyHistory(lobby.id, 10, Date.now() + 1000)).toEqual([]);
    expect(Number((await store.messages.lobbyHistory(lobby.id, 10, 0))[3]!.created_at)).toBeGreaterThan(0);
    await store.lobbies.delete(lobby.id);
    expect(await store.lobbies.get(lobby.id)).toBeUndefined();
    expect(await store.messages.countLobbyMessages(lobby.id)).toBe(0);
  });

  it('finds lobbies whose idle timeout ran out', async () => {
    const lobby = await store.lobbies.transaction((tx) => store.lobbies.create(tx, { applicationId: appId, secret: 's4', metadata: null, idleTimeoutSeconds: 5 }));
    await store.lobbies.setIdleSince(lobby.id, Date.now() - 4000);
    expect((await store.lobbies.idleExpired(Date.now())).map((l) => l.id)).not.toContain(lobby.id);
    await store.lobbies.setIdleSince(lobby.id, Date.now() - 6000);
    expect((await store.lobbies.idleExpired(Date.now())).map((l) => l.id)).toContain(lobby.id);
    await store.lobbies.setIdleSince(lobby.id, null);
    expect((await store.lobbies.idleExpired(Date.now())).map((l) => l.id)).not.toContain(lobby.id);
  });
});

describe.each(databaseConfigs())('the server on $name', ({ config }) => {
  it('runs the lobby flow end to end', async () => {
    const t = await startTestServer({ database: config() });
    try {
      const a = await t.guest('A');
      const b = await t.guest('B');
      const lobby = (await t.req('PUT', '/lobbies', { token: a.token, body: { secret: 'e2e', lobby_metadata: { m: '1' } } })).body;
      expect((await t.req('PUT', '/lobbies', { token: b.token, body: { secret: 'e2e' } })).body.id).toBe(lobby.id);
      await t.req('POST', `/lobbies/${lobby.id}/messages`, { token: b.token, body: { content: 'hi from b' } });
      const h = await t.req('GET', `/lobbies/${lobby.id}/messages`, { token: a.token });
      expect(h.body.map((m: any) => m.content)).toEqual(['hi from b']);
      expect(h.body[0].author.id).toBe(b.userId);
    } finally {
      await t.close();
    }
  });
});
