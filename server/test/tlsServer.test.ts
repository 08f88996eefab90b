import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startServer, type RunningServer } from '../src/index.ts';
import { developmentCertificate } from '../src/config/devTls.ts';
import { cleanupTempDirs, tempDir } from './harness.ts';

/**
 * TLS on the server's one listener (issue 9, development mode; issue 10, voice clients that dial
 * wss): HTTPS for the API, WSS for the Gateway and the voice gateway, verified against the
 * certificate's own PEM as the only trusted CA; URLs handed out say https/wss; production refuses
 * to generate a self-signed certificate.
 */
const BIN = fileURLToPath(new URL('../bin/social-layer.js', import.meta.url));
const running: RunningServer[] = [];
afterAll(async () => {
  for (const s of running) await s.close();
  cleanupTempDirs();
});

function httpsGet(url: string, ca: string | undefined): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a wss socket trusting only `ca` and returns its first message. */
function firstMessage(url: string, ca: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { ca });
    ws.once('message', (data) => {
      resolve(JSON.parse(data.toString()));
      ws.close();
    });
    ws.once('error', reject);
  });
}

describe('TLS', () => {
  it('development mode serves https and wss with a generated certificate that verifies against itself', async () => {
    const data = tempDir();
    const server = await startServer({ port: 0, dataDir: data, serveSamples: false, logLevel: 'error', dev: true, tls: 'self-signed' });
    running.push(server);
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ca = server.tlsCertificate!;
    expect(ca).toContain('BEGIN CERTIFICATE');
    // Cached in the data folder for the next start.
    expect(existsSync(join(data, 'dev-tls', 'cert.pem'))).toBe(true);

    const gateway = await httpsGet(`${server.url}/api/v10/gateway`, ca);
    expect(gateway.status).toBe(200);
    expect(gateway.body.url).toBe(`${server.url.replace('https', 'wss')}/gateway`);
    // Without the CA the certificate does not verify: the check is real.
    await expect(httpsGet(`${server.url}/api/v10/gateway`, undefined)).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);

    const hello = await firstMessage(`${server.url.replace('https', 'wss')}/gateway?v=10&encoding=json`, ca);
    expect(hello.op).toBe(10);
    const voiceHello = await firstMessage(`${server.url.replace('https', 'wss')}/voice?v=8`, ca);
    expect(voiceHello).toMatchObject({ op: 8, d: { v: 8 } });

    // A second start reuses the cached certificate.
    await server.close();
    const again = await startServer({ port: 0, dataDir: data, serveSamples: false, logLevel: 'error', dev: true, tls: 'self-signed' });
    running.push(again);
    expect(again.tlsCertificate).toBe(ca);
  });

  it('production mode serves a given certificate and refuses to generate one', async () => {
    const made = await developmentCertificate(tempDir(), { dev: true });
    const dir = tempDir();
    writeFileSync(join(dir, 'cert.pem'), made.cert);
    writeFileSync(join(dir, 'key.pem'), made.key);
    const server = await startServer({ port: 0, dataDir: tempDir(), serveSamples: false, logLevel: 'error', tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') } });
    running.push(server);
    const res = await httpsGet(`${server.url}/api/v10/gateway`, made.cert);
    expect(res.body.url).toMatch(/^wss:\/\//);

    const data = tempDir();
    await expect(startServer({ port: 0, dataDir: data, serveSamples: false, logLevel: 'error', tls: 'self-signed' })).rejects.toThrow(/only made in development mode/);
    expect(existsSync(join(data, 'dev-tls'))).toBe(false);
  });

  it('the CLI: --tls needs --dev, and --tls-cert needs --tls-key', () => {
    const env = { ...process.env, SOCIAL_LAYER_DEV: '', SOCIAL_LAYER_TLS: '', SOCIAL_LAYER_TLS_CERT: '', SOCIAL_LAYER_TLS_KEY: '' };
    const noDev = spawnSync(process.execPath, [BIN, 'start', '--tls', '--port', '0', '--data', tempDir()], { encoding: 'utf8', env });
    expect(noDev.status).not.toBe(0);
    expect(noDev.stderr).toMatch(/only development mode/);
    const half = spawnSync(process.execPath, [BIN, 'start', '--tls-cert', 'x.pem', '--port', '0', '--data', tempDir()], { encoding: 'utf8', env });
    expect(half.status).not.toBe(0);
    expect(half.stderr).toMatch(/--tls-cert and --tls-key go together/);
  });
});
