/**
 * Interactions (issue 13) over the real platform, on SQLite: the round trip from a user's
 * invocation (`POST /interactions`) to the reply message (MESSAGE_CREATE) reaching that user's own
 * Gateway session, with the application answering
 * - over the Gateway: a bot session gets INTERACTION_CREATE and answers with the callback route
 *   (`CHANNEL_MESSAGE_WITH_SOURCE`);
 * - over HTTP: the interactions endpoint (a local HTTP server that verifies the Ed25519 signature
 *   with node:crypto) answers in its HTTP response.
 * The peer, measured in the same run on the same server: a plain message create round trip
 * (`POST /channels/{id}/messages` to the author's own MESSAGE_CREATE), the floor any interaction
 * reply sits on top of. Ratios are ours over the peer (p50 and p99).
 */
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type WebSocket from 'ws';
import { startServer } from '@social-layer/server';
import { apiJson, openGatewaySession } from './fanout.ts';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';

const ROUNDS = Number(process.env.BENCH_INTERACTION_ROUNDS ?? 300);
const WARMUP = 30;
const GUILDS_INTENT = 1 << 0;
const GUILD_MESSAGES_INTENT = 1 << 9;

async function bot(method: string, url: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(url, { method, headers: { authorization: `Bot ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** Times `rounds` sequential round trips: `trigger(key)` then wait for the user's MESSAGE_CREATE carrying `key`. */
async function rounds(waiters: Map<string, () => void>, trigger: (key: string) => Promise<void>, label: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const key = `${label}-${i}`;
    const arrived = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${key}: no MESSAGE_CREATE within 10 s`)), 10_000);
      waiters.set(key, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    const started = nowMs();
    await trigger(key);
    await arrived;
    if (i >= WARMUP) out.push(nowMs() - started);
  }
  return out;
}

export default async function interactionsBench(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-ix-'));
  // Development mode: the interactions endpoint may be a loopback http URL.
  const server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error', heartbeatIntervalMs: 600_000, rateLimits: false, dev: true });
  const sockets: WebSocket[] = [];
  let endpoint: Server | undefined;
  try {
    const app = await server.createApplication({ name: 'bench' });
    const api = `${server.url}/api/v10`;
    const wsUrl = `${server.url.replace('http', 'ws')}/gateway?v=10&encoding=json`;
    const { user } = await server.store.users.findOrCreateProvisional(app.id, 'DEVICE_ID', 'bench-user', 'Bench User');
    // The web app's token: only the first-party application invokes interactions.
    const token = await server.store.tokens.issue(user.id, (await server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600);
    const guild = await apiJson('POST', `${api}/guilds`, token, { name: 'Bench Guild' });
    const botUserId = (await server.store.applications.get(app.id))!.bot_user_id;
    await server.store.guilds.transaction(async (tx) => server.store.guildMembers.add(tx, guild.id, botUserId));
    const channel = (await apiJson('GET', `${api}/guilds/${guild.id}/channels`, token)).find((c: { type: number }) => c.type === 0);
    const command = await bot('POST', `${api}/applications/${app.id}/commands`, app.botToken, { name: 'echo', description: 'Echo a key', options: [{ type: 3, name: 'key', description: 'Key', required: true }] });

    // The user's session: every MESSAGE_CREATE settles the round waiting for its content.
    const waiters = new Map<string, () => void>();
    sockets.push(await openGatewaySession(wsUrl, token, (t, d) => {
      if (t !== 'MESSAGE_CREATE') return;
      const w = waiters.get(d.content);
      if (w) {
        waiters.delete(d.content);
        w();
      }
    }, GUILDS_INTENT | GUILD_MESSAGES_INTENT));
    const invoke = (key: string) => apiJson('POST', `${api}/interactions`, token, { type: 2, channel_id: channel.id, data: { id: command.id, name: 'echo', type: 1, options: [{ type: 3, name: 'key', value: key }] } });

    // Peer: a plain message create round trip on the same server and session.
    const peer = await rounds(waiters, async (key) => void (await apiJson('POST', `${api}/channels/${channel.id}/messages`, token, { content: key })), 'message');

    // Over the Gateway: the bot answers each INTERACTION_CREATE with the callback route.
    sockets.push(await openGatewaySession(wsUrl, app.botToken, (t, d) => {
      if (t !== 'INTERACTION_CREATE') return;
      void fetch(`${api}/interactions/${d.id}/${d.token}/callback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 4, data: { content: d.data.options[0].value } }) });
    }, GUILDS_INTENT));
    const gateway = await rounds(waiters, async (key) => void (await invoke(key)), 'gateway');

    // Over HTTP: an endpoint that verifies the signature (as every app must) and answers in its response.
    const me = await bot('GET', `${api}/applications/@me`, app.botToken);
    const publicKey = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(me.verify_key, 'hex')]), format: 'der', type: 'spki' });
    endpoint = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const ts = String(req.headers['x-signature-timestamp'] ?? '');
        const ok = verify(null, Buffer.concat([Buffer.from(ts), raw]), publicKey, Buffer.from(String(req.headers['x-signature-ed25519'] ?? ''), 'hex'));
        if (!ok) return void res.writeHead(401).end();
        const body = JSON.parse(raw.toString());
        const answer = body.type === 1 ? { type: 1 } : { type: 4, data: { content: body.data.options[0].value } };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((r) => endpoint!.listen(0, '127.0.0.1', r));
    await bot('PATCH', `${api}/applications/@me`, app.botToken, { interactions_endpoint_url: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/interactions` });
    const http = await rounds(waiters, async (key) => void (await invoke(key)), 'http');

    const p = (xs: number[], q: number) => Number(percentile(xs, q).toFixed(3));
    return {
      description: `Interaction round trip, ${ROUNDS} sequential rounds each (after ${WARMUP} warm-up), SQLite: POST /interactions to the reply's MESSAGE_CREATE on the user's session; peer: POST /channels/{id}/messages to the author's MESSAGE_CREATE (same server, same run). ms.`,
      figures: {
        'gateway p50 ms': p(gateway, 50),
        'gateway p99 ms': p(gateway, 99),
        'http p50 ms': p(http, 50),
        'http p99 ms': p(http, 99),
        'peer message p50 ms': p(peer, 50),
        'peer message p99 ms': p(peer, 99),
        'gateway/peer p50': Number((percentile(gateway, 50) / percentile(peer, 50)).toFixed(2)),
        'gateway/peer p99': Number((percentile(gateway, 99) / percentile(peer, 99)).toFixed(2)),
        'http/peer p50': Number((percentile(http, 50) / percentile(peer, 50)).toFixed(2)),
        'http/peer p99': Number((percentile(http, 99) / percentile(peer, 99)).toFixed(2)),
      },
      notes: [
        'An interaction is two hops where a message is one: the platform hands it to the app (Gateway dispatch or signed POST), the app answers, then the reply is written and fanned out like a message.',
        'Over HTTP the signature is made per request (Ed25519, node:crypto) and checked by the endpoint.',
      ],
    };
  } finally {
    for (const s of sockets) s.close();
    await new Promise((r) => (endpoint ? endpoint.close(r) : r(undefined)));
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
