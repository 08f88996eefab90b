import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, RawGateway, startTestServer, type TestServer } from './harness.ts';

const REDIS_URL = process.env.SOCIAL_LAYER_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const servers: TestServer[] = [];

afterAll(async () => {
  for (const s of servers) await s.close();
  cleanupTempDirs();
  await dropTestSchemas();
});

/**
 * Two server nodes on one PostgreSQL database and one Redis: a user on node 1 hears what happens
 * through node 2 (DESIGN.md, Storage and scale). The real services, no stand-ins.
 */
describe('scale-out: two nodes, PostgreSQL + Redis', () => {
  it('delivers lobby dispatches to a session on the other node', async () => {
    // One schema (tracked, dropped afterwards) shared by both nodes.
    const database = databaseConfigs().find((c) => c.name === 'postgres')!.config();
    const schema = (database as { schema: string }).schema;
    const node1 = await startTestServer({ database, redisUrl: REDIS_URL });
    servers.push(node1);
    const node2 = await startTestServer({ database, redisUrl: REDIS_URL });
    servers.push(node2);
    // Both nodes see the same applications: use node 1's app on node 2.
    const guestOn = async (node: TestServer, name: string) => {
      const r = await node.req('POST', '/partner-sdk/token', { body: { client_id: node1.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: randomBytes(16).toString('hex'), preferred_global_name: name } });
      const me = await node.req('GET', '/users/@me', { token: r.body.access_token });
      return { token: r.body.access_token as string, userId: me.body.id as string };
    };
    const alice = await guestOn(node1, 'Alice');
    const bob = await guestOn(node2, 'Bob');
    const lobby = (await node1.req('PUT', '/lobbies', { token: alice.token, body: { secret: `x-${schema}` } })).body;

    const g1 = await RawGateway.open(node1.server);
    await g1.identify(alice.token);
    const heart = setInterval(() => g1.send({ op: 1, d: null }), 1000);
    try {
      // Bob joins and speaks through node 2; Alice's session lives on node 1.
      await node2.req('PUT', '/lobbies', { token: bob.token, body: { secret: `x-${schema}` } });
      const add = await g1.next((f) => f.t === 'LOBBY_MEMBER_ADD');
      expect(add.d.member.id).toBe(bob.userId);
      const sent = await node2.req('POST', `/lobbies/${lobby.id}/messages`, { token: bob.token, body: { content: 'hello across nodes' } });
      expect(sent.status).toBe(200);
      const msg = await g1.next((f) => f.t === 'LOBBY_MESSAGE_CREATE');
      expect(msg.d).toMatchObject({ id: sent.body.id, content: 'hello across nodes', author: { id: bob.userId } });
      // Exactly once: the node's own echo from Redis is not delivered again.
      await node1.req('POST', `/lobbies/${lobby.id}/messages`, { token: alice.token, body: { content: 'local one' } });
      await g1.next((f) => f.t === 'LOBBY_MESSAGE_CREATE' && f.d.content === 'local one');
      await new Promise((r) => setTimeout(r, 200));
      expect(g1.dispatches('LOBBY_MESSAGE_CREATE').map((f) => f.d.content)).toEqual(['hello across nodes', 'local one']);
    } finally {
      clearInterval(heart);
      g1.ws.close(1000);
    }
  });

  it('shares one rate-limit budget per caller across the nodes', async () => {
    const [node1, node2] = servers;
    const r = await node1!.req('POST', '/partner-sdk/token', { body: { client_id: node1!.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: randomBytes(16).toString('hex') } });
    const token = r.body.access_token as string;
    // users.me.write allows 10 per window: five through each node use it up.
    for (let i = 0; i < 5; i++) {
      expect((await node1!.req('PATCH', '/users/@me', { token, body: { global_name: `a${i}` } })).status).toBe(200);
      expect((await node2!.req('PATCH', '/users/@me', { token, body: { global_name: `b${i}` } })).status).toBe(200);
    }
    const limited = await node1!.req('PATCH', '/users/@me', { token, body: { global_name: 'too-many' } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await node2!.req('PATCH', '/users/@me', { token, body: { global_name: 'also-too-many' } })).status).toBe(429);
  });
});
