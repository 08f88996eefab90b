// Issue 9, security fix 8: the Gateway's session start limit (reported by GET /gateway/bot and
// enforced on Identify, per application and per user), the per-address cap on Gateway sockets,
// and the frame limits the README states. Before the fix /gateway/bot reported a constant and
// nothing counted Identifies or sockets.
import { WebSocket } from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, RawGateway, startTestServer, type TestServer } from './harness.ts';

const REDIS_URL = process.env.SOCIAL_LAYER_TEST_REDIS ?? 'redis://127.0.0.1:6379';

const servers: TestServer[] = [];
async function server(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const t = await startTestServer(options);
  servers.push(t);
  return t;
}

afterAll(async () => {
  for (const t of servers) await t.close();
  await dropTestSchemas();
  cleanupTempDirs();
});

async function identifyOutcome(t: TestServer, token: string): Promise<{ ready: boolean; op9?: unknown; close: number | null; g: RawGateway }> {
  const g = await RawGateway.open(t.server);
  g.send({ op: 2, d: { token, properties: { os: 'linux', browser: 'test', device: 'test' } } });
  const frame = await g.next((f) => f.t === 'READY' || f.op === 9).catch(() => undefined);
  if (frame?.op === 9) await g.closed();
  return { ready: frame?.t === 'READY', op9: frame?.op === 9 ? frame.d : undefined, close: g.closeCode, g };
}

/** Opens a Gateway socket from `localAddress`; resolves 'open' or the HTTP status of a refused upgrade. */
function openFrom(t: TestServer, localAddress: string): Promise<{ result: 'open' | number; ws: WebSocket }> {
  const ws = new WebSocket(`${t.server.url.replace('http', 'ws')}/gateway?v=10&encoding=json`, { localAddress });
  return new Promise((resolve) => {
    ws.once('open', () => resolve({ result: 'open', ws }));
    ws.once('unexpected-response', (_req, res) => resolve({ result: res.statusCode ?? 0, ws }));
    ws.once('error', () => resolve({ result: 0, ws }));
  });
}

describe('fix 8: session start limit', () => {
  it('GET /gateway/bot reports the budget, and an Identify spends from it (a Resume does not)', async () => {
    const t = await server();
    const before = (await t.req('GET', '/gateway/bot', { token: t.app.botToken, bot: true })).body.session_start_limit;
    expect(before).toEqual({ total: 1000, remaining: 1000, reset_after: 86_400_000, max_concurrency: 16 });
    const { ready, g } = await identifyOutcome(t, t.app.botToken);
    expect(ready).toBe(true);
    const after = (await t.req('GET', '/gateway/bot', { token: t.app.botToken, bot: true })).body.session_start_limit;
    expect(after.remaining).toBe(999);
    expect(after.reset_after).toBeGreaterThan(86_000_000);
    expect(after.reset_after).toBeLessThanOrEqual(86_400_000);
    // A Resume is not a session start.
    const sessionId = (g.frames.find((f) => f.t === 'READY') as { d: { session_id: string } }).d.session_id;
    g.ws.close(4200);
    await g.closed();
    const r = await RawGateway.open(t.server);
    r.send({ op: 6, d: { token: t.app.botToken, session_id: sessionId, seq: 1 } });
    await r.next((f) => f.t === 'RESUMED');
    expect((await t.req('GET', '/gateway/bot', { token: t.app.botToken, bot: true })).body.session_start_limit.remaining).toBe(999);
    r.ws.close(1000);
  });

  it('over the daily total an Identify gets op 9 and close 4008, per application and per user', async () => {
    const t = await server({ sessionStartLimit: { total: 2 } });
    for (let i = 0; i < 2; i++) expect((await identifyOutcome(t, t.app.botToken)).ready).toBe(true);
    const over = await identifyOutcome(t, t.app.botToken);
    expect([over.ready, over.op9, over.close]).toEqual([false, false, 4008]);
    expect((await t.req('GET', '/gateway/bot', { token: t.app.botToken, bot: true })).body.session_start_limit.remaining).toBe(0);

    // Users have their own budget, one per user: another user is unaffected.
    const alice = await t.guest('alice');
    const bob = await t.guest('bob');
    for (let i = 0; i < 2; i++) expect((await identifyOutcome(t, alice.token)).ready).toBe(true);
    expect((await identifyOutcome(t, alice.token)).close).toBe(4008);
    expect((await identifyOutcome(t, bob.token)).ready).toBe(true);
  });

  it('more than max_concurrency bot Identifies in 5 s: the excess gets op 9 and 4008', async () => {
    const t = await server({ sessionStartLimit: { maxConcurrency: 2 } });
    expect((await t.req('GET', '/gateway/bot', { token: t.app.botToken, bot: true })).body.session_start_limit.max_concurrency).toBe(2);
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await identifyOutcome(t, t.app.botToken));
    expect(outcomes.map((o) => o.ready)).toEqual([true, true, false]);
    expect(outcomes[2]!.close).toBe(4008);
  });
});

