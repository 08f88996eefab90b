import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';

/**
 * Security review M3: group DM recipients under concurrent requests (PostgreSQL runs them side by
 * side; SQLite one at a time): 12 adds at once leave at most 10 users and no 500; the same user
 * added twice at once is in once; everyone leaving at once ends the group with no 500, and the
 * owner's handoff lands on someone still in it.
 */
let t: TestServer;

afterAll(async () => {
  await dropTestSchemas();
});

describe.each(databaseConfigs())('group DM recipients at once on $name', ({ config }) => {
  let web: string;
  let owner: { token: string; userId: string };
  let friends: { token: string; userId: string }[];

  beforeAll(async () => {
    t = await startTestServer({ rateLimits: false, database: config() });
    web = (await t.server.store.applications.firstParty()).id;
    const user = async (name: string) => {
      const g = await t.guest(name);
      return { token: await t.server.store.tokens.issue(g.userId, web, ['identify', 'guilds'], 3600), userId: g.userId };
    };
    owner = await user('Owner');
    friends = [];
    for (let i = 0; i < 14; i++) friends.push(await user(`Friend${i}`));
    const db = t.server.store.database.db;
    for (const f of friends) {
      for (const [x, y] of [[owner.userId, f.userId], [f.userId, owner.userId]]) await t.server.store.relationships.set(db, { user_id: x!, other_id: y!, application_id: '0', type: 1, is_spam: 0, since: Date.now() });
    }
  });
  afterAll(async () => {
    await t.close();
    cleanupTempDirs();
  });

  const members = async (id: string) => (await t.server.store.database.db.selectFrom('group_dm_recipients').select('user_id').where('channel_id', '=', id).execute()).map((r) => r.user_id);

  it('12 adds at once: at most 10 users, the rest 30010, no 500', async () => {
    const g = (await t.req('POST', '/users/@me/channels', { token: owner.token, body: { recipients: [friends[0]!.userId] } })).body;
    const adds = await Promise.all(friends.slice(1, 13).map((f) => t.req('PUT', `/channels/${g.id}/recipients/${f.userId}`, { token: owner.token })));
    for (const r of adds) expect([204, 400]).toContain(r.status);
    expect(adds.filter((r) => r.status === 400).every((r) => r.body.code === 30010)).toBe(true);
    const ids = await members(g.id);
    expect(ids.length).toBe(10);
    expect(adds.filter((r) => r.status === 204).length).toBe(8);
  });

  it('the same user added twice at once is in once; all leaving at once ends the group', async () => {
    const g = (await t.req('POST', '/users/@me/channels', { token: owner.token, body: { recipients: [friends[0]!.userId, friends[1]!.userId] } })).body;
    const twice = await Promise.all([0, 1, 2].map(() => t.req('PUT', `/channels/${g.id}/recipients/${friends[2]!.userId}`, { token: owner.token })));
    expect(twice.map((r) => r.status)).toEqual([204, 204, 204]);
    expect((await members(g.id)).filter((u) => u === friends[2]!.userId)).toHaveLength(1);
    // The owner and one other leave at once: the owner role goes to someone still in.
    const two = await Promise.all([owner, friends[0]!].map((w) => t.req('DELETE', `/channels/${g.id}`, { token: w.token })));
    expect(two.map((r) => r.status)).toEqual([200, 200]);
    const row = await t.server.store.database.db.selectFrom('group_dm_channels').select('owner_id').where('id', '=', g.id).executeTakeFirstOrThrow();
    expect(await members(g.id)).toContain(row.owner_id);
    const rest = await Promise.all([friends[1]!, friends[2]!].map((w) => t.req('DELETE', `/channels/${g.id}/recipients/@me`, { token: w.token })));
    expect(rest.map((r) => r.status)).toEqual([204, 204]);
    expect(await members(g.id)).toEqual([]);
    expect(await t.server.store.database.db.selectFrom('group_dm_channels').select('id').where('id', '=', g.id).executeTakeFirst()).toBeUndefined();
  });
});
