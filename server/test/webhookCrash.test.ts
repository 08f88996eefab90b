import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type DatabaseConfig, openDatabase, Store } from '../src/index.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, tempDir } from './harness.ts';
import { WebhookReceiver } from './webhookReceiver.ts';

const NODE_SCRIPT = join(fileURLToPath(new URL('.', import.meta.url)), 'webhookNode.ts');
const EVENTS = 2000;
const KILLS = 3;
const children = new Set<ChildProcess>();

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  cleanupTempDirs();
  await dropTestSchemas();
});

interface Node {
  child: ChildProcess;
  url: string;
  alive: boolean;
}

/** Starts a server node as a child process and waits for its ready line. */
async function startNode(cfg: object): Promise<Node & { appId: string; verifyKey: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', NODE_SCRIPT, JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
    if (process.env.WEBHOOK_CRASH_DEBUG) process.stderr.write(d);
  });
  child.on('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`node did not start: ${stderr}`)), 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolve({ child, alive: true, ...JSON.parse(line) });
      }
    });
    child.on('exit', (code) => reject(new Error(`node exited ${code}: ${stderr}`)));
  });
}

function killHard(node: Node): Promise<void> {
  node.alive = false;
  return new Promise((r) => {
    node.child.once('exit', () => r());
    node.child.kill('SIGKILL');
  });
}

/**
 * Done-means of issue 15: 2,000 events produced while server nodes are killed with SIGKILL three
 * times at random moments and the receiver fails 10% of requests. After recovery every event
 * recorded in the outbox arrived (2xx) at least once, and a second delivery of an event happens
 * only when its earlier attempt got no 2xx, or when the node that got the 2xx was killed before
 * it could record it.
 */