describe('fix 8: scale-out', () => {
  it('two nodes on one Redis draw on one session start budget: an Identify on one shows on the other', async () => {
    const database = databaseConfigs().find((c) => c.name === 'postgres')!.config();
    const node1 = await server({ database, redisUrl: REDIS_URL, sessionStartLimit: { total: 2 } });
    const node2 = await server({ database, redisUrl: REDIS_URL, sessionStartLimit: { total: 2 } });
    const bot = node1.app.botToken;
    expect((await identifyOutcome(node1, bot)).ready).toBe(true);
    expect((await node2.req('GET', '/gateway/bot', { token: bot, bot: true })).body.session_start_limit.remaining).toBe(1);
    expect((await identifyOutcome(node2, bot)).ready).toBe(true);
    expect((await identifyOutcome(node1, bot)).close).toBe(4008);
  });
});

describe('fix 8: Gateway sockets per address', () => {
  it('64 sockets from one address by default; the 65th upgrade answers 429; another address still connects', async () => {
    const t = await server();
    const open: WebSocket[] = [];
    for (let i = 0; i < 64; i++) {
      const { result, ws } = await openFrom(t, '127.0.0.6');
      expect(result).toBe('open');
      open.push(ws);
    }
    const refused = await openFrom(t, '127.0.0.6');
    expect(refused.result).toBe(429);
    const other = await openFrom(t, '127.0.0.7');
    expect(other.result).toBe('open');
    other.ws.close();
    // A closed socket frees its place.
    open.pop()!.close();
    await new Promise((r) => setTimeout(r, 200));
    const again = await openFrom(t, '127.0.0.6');
    expect(again.result).toBe('open');
    again.ws.close();
    for (const ws of open) ws.close();
  });
});

describe('frame limits (as the README states them)', () => {
  it('a payload over 4096 bytes closes with 4002; one over 64 KiB is cut by the WebSocket layer with 1009', async () => {
    const t = await server();
    const g = await RawGateway.open(t.server);
    g.send(JSON.stringify({ op: 1, d: null, pad: 'x'.repeat(5000) }));
    expect(await g.closed()).toBe(4002);
    const h = await RawGateway.open(t.server);
    h.send(JSON.stringify({ op: 1, d: null, pad: 'x'.repeat(70 * 1024) }));
    expect(await h.closed()).toBe(1009);
  });
});

describe('the credential scheme on the Gateway, as on REST', () => {
  it('Bot <token> identifies a bot only, Bearer <token> a user only; a bare token may be either', async () => {
    const t = await server();
    const player = await t.guest('scheme');
    const outcome = async (token: string) => {
      const o = await identifyOutcome(t, token);
      if (!o.ready && o.close === null) await o.g.closed();
      const result = o.ready ? 'ready' : o.g.closeCode;
      o.g.ws.close();
      return result;
    };
    expect(await outcome(`Bearer ${t.app.botToken}`)).toBe(4004);
    expect(await outcome(`Bot ${player.token}`)).toBe(4004);
    expect(await outcome(`Bot ${t.app.botToken}`)).toBe('ready');
    expect(await outcome(`Bearer ${player.token}`)).toBe('ready');
    expect(await outcome(t.app.botToken)).toBe('ready');
    expect(await outcome(player.token)).toBe('ready');
  });
});
