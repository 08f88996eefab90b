import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressAllowed, SafeFetchError, safePost } from '../src/webhooks/safeFetch.ts';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

/**
 * The webhook sender must never be turned against the platform's own network (SSRF). Every
 * destination below is refused outside development mode, and the refusal comes before any
 * connection: a loopback listener counts connection attempts and must see none. No test sends
 * traffic anywhere but loopback.
 */
let listener: net.Server;
let port = 0;
let connections = 0;
beforeAll(async () => {
  listener = net.createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  port = (listener.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => listener.close(r));
  cleanupTempDirs();
});

async function refused(url: string, resolve?: (h: string) => Promise<{ address: string; family: number }[]>): Promise<SafeFetchError> {
  const err = await safePost(url, {}, '{}', { allowLoopback: false, resolve }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, url).toBeInstanceOf(SafeFetchError);
  return err as SafeFetchError;
}

describe('webhook SSRF guard (production mode)', () => {
  it('refuses loopback, private, link-local and reserved addresses however they are written', async () => {
    const hosts = [
      '127.0.0.1',
      '10.0.0.1',
      '169.254.169.254',
      '[::1]',
      '127.1',
      '0x7f000001',
      '2130706433',
      '0177.0.0.1',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '0.0.0.0',
      '192.168.1.10',
      '172.16.0.1',
      '100.64.0.1',
      '[fe80::1]',
      '[fc00::1]',
      '[::]',
      '[64:ff9b::7f00:1]',
      '[2002:7f00:1::]',
      '224.0.0.1',
      '255.255.255.255',
    ];
    for (const host of hosts) {
      const err = await refused(`https://${host}:${port}/hook`);
      expect(err.code, host).toBe('refused_address');
    }
    expect(connections).toBe(0);
  });

  it('refuses a name that resolves to loopback, or to any private address among public ones', async () => {
    const dns: Record<string, string[]> = { 'loopback.example': ['127.0.0.1'], 'mixed.example': ['93.184.216.34', '10.1.2.3'], 'v6.example': ['::1'] };
    const resolve = async (h: string) => (dns[h] ?? []).map((address) => ({ address, family: net.isIP(address) }));
    for (const name of Object.keys(dns)) expect((await refused(`https://${name}:${port}/hook`, resolve)).code).toBe('refused_address');
    expect((await refused(`https://nothing.example:${port}/hook`, resolve)).code).toBe('dns');
    expect(connections).toBe(0);
  });

  it('refuses plain http, credentials and malformed URLs outside development mode', async () => {
    for (const url of [`http://93.184.216.34:${port}/`, `http://127.0.0.1:${port}/`, 'ftp://example.com/', 'https://user:pw@example.com/', 'not a url']) {
      expect((await refused(url)).code, url).toBe('invalid_url');
    }
    expect(connections).toBe(0);
  });

  it('classifies addresses: public unicast only; loopback only in development mode', () => {
    expect(addressAllowed('93.184.216.34', false)).toBe(true);
    expect(addressAllowed('2606:4700::1111', false)).toBe(true);
    expect(addressAllowed('127.0.0.1', false)).toBe(false);
    expect(addressAllowed('127.0.0.1', true)).toBe(true);
    expect(addressAllowed('::ffff:127.0.0.1', true)).toBe(true);
    expect(addressAllowed('10.0.0.1', true)).toBe(false);
    expect(addressAllowed('169.254.169.254', true)).toBe(false);
    expect(addressAllowed('garbage', true)).toBe(false);
  });

  it('PATCH-level: a webhook URL on loopback or http is refused and not saved', async () => {
    const t: TestServer = await startTestServer();
    try {
      for (const url of [`https://127.0.0.1:${port}/hook`, `https://[::1]:${port}/hook`, `https://169.254.169.254/latest/meta-data`, `http://127.0.0.1:${port}/hook`]) {
        const r = await t.server.webhooks.update(t.app.id, { event_webhooks_url: url }).catch((e) => e);
        expect(r.code, url).toBe(50035);
        expect(r.errors.event_webhooks_url, url).toBeDefined();
      }
      expect((await t.server.webhooks.wire(t.app.id)).event_webhooks_url).toBeNull();
      expect(connections).toBe(0);
    } finally {
      await t.close();
    }
  });
});

describe('webhook sender behaviour (development mode, loopback receivers)', () => {
  let hits: { url: string; host: string }[] = [];
  let server: http.Server;
  let base = '';
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits.push({ url: req.url!, host: req.headers.host! });
      if (req.url === '/redirect') res.writeHead(302, { location: `${base}/target` }).end();
      else if (req.url === '/big') res.writeHead(500, { 'content-type': 'text/plain' }).end('x'.repeat(1_000_000));
      else res.writeHead(204).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('does not follow redirects: the 302 is the answer and the target sees nothing', async () => {
    hits = [];
    const res = await safePost(`${base}/redirect`, {}, '{}', { allowLoopback: true });
    expect(res.status).toBe(302);
    expect(hits.map((h) => h.url)).toEqual(['/redirect']);
  });

  it('connects to the address it checked, whatever DNS says next (no rebinding)', async () => {
    hits = [];
    const answers = ['127.0.0.1', '10.0.0.1'];
    let calls = 0;
    const resolve = async () => [{ address: answers[Math.min(calls++, 1)]!, family: 4 }];
    const port = new URL(base).port;
    const res = await safePost(`http://rebind.example:${port}/pinned`, {}, '{}', { allowLoopback: true, resolve });
    expect(res.status).toBe(204);
    // One resolution, and the request reached the checked loopback address under its own name.
    expect(calls).toBe(1);
    expect(hits).toEqual([{ url: '/pinned', host: `rebind.example:${port}` }]);
    // Development mode allows loopback only: a private answer is still refused.
    expect((await safePost(`http://rebind.example:${port}/pinned`, {}, '{}', { allowLoopback: true, resolve }).catch((e) => e)).code).toBe('refused_address');
  });

  it('reads at most a small part of a response body', async () => {
    const res = await safePost(`${base}/big`, {}, '{}', { allowLoopback: true, maxBodyBytes: 1024 });
    expect(res.status).toBe(500);
    expect(res.body.length).toBe(1024);
  });
});
