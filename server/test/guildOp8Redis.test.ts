import { afterAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Intent } from '../src/guilds/GuildGateway.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * Op 8's all-members limit (1 per guild per bot per 30 s, spec Limits) holds across server nodes:
 * two nodes on one PostgreSQL database and the real Redis. A bot that asked node 1 for the full
 * member list gets RATE_LIMITED from node 2; another guild, or another bot, is not affected.
 */
const REDIS_URL = process.env.SOCIAL_LAYER_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const servers: TestServer[] = [];
const sockets: RawGateway[] = [];

afterAll(async () => {
  for (const s of sockets) s.terminate();
  for (const s of servers) await s.close();
  cleanupTempDirs();
  await dropTestSchemas();
});

async function botSession(node: TestServer, botToken: string): Promise<RawGateway> {
  const gw = await RawGateway.open(node.server);
  sockets.push(gw);
  gw.send({ op: 2, d: { token: botToken, intents: Intent.Guilds | Intent.GuildMembers, properties: { os: 'linux', browser: 'test', device: 'test' } } });
  await gw.next((f) => f.t === 'READY');
  return gw;
}

describe('op 8 all-members limit across two nodes (PostgreSQL + Redis)', () => {
  it('refuses a second all-members request within 30 s on the other node, per guild and per bot', async () => {
    const database = databaseConfigs().find((c) => c.name === 'postgres')!.config();
    // rateLimits off on both: the op 8 counter is protocol, not the HTTP budgets, and uses Redis on its own.
    const node1 = await startTestServer({ database, redisUrl: REDIS_URL, rateLimits: false });
    servers.push(node1);
    const node2 = await startTestServer({ database, redisUrl: REDIS_URL, rateLimits: false });
    servers.push(node2);
    const db = node1.server.store.database.db;
    // GATEWAY_GUILD_MEMBERS_LIMITED for both applications (each node's harness made one).
    for (const app of [node1.app, node2.app]) {
      await db.updateTable('applications').set({ flags: 1 << 15 }).where('id', '=', app.id).execute();
      await db.updateTable('applications').set({ flags_new: String(1 << 15) } as never).where('id', '=', app.id).execute().catch(() => {});
    }
    const owner = await node1.guest('Owner');
    const ownerToken = await node1.server.store.tokens.issue(owner.userId, (await node1.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600);
    const mkGuild = async () => (await node1.req('POST', '/guilds', { token: ownerToken, body: { name: 'Op8' } })).body as { id: string };
    const g1 = await mkGuild();
    const g2 = await mkGuild();
    const services = guildServicesFor(node1.server.store, undefined as never);
    for (const g of [g1, g2]) {
      await services.installBot(g.id, node1.app.id, Permission.ViewChannel);
      await services.installBot(g.id, node2.app.id, Permission.ViewChannel);
    }

    const onNode1 = await botSession(node1, node1.app.botToken);
    const onNode2 = await botSession(node2, node1.app.botToken);
    onNode1.send({ op: 8, d: { guild_id: g1.id, query: '', limit: 0, nonce: 'first' } });
    const chunk = (await onNode1.next((f) => f.t === 'GUILD_MEMBERS_CHUNK' && f.d.nonce === 'first')).d;
    expect(chunk.members.length).toBe(3);

    // The same bot through node 2, same guild: limited by node 1's request.
    onNode2.send({ op: 8, d: { guild_id: g1.id, query: '', limit: 0, nonce: 'second' } });
    const limited = (await onNode2.next((f) => f.t === 'RATE_LIMITED')).d;
    expect(limited).toMatchObject({ opcode: 8, meta: { guild_id: g1.id, nonce: 'second' } });
    expect(limited.retry_after).toBeGreaterThan(0);
    expect(limited.retry_after).toBeLessThanOrEqual(30);
    expect(onNode2.dispatches('GUILD_MEMBERS_CHUNK')).toEqual([]);
    // And node 1 again: still limited (the refused request did not reopen the window).
    onNode1.send({ op: 8, d: { guild_id: g1.id, query: '', limit: 0, nonce: 'third' } });
    expect((await onNode1.next((f) => f.t === 'RATE_LIMITED' && f.d.meta.nonce === 'third')).d.opcode).toBe(8);

    // Another guild: its own budget, answered through node 2.
    onNode2.send({ op: 8, d: { guild_id: g2.id, query: '', limit: 0, nonce: 'other-guild' } });
    expect((await onNode2.next((f) => f.t === 'GUILD_MEMBERS_CHUNK' && f.d.nonce === 'other-guild')).d.guild_id).toBe(g2.id);
    // Another bot in the first guild: its own budget.
    const otherBot = await botSession(node2, node2.app.botToken);
    otherBot.send({ op: 8, d: { guild_id: g1.id, query: '', limit: 0, nonce: 'other-bot' } });
    expect((await otherBot.next((f) => f.t === 'GUILD_MEMBERS_CHUNK' && f.d.nonce === 'other-bot')).d.members.length).toBe(3);
    // Queries are not all-members requests: answered on either node.
    onNode2.send({ op: 8, d: { guild_id: g1.id, query: 'o', limit: 5, nonce: 'query' } });
    await onNode2.next((f) => f.t === 'GUILD_MEMBERS_CHUNK' && f.d.nonce === 'query');
  });
});
