import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KyselyPlugin } from 'kysely';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { privateChannelsFor } from '../src/messages/privateChannels.ts';

/**
 * Security review P2: every message operation first asks whether the channel is a DM or group
 * DM; that is one query (not one per table), and whether a DM takes new messages (block,
 * friendship, shared guild) is worked out only when sending, never for reads.
 */
let t: TestServer;

afterAll(async () => {
  await dropTestSchemas();
});

describe.each(databaseConfigs())('DM lookups cost on $name', ({ config }) => {
  let ada: { token: string; userId: string };
  let bo: { token: string; userId: string };
  let guildChannelId: string;
  let dmId: string;

  beforeAll(async () => {
    t = await startTestServer({ rateLimits: false, database: config() });
    const web = (await t.server.store.applications.firstParty()).id;
    const user = async (name: string) => {
      const g = await t.guest(name);
      return { token: await t.server.store.tokens.issue(g.userId, web, ['identify', 'guilds'], 3600), userId: g.userId };
    };
    ada = await user('Ada');
    bo = await user('Bo');
    const s = guildServicesFor(t.server.store, undefined as never);
    const guild = await s.guilds.createGuild(ada.userId, { name: 'Shared' });
    await s.members.join(guild.id, bo.userId);
    guildChannelId = (await t.server.store.guilds.channels(guild.id)).find((c) => c.type === 0)!.id;
    dmId = (await t.req('POST', '/users/@me/channels', { token: ada.token, body: { recipient_id: bo.userId } })).body.id;
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await t.close();
    cleanupTempDirs();
  });

  it('telling a guild channel from a private one is one query', async () => {
    const repo = privateChannelsFor(t.server.store, undefined as never).repo;
    let n = 0;
    const counter: KyselyPlugin = { transformQuery: (a) => (n++, a.node), transformResult: async (a) => a.result };
    const r = repo as unknown as { db: typeof t.server.store.database.db };
    const db = r.db;
    r.db = db.withPlugin(counter);
    try {
      expect(await repo.get(guildChannelId)).toBeUndefined();
      expect(n).toBe(1);
      n = 0;
      expect((await repo.get(dmId))?.userIds.sort()).toEqual([ada.userId, bo.userId].sort());
      expect(n).toBe(1);
    } finally {
      r.db = db;
    }
  });

  it('maySendDm runs for sending and typing only, with the shared guild found by one join', async () => {
    const spy = vi.spyOn(privateChannelsFor(t.server.store, undefined as never), 'maySendDm');
    const sent = await t.req('POST', `/channels/${dmId}/messages`, { token: ada.token, body: { content: 'hi' } });
    expect(sent.status).toBe(200);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockClear();
    expect((await t.req('GET', `/channels/${dmId}/messages`, { token: bo.token })).status).toBe(200);
    expect((await t.req('GET', `/channels/${dmId}/messages/${sent.body.id}`, { token: bo.token })).status).toBe(200);
    expect((await t.req('PUT', `/channels/${dmId}/messages/${sent.body.id}/reactions/%F0%9F%91%8D/@me`, { token: bo.token })).status).toBe(204);
    expect(spy).not.toHaveBeenCalled();
    // Sharing the guild is what lets them write (no friendship): the join finds it.
    expect(await privateChannelsFor(t.server.store, undefined as never).maySendDm(bo.userId, ada.userId)).toBe(true);
  });
});
