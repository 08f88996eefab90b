// The activity proxy host (issue 17): requests to <application_id>.activities.localhost:<port>
// go to the application's URL mappings and nowhere else. Real targets on loopback (development
// mode allows them): `/` and `/.proxy/` alike, request and response bodies streamed, hop-by-hop
// headers stripped both ways, CSP on every response, Set-Cookie made the proxy host's, WebSocket
// relayed (text, binary, close codes), a slow target not holding up others, and attacks
// (traversal in every encoding, absolute-form URLs, encoded slashes, Host tricks) refused without
// the unmapped server ever seeing a request.
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { ActivityService } from '../src/activities/ActivityService.ts';
import { BRIDGE_PATH, PROXY_BUDGET } from '../src/activities/activityProxy.ts';
import { type AddressAllowance, checkedLookup, publicAddressAllowed } from '../src/config/publicAddress.ts';
import { hostKind, UrlPolicy } from '../src/config/urlPolicy.ts';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

interface Seen { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }

/** A target that records what reached it and answers by path. */
class Target {
  server!: Server;
  seen: Seen[] = [];
  waiting = new Map<string, () => void>();
  constructor(private readonly name: string) {}
  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  /** Resolves when the test calls release(key). */
  gate(key: string): Promise<void> {
    return new Promise((r) => this.waiting.set(key, r));
  }
  release(key: string): void {
    this.waiting.get(key)?.();
  }
  async start(): Promise<void> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
  }
  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0]!;
    if (path.endsWith('/slow')) await this.gate('slow');
    if (path.endsWith('/upload')) {
      // Echo the first chunk before the request ends: the proxy must not buffer the request body.
      const first = await new Promise<Buffer>((r) => req.once('data', r));
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write(`first:${first.toString()}\n`);
      const rest: Buffer[] = [];
      for await (const c of req) rest.push(c as Buffer);
      res.end(`rest:${Buffer.concat(rest).toString()}`);
      this.seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: '' });
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    this.seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
    if (path.endsWith('/stream')) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('chunk-1\n');
      await this.gate('stream');
      res.end('chunk-2\n');
      return;
    }
    if (path.endsWith('/hop')) {
      res.writeHead(200, { connection: 'keep-alive, x-upstream-hop', 'x-upstream-hop': '1', 'proxy-authenticate': 'Basic', 'x-kept': 'yes', 'content-type': 'text/plain' });
      res.end('hop');
      return;
    }
    if (path.endsWith('/cookie')) {
      res.writeHead(200, { 'set-cookie': ['sid=abc; Domain=127.0.0.1; Path=/; SameSite=None; Secure; Partitioned', 'theme=dark; Path=/'], 'x-frame-options': 'DENY', 'content-security-policy': "script-src 'self'" });
      res.end('cookie');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ target: this.name, method: req.method, url: req.url, body: Buffer.concat(chunks).toString() }));
  }
  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

let t: TestServer;
const game = new Target('game');
const api = new Target('api');
const secret = new Target('secret');
let wss: WebSocketServer;
let host: string;

/** A raw request to the platform's listener with any Host and any request target. */
function raw(path: string, opts: { host?: string; port?: number; method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: opts.port ?? t.server.port, path, method: opts.method ?? 'GET', headers: { host: opts.host ?? host, ...opts.headers }, setHost: false, agent: false });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

beforeAll(async () => {
  await Promise.all([game.start(), api.start(), secret.start()]);
  // The API target also speaks WebSocket: an echo that closes with 4001 on "bye".
  wss = new WebSocketServer({ server: api.server, handleProtocols: (p) => (p.has('game-v1') ? 'game-v1' : false) });
  wss.on('connection', (ws, req) => {
    ws.send(`hello ${req.url} ${ws.protocol}`);
    ws.on('message', (data, isBinary) => {
      if (!isBinary && data.toString() === 'bye') ws.close(4001, 'bye yourself');
      else ws.send(data, { binary: isBinary });
    });
  });
  t = await startTestServer({ dev: true, rateLimits: false });
  host = `${t.app.id}.activities.localhost:${t.server.port}`;
  await new ActivityService(t.server.store, new UrlPolicy(true)).updateSettings(t.app.id, {
    enabled: true,
    url_mappings: [{ prefix: '/', target: `${game.origin}/game` }, { prefix: '/api', target: api.origin }],
  });
});
afterAll(async () => {
  await t?.close();
  wss?.close();
  await Promise.all([game.close(), api.close(), secret.close()]);
  cleanupTempDirs();
});

