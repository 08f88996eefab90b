import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, RawGateway, startTestServer, type TestServer } from './harness.ts';

const REDIS_URL = process.env.SOCIAL_LAYER_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const GUILDS = 1 << 0;
const GUILD_VOICE_STATES = 1 << 7;

afterAll(async () => {
  cleanupTempDirs();
  await dropTestSchemas();
});

/**
 * Guild voice across nodes (issue 18): the node that holds a member's Gateway session watches the
 * guild's changes for each of its voice seats (a kick, a ban, a lost permission ends the seat or
 * suppresses it). The watch was taken only where the member joined: a move handled by another
 * node (the old channel's removal, then the new one's state) dropped it for good, so a kicked
 * member kept talking.
 */
describe('guild voice across nodes on PostgreSQL + Redis', () => {
  const nodes: TestServer[] = [];
  const sockets: RawGateway[] = [];
  afterAll(async () => {
    for (const s of sockets) s.terminate();
    for (const n of nodes) await n.close();
  });

  it('a member moved by a request another node handled still loses the seat when kicked', async () => {
    const database = databaseConfigs().find((c) => c.name === 'postgres')!.config();
    const options = { database, redisUrl: REDIS_URL, redisPrefix: `sltest:${randomBytes(6).toString('hex')}:`, rateLimits: false as const };
    for (let i = 0; i < 2; i++) nodes.push(await startTestServer(options));
    const [a, b] = nodes as [TestServer, TestServer];
    const services = guildServicesFor(a.server.store, undefined as never);
    const user = async (name: string) => {
      const g = await a.guest(name);
      return { token: await a.server.store.tokens.issue(g.userId, (await a.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
    };
    const owner = await user('Owner');
    const member = await user('Member');
    const guildId = (await services.guilds.createGuild(owner.userId, { name: 'Voice Across Nodes' })).id;
    const first = (await a.server.store.guilds.channels(guildId)).find((c) => c.type === 2)!.id;
    const created = await a.req('POST', `/guilds/${guildId}/channels`, { token: owner.token, body: { name: 'Second', type: 2 } });
    expect(created.status).toBe(201);
    const second = created.body.id as string;
    await services.members.join(guildId, member.userId);

    // The owner watches from node A; the member's session lives on node B; the move and the kick go through node A.
    const watcher = await RawGateway.open(a.server);
    sockets.push(watcher);
    await watcher.identify(owner.token, GUILDS | GUILD_VOICE_STATES);
    const gw = await RawGateway.open(b.server);
    sockets.push(gw);
    await gw.identify(member.token, GUILDS | GUILD_VOICE_STATES);
    gw.send({ op: 4, d: { guild_id: guildId, channel_id: first, self_mute: false, self_deaf: false } });
    await gw.next((f) => f.t === 'VOICE_SERVER_UPDATE', 15_000);
    const channelOn = (node: TestServer) => node.server.voice.states.guildVoiceState(guildId, member.userId)?.channel_id ?? null;
    await expect.poll(() => channelOn(a), { timeout: 10_000 }).toBe(first);

    expect((await a.req('PATCH', `/guilds/${guildId}/members/${member.userId}`, { token: owner.token, body: { channel_id: second } })).status).toBe(200);
    await gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === member.userId && f.d.channel_id === second, 15_000);
    await expect.poll(() => channelOn(b), { timeout: 10_000 }).toBe(second);

    expect((await a.req('DELETE', `/guilds/${guildId}/members/${member.userId}`, { token: owner.token })).status).toBe(204);
    // The seat ends on every node, and those who can see the channel are told.
    await expect.poll(() => [channelOn(a), channelOn(b)], { timeout: 10_000 }).toEqual([null, null]);
    await watcher.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === member.userId && f.d.channel_id === null, 15_000);
    expect(b.server.voice.states.guildVoiceStates(guildId)).toEqual([]);
  }, 120_000);
});
