import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';

/**
 * Security review M2: one user's votes sent at once (PostgreSQL runs them side by side): a
 * single-answer poll never holds two of their votes, nothing answers 500, and the
 * MESSAGE_POLL_VOTE_ADD/REMOVE events match the votes that were actually stored and removed.
 */
let t: TestServer;
const POLLS = (1 << 0) | (1 << 9) | (1 << 24); // GUILDS, GUILD_MESSAGES, GUILD_MESSAGE_POLLS

afterAll(async () => {
  await dropTestSchemas();
});

describe.each(databaseConfigs())('poll votes at once on $name', ({ config }) => {
  let voter: { token: string; userId: string };
  let channelId: string;
  let gw: RawGateway;

  beforeAll(async () => {
    t = await startTestServer({ rateLimits: false, database: config() });
    const g = await t.guest('Voter');
    voter = { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
    const s = guildServicesFor(t.server.store, undefined as never);
    const guildId = (await s.guilds.createGuild(voter.userId, { name: 'Polls' })).id;
    channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
    gw = await RawGateway.open(t.server);
    gw.send({ op: 2, d: { token: voter.token, intents: POLLS, properties: { os: 'linux', browser: 'test', device: 'test' } } });
    await gw.next((f) => f.t === 'READY');
  });
  afterAll(async () => {
    gw?.terminate();
    await t.close();
    cleanupTempDirs();
  });

  const poll = (multi: boolean) => ({ question: { text: 'Lunch?' }, answers: [{ poll_media: { text: 'Pizza' } }, { poll_media: { text: 'Salad' } }, { poll_media: { text: 'Soup' } }], duration: 2, allow_multiselect: multi });
  const stored = async (messageId: string) => (await t.server.store.database.db.selectFrom('channel_message_poll_votes').select('answer_id').where('message_id', '=', messageId).where('user_id', '=', voter.userId).execute()).map((r) => r.answer_id).sort();

  it('a single-answer poll: votes for different answers at once leave one vote, events agree', async () => {
    const m = (await t.req('POST', `/channels/${channelId}/messages`, { token: voter.token, body: { poll: poll(false) } })).body;
    for (let round = 0; round < 3; round++) {
      const rs = await Promise.all([1, 2, 3, 1, 2, 3].map((a) => t.req('PUT', `/channels/${channelId}/polls/${m.id}/answers/@me`, { token: voter.token, body: { answer_ids: [a] } })));
      expect(rs.map((r) => r.status)).toEqual([204, 204, 204, 204, 204, 204]);
      expect(await stored(m.id)).toHaveLength(1);
    }
    // Adds minus removes per answer, as heard on the Gateway, is what is stored.
    await new Promise((r) => setTimeout(r, 300));
    const net = new Map<number, number>();
    for (const f of gw.frames.filter((f) => (f.t === 'MESSAGE_POLL_VOTE_ADD' || f.t === 'MESSAGE_POLL_VOTE_REMOVE') && f.d.message_id === m.id)) {
      net.set(f.d.answer_id, (net.get(f.d.answer_id) ?? 0) + (f.t === 'MESSAGE_POLL_VOTE_ADD' ? 1 : -1));
    }
    expect([...net.entries()].filter(([, n]) => n !== 0).map(([a]) => a)).toEqual(await stored(m.id));
    expect([...net.values()].every((n) => n === 0 || n === 1)).toBe(true);
  });

  it('a multi-answer poll: the same answers at once are stored once, no 500; withdrawing at once ends empty', async () => {
    const m = (await t.req('POST', `/channels/${channelId}/messages`, { token: voter.token, body: { poll: poll(true) } })).body;
    const rs = await Promise.all([0, 1, 2, 3].map(() => t.req('PUT', `/channels/${channelId}/polls/${m.id}/answers/@me`, { token: voter.token, body: { answer_ids: [1, 2] } })));
    expect(rs.map((r) => r.status)).toEqual([204, 204, 204, 204]);
    expect(await stored(m.id)).toEqual([1, 2]);
    const ws = await Promise.all([0, 1, 2].map(() => t.req('PUT', `/channels/${channelId}/polls/${m.id}/answers/@me`, { token: voter.token, body: { answer_ids: [] } })));
    expect(ws.map((r) => r.status)).toEqual([204, 204, 204]);
    expect(await stored(m.id)).toEqual([]);
  });
});