describe('activity proxy host', () => {
  it('forwards by the mappings; /.proxy/ and plain paths are the same request', async () => {
    const plain = await raw('/index.html?x=1');
    const proxied = await raw('/.proxy/index.html?x=1');
    expect(plain.status).toBe(200);
    expect(JSON.parse(plain.text)).toEqual({ target: 'game', method: 'GET', url: '/game/index.html?x=1', body: '' });
    expect(proxied.text).toBe(plain.text);
    // The longest prefix wins on a segment boundary; /apix is the root's.
    const token = await raw('/api/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"code":"abc"}' });
    const token2 = await raw('/.proxy/api/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"code":"abc"}' });
    expect(JSON.parse(token.text)).toEqual({ target: 'api', method: 'POST', url: '/token', body: '{"code":"abc"}' });
    expect(token2.text).toBe(token.text);
    expect(JSON.parse((await raw('/apix/token')).text).url).toBe('/game/apix/token');
    expect(JSON.parse((await raw('/api')).text)).toMatchObject({ target: 'api', url: '/' });
    // The platform's own paths on the proxy host are the activity's, never the platform's API.
    expect(JSON.parse((await raw('/api/v10/users/@me')).text)).toMatchObject({ target: 'api', url: '/v10/users/@me' });
    // And the platform itself is untouched on its own host.
    expect((await raw('/api/v10/gateway', { host: `127.0.0.1:${t.server.port}` })).text).toContain('"url"');
  });

  it('every response carries the proxy-only CSP; Set-Cookie loses Domain and keeps SameSite=None; Partitioned', async () => {
    const r = await raw('/cookie');
    const csp = r.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:");
    expect(csp).toContain(`connect-src 'self' ws://${host}`);
    expect(csp).toContain(`frame-ancestors 'self' ${t.server.url}`);
    // The target's own policy is kept beside ours (browsers enforce both).
    expect(r.headers['content-security-policy']).toContain("script-src 'self'");
    expect(r.headers['x-frame-options']).toBeUndefined();
    expect(r.headers['set-cookie']).toEqual(['sid=abc; Path=/; SameSite=None; Secure; Partitioned', 'theme=dark; Path=/']);
  });

  it('strips hop-by-hop headers both ways and adds X-Forwarded-*', async () => {
    game.seen = [];
    const r = await raw('/hop', { headers: { connection: 'keep-alive, x-strip-me', 'x-strip-me': '1', 'proxy-authorization': 'Basic eA==', 'keep-alive': 'timeout=5', te: 'trailers', 'x-kept': 'yes' } });
    expect(r.status).toBe(200);
    const seen = game.seen.at(-1)!.headers;
    expect(seen['x-strip-me']).toBeUndefined();
    expect(seen['proxy-authorization']).toBeUndefined();
    expect(seen['keep-alive']).toBeUndefined();
    expect(seen.te).toBeUndefined();
    expect(seen['x-kept']).toBe('yes');
    expect(seen.host).toBe(new URL(game.origin).host);
    expect(seen['x-forwarded-host']).toBe(host);
    expect(seen['x-forwarded-proto']).toBe('http');
    expect(r.headers['x-upstream-hop']).toBeUndefined();
    expect(r.headers['proxy-authenticate']).toBeUndefined();
    expect(r.headers['x-kept']).toBe('yes');
  });

  it('refuses every way out of the mappings; the unmapped server never sees a request', async () => {
    const secretHost = new URL(secret.origin).host;
    const attacks = [
      '/../secret',
      '/.proxy/../secret',
      '/%2e%2e/secret',
      '/%2E%2E%2Fsecret',
      '/api/..%2f..%2fsecret',
      '/api%2f..%2fsecret',
      '/api/%2e%2e/x',
      '/a//b',
      `//${secretHost}/x`,
      `http://${secretHost}/x`,
      `/\\${secretHost}/x`,
      '/%5c..%5cx',
      '/x%00y',
      '/%ff',
      '/./x',
    ];
    game.seen = [];
    api.seen = [];
    for (const path of attacks) {
      const r = await raw(path);
      expect(r.status, path).toBeGreaterThanOrEqual(400);
      expect(r.status, path).toBeLessThan(500);
    }
    expect(secret.seen).toEqual([]);
    expect(game.seen).toEqual([]);
    expect(api.seen).toEqual([]);

    // Host tricks: not the proxy host, so the platform answers (its JSON 404), never a target.
    for (const h of [`${t.app.id}.activities.localhost.evil.example`, `x${t.app.id}.activities.localhost`, `${t.app.id}.activities.localhost@${secretHost}`, secretHost]) {
      const r = await raw('/index.html', { host: h });
      expect(r.status, h).toBe(404);
      expect(r.text, h).toContain('"code"');
    }
    // An application without activities (or none at all) has no proxy host.
    const other = await t.server.createApplication({ name: 'No Activity' });
    expect((await raw('/', { host: `${other.id}.activities.localhost` })).status).toBe(404);
    expect((await raw('/', { host: '999999999999999999.activities.localhost' })).status).toBe(404);
    expect(secret.seen).toEqual([]);
  });

  it('streams response and request bodies without buffering them', async () => {
    // Response: the first chunk arrives while the target still holds the second.
    const firstChunk = await new Promise<string>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: t.server.port, path: '/.proxy/stream', headers: { host }, setHost: false, agent: false });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c.toString();
          if (text === 'chunk-1\n') {
            resolve(text);
            game.release('stream');
          }
        });
      });
      req.on('error', reject);
      req.end();
    });
    expect(firstChunk).toBe('chunk-1\n');
    // Request: the target answers the first chunk while the client has not finished sending.
    const text = await new Promise<string>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: t.server.port, path: '/api/upload', method: 'POST', headers: { host, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' }, setHost: false, agent: false });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c.toString();
          if (body === 'first:part-1\n') req.end('part-2');
        });
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.write('part-1');
    });
    expect(text).toBe('first:part-1\nrest:part-2');
  });

  it('a slow target does not hold up other requests', async () => {
    let slowDone = false;
    const slow = raw('/api/slow').then((r) => {
      slowDone = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 100));
    const fast = await Promise.all([raw('/fast-1'), raw('/api/fast-2'), raw('/.proxy/fast-3')]);
    expect(fast.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(slowDone).toBe(false);
    api.release('slow');
    expect((await slow).status).toBe(200);
  });

  it('relays WebSocket through the proxy with and without /.proxy/: text, binary, subprotocol, close codes', async () => {
    for (const path of ['/api/ws', '/.proxy/api/ws']) {
      const ws = new WebSocket(`ws://127.0.0.1:${t.server.port}${path}?room=1`, ['game-v1'], { headers: { host } });
      const frames: (string | Buffer)[] = [];
      const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
      ws.on('message', (data, isBinary) => frames.push(isBinary ? (data as Buffer) : data.toString()));
      await new Promise<void>((r, j) => {
        ws.once('open', () => r());
        ws.once('error', j);
      });
      expect(ws.protocol).toBe('game-v1');
      ws.send('ping');
      ws.send(Buffer.from([1, 2, 3]));
      await expect.poll(() => frames.length).toBe(3);
      expect(frames[0]).toBe('hello /ws?room=1 game-v1');
      expect(frames[1]).toBe('ping');
      expect(Buffer.isBuffer(frames[2]) && [...(frames[2] as Buffer)]).toEqual([1, 2, 3]);
      ws.send('bye');
      expect(await closed).toEqual({ code: 4001, reason: 'bye yourself' });
    }
    // Upgrades outside the mappings are refused before any target is asked.
    // Upgrades outside the mappings are refused before any target is asked. Sent raw: a client
    // library's URL parser would itself resolve /../ and %2e%2e.
    for (const path of ['/api/../ws', '/api/%2e%2e/ws', '/%2e%2e/ws', '/api%2fws', `http://${new URL(secret.origin).host}/ws`]) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: t.server.port, path, headers: { host, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' }, setHost: false, agent: false });
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('upgrade', (res, socket) => {
          socket.destroy();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status, path).toBe(400);
    }
    expect(secret.seen).toEqual([]);
    // The platform's own Gateway still upgrades on its own host.
    const gw = new WebSocket(`ws://127.0.0.1:${t.server.port}/gateway?v=10&encoding=json`);
    const hello = await new Promise<string>((r) => gw.once('message', (d) => r(d.toString())));
    expect(JSON.parse(hello).op).toBe(10);
    gw.close();
  });
});

