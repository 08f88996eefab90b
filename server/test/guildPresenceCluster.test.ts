import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseConfig } from '../src/index.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, RawGateway, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Intent } from '../src/guilds/GuildGateway.ts';
import { Permission } from '../src/guilds/permissions.ts';

const REDIS_URL = process.env.SOCIAL_LAYER_TEST_REDIS ?? 'redis://127.0.0.1:6379';

/**
 * Guild presences across two nodes on PostgreSQL + Redis, as friends' presence works: a bot's op 3
 * on one node reaches a GUILD_PRESENCES holder on the other, so does a user coming online there,
 * and a GUILD_CREATE built on the other node shows the bot's activity (bots' presences are shared
 * over the bus; who is connected, bots included, comes from the cluster's trackers).
 */
const prefix = `sltest:${randomBytes(6).toString('hex')}:`;
const cluster = { redisPrefix: prefix, clusterHeartbeatMs: 250, clusterTtlMs: 2500, presenceGraceMs: 300 };
const GATEWAY_PRESENCE_LIMITED = 1 << 13;
const props = { os: 'linux', browser: 'test', device: 'test' };
let database: DatabaseConfig;
const nodes: TestServer[] = [];
const open: RawGateway[] = [];

beforeAll(async () => {
  database = databaseConfigs().find((c) => c.name === 'postgres')!.config();
  for (let i = 0; i < 2; i++) nodes.push(await startTestServer({ database, redisUrl: REDIS_URL, ...cluster }));
}, 180_000);

afterAll(async () => {
  for (const g of open) g.terminate();
  for (const n of nodes) await n.close();
  // The bots' tracker cleans up after itself as the users' does.
  const redis = new Redis(REDIS_URL);
  const left = await redis.keys(`${prefix}botconn:*`);
  await redis.quit();
  cleanupTempDirs();
  await dropTestSchemas();
  expect(left).toEqual([]);
}, 120_000);

async function connect(node: TestServer, token: string, intents: number): Promise<RawGateway> {
  const gw = new RawGateway(`${node.server.url.replace('http', 'ws')}/gateway?v=10&encoding=json`);
  open.push(gw);
  await gw.next((f) => f.op === 10, 30_000);
  gw.send({ op: 2, d: { token, intents, properties: props } });
  await gw.next((f) => f.t === 'READY', 30_000);
  return gw;
}

describe('guild presences across nodes', () => {
  it('a bot\'s op 3 and a user\'s coming online on node A reach a GUILD_PRESENCES session on node B', async () => {
    const [a, b] = nodes as [TestServer, TestServer];
    const owner = await a.guest('Owner');
    const services = guildServicesFor(a.server.store, undefined as never);
    const guildId = (await services.guilds.createGuild(owner.userId, { name: 'Cluster Guild' })).id;
    const player = a.app;
    const watcher = await a.server.createApplication({ name: 'Watcher' });
    for (const app of [player, watcher]) await services.installBot(guildId, app.id, Permission.ViewChannel);
    expect((await a.req('PATCH', '/applications/@me', { token: watcher.botToken, bot: true, body: { flags: GATEWAY_PRESENCE_LIMITED } })).status).toBe(200);
    const playerId = (await a.server.store.applications.get(player.id))!.bot_user_id;

    const watch = await connect(b, watcher.botToken, Intent.Guilds | Intent.GuildPresences);
    await watch.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guildId, 30_000);
    const seen = (userId: string, status: string) => watch.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === userId && f.d.status === status && f.d.guild_id === guildId, 30_000);

    const play = await connect(a, player.botToken, Intent.Guilds);
    play.send({ op: 3, d: { since: null, afk: false, status: 'idle', activities: [{ name: 'Go', type: 0 }] } });
    expect((await seen(playerId, 'idle')).d.activities).toEqual([{ name: 'Go', type: 0, created_at: expect.any(Number) }]);

    await connect(a, owner.token, 0);
    await seen(owner.userId, 'online');

    // A GUILD_CREATE built on node B shows the bot's presence set through node A.
    const late = await connect(b, watcher.botToken, Intent.Guilds | Intent.GuildPresences);
    const created = (await late.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guildId, 30_000)).d;
    expect(created.presences.find((p: any) => p.user.id === playerId)).toMatchObject({ status: 'idle', activities: [{ name: 'Go', type: 0 }] });
    expect(created.presences.find((p: any) => p.user.id === owner.userId)?.status).toBe('online');

    // The bot's last session ends on node A: offline on node B.
    play.ws.close(1000);
    await seen(playerId, 'offline');
  }, 180_000);
});