async function crashRun(database: DatabaseConfig, nodeCount: number, maxInFlight = 1): Promise<void> {
  const receiver = await WebhookReceiver.start();
  receiver.respond = () => (Math.random() < 0.1 ? 500 : 204);
  const dataDir = tempDir();
  // The real 3 s answer deadline (a lease outlasts three of them); fast backoff so the 10% failures
  // (each holding the queue back until its retry) do not stretch the run.
  const webhooks = { allowLoopback: true, backoffBaseMs: 5, backoffMaxMs: 50, pollIntervalMs: 25, timeoutMs: 3000, leaseMs: 9000, maxInFlight };
  const t0 = Date.now();
  // The application and its key come first, so the receiver can verify the PING of the first node.
  const setup = new Store(await openDatabase(database));
  const appId = (await setup.applications.create('Crash Test')).id;
  receiver.publicKey = await setup.webhookEvents.verifyKey(appId);
  await setup.close();
  const cfg = { database, dataDir, webhooks, appId };
  const first = await startNode({ ...cfg, receiverUrl: receiver.url });
  const nodes: Node[] = [first];
  for (let i = 1; i < nodeCount; i++) nodes.push(await startNode(cfg));

  // The producer: two guests who share a lobby; every DM records GAME_DIRECT_MESSAGE_CREATE.
  const api = (n: Node) => `${n.url}/api/v10`;
  const call = async (method: string, path: string, token: string | null, body: unknown) => {
    for (;;) {
      const n = nodes.filter((x) => x.alive)[Math.floor(Math.random() * nodes.length)] ?? nodes.find((x) => x.alive);
      if (!n) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      try {
        const res = await fetch(api(n) + path, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
        const json = (await res.json()) as any;
        if (res.status === 200) return json;
        throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      } catch (err) {
        // The node died under the request: try again (a DM that did commit is an event like any other).
        if (err instanceof TypeError) {
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        throw err;
      }
    }
  };
  const guest = async () => {
    const tok = await call('POST', '/partner-sdk/token', null, { client_id: first.appId, external_auth_type: 'DEVICE_ID', external_auth_token: randomBytes(16).toString('hex') });
    const me = await fetch(`${api(nodes.find((x) => x.alive)!)}/users/@me`, { headers: { authorization: `Bearer ${tok.access_token}` } }).then((r) => r.json() as any);
    return { token: tok.access_token as string, id: me.id as string };
  };
  const a = await guest();
  const b = await guest();
  for (const p of [a, b]) await call('PUT', '/lobbies', p.token, { secret: 'crash-room' });

  // Kill points: three distinct moments within the production, at least 300 sends apart.
  const killAt: number[] = [];
  while (killAt.length < KILLS) {
    const k = 150 + Math.floor(Math.random() * (EVENTS - 300));
    if (killAt.every((x) => Math.abs(x - k) >= 300)) killAt.push(k);
  }
  killAt.sort((x, y) => x - y);
  const killTimes: number[] = [];
  const confirmed = new Set<string>();
  let sent = 0;
  let killing: Promise<void> | null = null;
  const producer = async () => {
    while (sent < EVENTS) {
      sent++;
      const mine = sent;
      const m = await call('POST', `/users/${b.id}/messages`, a.token, { content: `event ${mine}` });
      confirmed.add(m.id);
      // A kill point reached while the previous kill is still restarting its node waits for it,
      // so every kill happens even when the other producers finish first (a fast machine).
      if (killAt.length > 0 && mine >= killAt[0]!) while (killing) await killing;
      if (killAt.length > 0 && mine >= killAt[0]! && !killing) {
        killAt.shift();
        killing = (async () => {
          // A random moment: now, or up to 150 ms later while deliveries are in flight.
          await new Promise((r) => setTimeout(r, Math.random() * 150));
          const victim = nodes.filter((x) => x.alive)[Math.floor(Math.random() * nodes.filter((x) => x.alive).length)]!;
          killTimes.push(Date.now());
          await killHard(victim);
          const restarted = await startNode(cfg);
          nodes[nodes.indexOf(victim)] = restarted;
        })().finally(() => (killing = null));
      }
    }
  };
  // Eight producers: PostgreSQL commits in parallel, which keeps the run short on a busy machine.
  await Promise.all(Array.from({ length: 8 }, producer));
  while (killing) await killing;
  expect(killTimes.length).toBe(KILLS);
  const produced = Date.now();

  // Recovery: wait until every outbox row has been answered 2xx at the receiver.
  const store = new Store(await openDatabase(database));
  try {
    const outbox = async () =>
      (await store.database.db.selectFrom('webhook_events').select(['id', 'data', 'delivered_at']).where('application_id', '=', first.appId).execute());
    const deadline = Date.now() + 90_000;
    let rows = await outbox();
    const got = () => new Set(receiver.events().map((e) => e.body.id as string));
    while (rows.some((r) => !got().has(r.id)) || rows.some((r) => r.delivered_at === null)) {
      if (Date.now() > deadline) throw new Error(`missing after recovery: ${rows.filter((r) => !got().has(r.id)).length} of ${rows.length}`);
      await new Promise((r) => setTimeout(r, 200));
      rows = await outbox();
    }
    console.log(`webhook crash run (${database.dialect}, ${nodeCount} node(s)): produced in ${produced - t0} ms, recovered ${Date.now() - produced} ms later`);
    // Every DM the producer saw succeed has its event in the outbox (same transaction) and at the receiver.
    const dmIds = new Set(rows.map((r) => JSON.parse(r.data).id as string));
    for (const id of confirmed) expect(dmIds.has(id)).toBe(true);
    expect(rows.length).toBeGreaterThanOrEqual(EVENTS);
    // Everything the receiver verified; nothing it got that is not in the outbox.
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    const ids = new Set(rows.map((r) => r.id));
    expect(receiver.received.filter((r) => r.body.type === 1).every((r) => ids.has(r.body.id))).toBe(true);

    // Duplicates: an attempt after a 2xx of the same event must be explained by a kill of a node
    // that may have sent that request and died before it read or recorded the answer: a kill no
    // earlier than one answer deadline before the request arrived (under load a request sent
    // just before a kill is read by the receiver after it), and before the duplicate.
    const attempts = new Map<string, typeof receiver.received>();
    for (const r of receiver.received.filter((x) => x.body.type === 1)) attempts.set(r.body.id, [...(attempts.get(r.body.id) ?? []), r]);
    let duplicates = 0;
    let unexplained = 0;
    for (const list of attempts.values()) {
      list.forEach((r, i) => {
        if (i === 0) return;
        duplicates++;
        const earlierOk = list.slice(0, i).filter((p) => p.status >= 200 && p.status < 300);
        if (earlierOk.length === 0) return;
        const lastOk = earlierOk.at(-1)!;
        const killed = killTimes.some((k) => k >= lastOk.arrivedAt - webhooks.timeoutMs && k <= r.arrivedAt);
        if (!killed) {
          unexplained++;
          console.log('unexplained duplicate', { id: r.body.id, attempts: list.map((p) => [p.at - t0, p.status]), kills: killTimes.map((k) => k - t0) });
        }
      });
    }
    expect(unexplained).toBe(0);
    // Sanity of the setup: failures did happen and were retried.
    expect(receiver.received.filter((r) => r.status === 500).length).toBeGreaterThan(EVENTS * 0.05);
    expect(duplicates).toBeGreaterThan(0);
  } finally {
    await store.close();
    for (const n of nodes) if (n.alive) n.child.kill('SIGKILL');
    await receiver.close();
  }
}

describe('webhook delivery survives kill -9', () => {
  it('SQLite, one node: 2,000 events, 3 kills, 10% receiver failures: none lost', async () => {
    await crashRun({ dialect: 'sqlite', file: join(tempDir(), 'crash.sqlite') }, 1);
  }, 420_000);

  it('PostgreSQL, two nodes: 2,000 events, 3 kills, 10% receiver failures: none lost, each delivered by one node', async () => {
    await crashRun(databaseConfigs().find((c) => c.name === 'postgres')!.config(), 2);
  }, 420_000);

  it('SQLite, one node, 8 requests in flight per application (webhooks.maxInFlight): none lost, no 2xx sent again', async () => {
    await crashRun({ dialect: 'sqlite', file: join(tempDir(), 'crash-window.sqlite') }, 1, 8);
  }, 420_000);
});
