// Development mode's two parts that later slices call: the URL policy (one module for redirect
// URIs, webhook URLs, interactions endpoints and activity URL mappings) and the self-signed TLS
// certificate. Production refuses what development allows.
import { existsSync, statSync } from 'node:fs';
import { createServer } from 'node:https';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { developmentCertificate } from '../src/config/devTls.ts';
import { hostKind, UrlPolicy } from '../src/config/urlPolicy.ts';
import { cleanupTempDirs, tempDir } from './harness.ts';

afterAll(() => cleanupTempDirs());

const production = new UrlPolicy(false);
const development = new UrlPolicy(true);

describe('URL policy', () => {
  it('redirect URIs: https and loopback http everywhere; other http only in development', () => {
    for (const uri of ['https://game.example/callback', 'http://127.0.0.1/callback', 'http://127.0.0.1:8080/cb', 'http://[::1]/cb', 'http://localhost:3000/cb', 'my-game:/authorize/callback']) {
      expect(production.check('redirect_uri', uri), uri).toMatchObject({ ok: true });
    }
    for (const uri of ['http://game.example/callback', 'http://192.168.1.20/callback']) {
      expect(production.check('redirect_uri', uri)).toMatchObject({ ok: false, code: 'URL_TYPE_INVALID_SCHEME' });
      expect(development.check('redirect_uri', uri)).toMatchObject({ ok: true });
    }
  });

  it('refuses in both modes what is never a URL to register', () => {
    for (const policy of [production, development]) {
      for (const [uri, code] of [
        ['javascript:alert(1)', 'URL_TYPE_INVALID_SCHEME'],
        ['file:///etc/passwd', 'URL_TYPE_INVALID_SCHEME'],
        ['https://user:pw@game.example/cb', 'URL_TYPE_INVALID_URL'],
        ['https://game.example/cb#frag', 'URL_TYPE_INVALID_URL'],
        ['not a url', 'URL_TYPE_INVALID_URL'],
        ['https://game.example/\u0000', 'URL_TYPE_INVALID_URL'],
        [`https://game.example/${'a'.repeat(600)}`, 'BASE_TYPE_BAD_LENGTH'],
      ] as const) {
        for (const kind of ['redirect_uri', 'webhook', 'interactions_endpoint'] as const) {
          expect(policy.check(kind, uri), `${kind} ${uri}`).toMatchObject({ ok: false, code });
        }
      }
    }
  });

  it('URLs the platform calls (webhooks, interactions endpoints, URL mappings): production wants https on a public host', () => {
    for (const kind of ['webhook', 'interactions_endpoint', 'activity_url_mapping'] as const) {
      expect(production.check(kind, 'https://bot.example/interactions')).toMatchObject({ ok: true });
      for (const uri of ['http://bot.example/interactions', 'https://127.0.0.1/hook', 'https://localhost:8443/hook', 'https://10.0.0.5/hook', 'https://[::1]/hook', 'https://169.254.169.254/latest', 'https://[::ffff:127.0.0.1]/hook', 'https://2130706433/hook', 'https://printer.local/hook', 'https://intranet/hook']) {
        const verdict = production.check(kind, uri);
        expect(verdict.ok, `${kind} ${uri}`).toBe(false);
        expect(development.check(kind, uri), `${kind} ${uri}`).toMatchObject({ ok: true });
      }
    }
    // URL mappings name a target without a scheme, as the public portal writes them.
    expect(production.check('activity_url_mapping', 'cdn.game.example/assets')).toMatchObject({ ok: true });
    expect(production.check('activity_url_mapping', 'localhost:5173')).toMatchObject({ ok: false, code: 'URL_TYPE_INVALID_HOST' });
    expect(development.check('activity_url_mapping', 'localhost:5173')).toMatchObject({ ok: true });
  });

  it('classifies hosts by range', () => {
    expect(hostKind('127.0.0.1')).toBe('loopback');
    expect(hostKind('[::1]')).toBe('loopback');
    expect(hostKind('app.localhost')).toBe('loopback');
    expect(hostKind('172.16.0.1')).toBe('private');
    expect(hostKind('172.32.0.1')).toBe('public');
    expect(hostKind('100.64.0.1')).toBe('private');
    expect(hostKind('[fd00::1]')).toBe('private');
    expect(hostKind('93.184.216.34')).toBe('public');
    expect(hostKind('game.example')).toBe('public');
  });
});

describe('self-signed certificate for development mode', () => {
  it('is refused in production mode', async () => {
    const dir = tempDir();
    await expect(developmentCertificate(dir, { dev: false })).rejects.toThrow(/development mode/);
    expect(existsSync(join(dir, 'dev-tls'))).toBe(false);
  });

  it('is made once for localhost, 127.0.0.1 and ::1, kept, reused, and serves https that verifies against it', async () => {
    const dir = tempDir();
    const first = await developmentCertificate(dir, { dev: true });
    expect(first.generated).toBe(true);
    const x509 = new X509Certificate(first.cert);
    expect(x509.checkHost('localhost')).toBe('localhost');
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x509.checkIP('::1')).toBe('::1');
    expect(x509.checkHost('evil.example')).toBeUndefined();
    expect(statSync(join(dir, 'dev-tls', 'key.pem')).mode & 0o077).toBe(0);
    const again = await developmentCertificate(dir, { dev: true });
    expect(again).toMatchObject({ generated: false, cert: first.cert, key: first.key });
    // Another host asked for, or near expiry: a new one.
    expect((await developmentCertificate(dir, { dev: true, hosts: ['game.test'] })).generated).toBe(true);
    const late = new Date(Date.now() + 30 * 24 * 3600_000);
    expect((await developmentCertificate(dir, { dev: true, hosts: ['game.test'], now: late })).generated).toBe(true);

    const cert = await developmentCertificate(dir, { dev: true, hosts: ['game.test'] });
    const server = createServer({ key: cert.key, cert: cert.cert }, (_req, res) => res.end('secure hello'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const body = await new Promise<string>((resolve, reject) => {
        // Verified against the certificate itself (as a developer's trust store would), not skipped.
        request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/', ca: cert.cert, servername: 'localhost' }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve(text));
        })
          .on('error', reject)
          .end();
      });
      expect(body).toBe('secure hello');
      const refused = await new Promise<string>((resolve) => {
        request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/' }, () => resolve('accepted')).on('error', (e) => resolve((e as NodeJS.ErrnoException).code ?? 'error')).end();
      });
      expect(refused).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/);
    } finally {
      server.close();
    }
  });
});