/** An upgrade request sent raw; resolves with the status the proxy answered. */
function upgradeStatus(port: number, path: string, hostHeader: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, headers: { host: hostHeader, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13', ...headers }, setHost: false, agent: false });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end();
  });
}

// Security review H1, L1, L2: the proxy checks the ADDRESS it connects to (a name that resolves
// to loopback or 169.254.169.254, or rebinds after the mapping was saved), not only the name at
// save time; WebSocket upgrades count against the proxy budget; the web app's session credential
// is not passed upstream.
describe('activity proxy in production mode (attacks)', () => {
  let prod: TestServer;
  let prodHost: string;
  beforeAll(async () => {
    prod = await startTestServer({ dev: false });
    prodHost = `${prod.app.id}.activities.localhost:${prod.server.port}`;
    // Saved as if the names had passed the save-time check (they would have had they resolved to a
    // public address then: DNS rebinding). `localhost` resolves to loopback on every machine.
    await new ActivityService(prod.server.store, new UrlPolicy(true)).updateSettings(prod.app.id, {
      enabled: true,
      url_mappings: [
        { prefix: '/', target: `http://localhost:${new URL(game.origin).port}/game` },
        { prefix: '/literal', target: game.origin },
        { prefix: '/ws', target: `http://localhost:${new URL(api.origin).port}` },
      ],
    });
  });
  afterAll(async () => {
    await prod?.close();
  });

  it('a mapping whose name resolves to loopback is refused at connect time (HTTP and WebSocket); the target sees nothing', async () => {
    game.seen = [];
    api.seen = [];
    let wsConnections = 0;
    const count = () => wsConnections++;
    wss.on('connection', count);
    const viaName = await raw('/index.html', { host: prodHost, port: prod.server.port });
    expect(viaName.status).toBe(502);
    const viaLiteral = await raw('/literal/x', { host: prodHost, port: prod.server.port });
    expect(viaLiteral.status).toBe(502);
    expect(await upgradeStatus(prod.server.port, '/ws/socket', prodHost)).toBe(502);
    wss.off('connection', count);
    expect(game.seen).toEqual([]);
    expect(api.seen).toEqual([]);
    expect(wsConnections).toBe(0);
    // The development-mode server still reaches the same loopback targets.
    expect((await raw('/index.html')).status).toBe(200);
  });

  it('the connect-time lookup checks every address each time (rebinding) and pins the connection to them', async () => {
    let answer = '93.184.216.34';
    const resolver = async () => [{ address: answer, family: 4 }];
    const get = (allow: AddressAllowance) => new Promise<number>((resolve, reject) => {
      const req = http.get({ host: 'metadata.rebind.example', port: new URL(game.origin).port, path: '/game/x', lookup: checkedLookup(allow, resolver), agent: false, timeout: 5000 }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
    });
    answer = '127.0.0.1';
    await expect(get({})).rejects.toThrow(/resolves to a private, loopback/);
    answer = '169.254.169.254';
    await expect(get({ loopback: true })).rejects.toThrow(/resolves to a private, loopback/);
    // Development mode: the checked answer is the address connected to.
    answer = '127.0.0.1';
    game.seen = [];
    expect(await get({ loopback: true, private: true })).toBe(200);
    expect(game.seen.at(-1)!.headers.host).toContain('metadata.rebind.example');
    // A name with one public and one private address is refused outright.
    const mixed = checkedLookup({}, async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.1', family: 4 }]);
    await expect(new Promise((r, j) => mixed('x.example', { all: true }, (err, a) => (err ? j(err) : r(a))))).rejects.toThrow(/private/);
  });

  it('save time: a trailing dot and IPv6 forms embedding IPv4 are classified by what they carry', () => {
    const prodPolicy = new UrlPolicy(false);
    for (const target of ['localhost.', 'localhost..', 'app.localhost.', 'LOCALHOST.', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::7f00:1]', '[::127.0.0.1]', '[64:ff9b::7f00:1]', '[64:ff9b::a9fe:a9fe]', '[64:ff9b:1::a00:1]', '[2002:7f00:1::]', '[2002:a9fe:a9fe::]', '[2001:0:4136:e378:8000:63bf:80ff:fffe]', '[::ffff:0:a00:1]', '[::]', '169.254.169.254', '0x7f000001', '127.1']) {
      expect(prodPolicy.check('activity_url_mapping', `${target}/game`).ok, target).toBe(false);
    }
    expect(hostKind('localhost.')).toBe('loopback');
    expect(hostKind('[64:ff9b::7f00:1]')).toBe('loopback');
    expect(hostKind('[2002:7f00:1::]')).toBe('loopback');
    expect(hostKind('[2001:0:4136:e378:8000:63bf:80ff:fffe]')).toBe('loopback');
    expect(hostKind('[::7f00:1]')).toBe('loopback');
    expect(hostKind('[64:ff9b::808:808]')).toBe('private');
    expect(hostKind('[::ffff:8.8.8.8]')).toBe('public');
    expect(prodPolicy.check('activity_url_mapping', 'game.example./play').ok).toBe(true);
    expect(prodPolicy.check('activity_url_mapping', '[2606:4700::1111]/play').ok).toBe(true);
    // The same rules at connect time (webhooks, interactions, the proxy).
    for (const a of ['64:ff9b::7f00:1', '2002:7f00:1::', '::7f00:1', '2001:0:4136:e378:8000:63bf:80ff:fffe', '::ffff:169.254.169.254']) expect(publicAddressAllowed(a), a).toBe(false);
    expect(publicAddressAllowed('64:ff9b::7f00:1', { loopback: true })).toBe(true);
    expect(publicAddressAllowed('2606:4700::1111')).toBe(true);
  });

  it('WebSocket upgrades count against the proxy budget', async () => {
    // Spend the budget with cheap requests (the bridge page answers before any upstream), then upgrade.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const one = () => new Promise<number>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: prod.server.port, path: BRIDGE_PATH, headers: { host: prodHost }, setHost: false, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end();
    });
    // Under load, spending 1,200 requests can outlast the 10 s window, which then starts afresh:
    // spend until the budget answers 429, upgrade at once, and try again if the window rolled over.
    let upgrade = 0;
    for (let attempt = 0; attempt < 3 && upgrade !== 429; attempt++) {
      let last = 200;
      for (let i = 0; i <= PROXY_BUDGET.limit && last === 200; i += 4) last = Math.max(...(await Promise.all([one(), one(), one(), one()])));
      expect(last).toBe(429);
      upgrade = await upgradeStatus(prod.server.port, '/ws/socket', prodHost);
    }
    agent.destroy();
    expect(upgrade).toBe(429);
  });

  it('the web app\'s session credential is not passed upstream; an activity\'s Bearer token is', async () => {
    const session = 'a'.repeat(43);
    game.seen = [];
    await raw('/hop', { headers: { authorization: session } });
    expect(game.seen.at(-1)!.headers.authorization).toBeUndefined();
    await raw('/hop', { headers: { authorization: `Bearer ${session}` } });
    expect(game.seen.at(-1)!.headers.authorization).toBe(`Bearer ${session}`);
    const seen = new Promise<string | undefined>((r) => wss.once('connection', (_ws, req) => r(req.headers.authorization)));
    const ws = new WebSocket(`ws://127.0.0.1:${t.server.port}/api/ws`, ['game-v1'], { headers: { host, authorization: session } });
    ws.on('error', () => {});
    expect(await seen).toBeUndefined();
    ws.terminate();
  });
});
