// Uploads are written to a per-request temporary folder as they arrive and moved into the
// attachment store: a full upload never sits in the process's memory, and a refused one leaves
// no file behind.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, tempDir, type TestServer, webToken } from './harness.ts';

const MiB = 1024 * 1024;
let t: TestServer;
let dataDir: string;
let web: string;
let textId: string;

beforeAll(async () => {
  dataDir = tempDir();
  t = await startTestServer({ rateLimits: false, dataDir });
  const owner = await t.guest('uploader');
  web = await webToken(t, owner.userId);
  const guildId = (await t.req('POST', '/guilds', { token: web, body: { name: 'Uploads' } })).body.id;
  textId = (await t.req('GET', `/guilds/${guildId}/channels`, { token: web })).body.find((c: { type: number }) => c.type === 0).id;
});

afterAll(async () => {
  await t?.close();
  cleanupTempDirs();
});

type Part = { name: string; json?: string; file?: { name: string; bytes: number; fill: number } };

/** A multipart request written as it goes, 1 MiB at a time (never held whole on this side either). */
function upload(parts: Part[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const boundary = 'streamboundary';
    const url = new URL(`${t.api}/channels/${textId}/messages`);
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${web}`, 'content-type': `multipart/form-data; boundary=${boundary}` } });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    void (async () => {
      const write = (b: Buffer | string) => new Promise<void>((done) => (req.destroyed ? done() : req.write(b, () => done())));
      for (const p of parts) {
        if (req.destroyed) break;
        if (p.json !== undefined) {
          await write(`--${boundary}\r\ncontent-disposition: form-data; name="${p.name}"\r\n\r\n${p.json}\r\n`);
          continue;
        }
        const f = p.file!;
        await write(`--${boundary}\r\ncontent-disposition: form-data; name="${p.name}"; filename="${f.name}"\r\ncontent-type: application/octet-stream\r\n\r\n`);
        const chunk = Buffer.alloc(MiB, f.fill);
        for (let left = f.bytes; left > 0 && !req.destroyed; left -= MiB) await write(left >= MiB ? chunk : chunk.subarray(0, left));
        await write('\r\n');
      }
      if (!req.destroyed) req.end(`--${boundary}--\r\n`);
    })();
  });
}

const tempRoot = () => join(dataDir, 'upload-temp');
const tempLeft = () => (existsSync(tempRoot()) ? readdirSync(tempRoot()) : []);

/** Waits until no request's temporary folder is left (they are removed once the answer is sent). */
async function noTempLeft(): Promise<void> {
  const until = Date.now() + 10_000;
  while (tempLeft().length > 0 && Date.now() < until) await new Promise((r) => setImmediate(r));
  expect(tempLeft()).toEqual([]);
}

describe('uploads stream to the attachment store', () => {
  it('an authorized member\'s 10 files of 10 MiB grow the process by under 50 MiB, and are stored whole', async () => {
    const parts: Part[] = [{ name: 'payload_json', json: '{"content":"ten big files"}' }];
    for (let f = 0; f < 10; f++) parts.push({ name: `files[${f}]`, file: { name: `f${f}.bin`, bytes: 10 * MiB, fill: f + 1 } });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const r = await upload(parts);
    clearInterval(sampler);
    expect(r.status, r.body).toBe(200);
    expect((peak - before) / MiB).toBeLessThan(50);
    const attachments = JSON.parse(r.body).attachments as { id: string; filename: string; size: number }[];
    expect(attachments.map((a) => [a.filename, a.size])).toEqual(parts.slice(1).map((p) => [p.file!.name, 10 * MiB]));
    // Each file is in the store with its own bytes, readable by its owner only.
    for (const [i, a] of attachments.entries()) {
      const stored = readFileSync(join(dataDir, 'attachments', textId, a.id));
      expect([stored.length, stored[0], stored[stored.length - 1]]).toEqual([10 * MiB, i + 1, i + 1]);
    }
    await noTempLeft();
  });

  it('refused uploads leave no temporary file: a file over the limit, a bad payload_json after the files, a body Create Message refuses', async () => {
    const messages = async () => (await t.req('GET', `/channels/${textId}/messages`, { token: web })).body.length;
    const count = await messages();
    const small = (n: number): Part => ({ name: `files[${n}]`, file: { name: `s${n}.bin`, bytes: 2 * MiB, fill: 9 } });

    const over = await upload([{ name: 'payload_json', json: '{"content":"too big"}' }, small(0), { name: 'files[1]', file: { name: 'big.bin', bytes: 10 * MiB + 1, fill: 1 } }, small(2)]);
    expect([over.status, JSON.parse(over.body)]).toEqual([413, { code: 40005, message: 'Request entity too large' }]);
    await noTempLeft();

    const badJson = await upload([small(0), small(1), { name: 'payload_json', json: '{"content":' }]);
    expect([badJson.status, JSON.parse(badJson.body).code]).toEqual([400, 50035]);
    await noTempLeft();

    const refused = await upload([{ name: 'payload_json', json: '{"content":"x","flags":1}' }, small(0), small(1)]);
    expect([refused.status, JSON.parse(refused.body).code]).toEqual([400, 50035]);
    await noTempLeft();

    expect(await messages()).toBe(count);
    // Nothing reached the store for the refused requests either.
    const stored = existsSync(join(dataDir, 'attachments', textId)) ? readdirSync(join(dataDir, 'attachments', textId)) : [];
    expect(stored.length).toBe(10);
  });

  it('a client that goes away mid-upload leaves no temporary file', async () => {
    const boundary = 'goneboundary';
    const url = new URL(`${t.api}/channels/${textId}/messages`);
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${web}`, 'content-type': `multipart/form-data; boundary=${boundary}` } });
    req.on('error', () => undefined);
    const write = (b: Buffer | string) => new Promise<void>((done) => req.write(b, () => done()));
    await write(`--${boundary}\r\ncontent-disposition: form-data; name="files[0]"; filename="half.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`);
    const chunk = Buffer.alloc(MiB, 3);
    // Until the server has started writing the file, then the connection is dropped.
    const until = Date.now() + 10_000;
    while (tempLeft().length === 0 && Date.now() < until) await write(chunk);
    expect(tempLeft().length).toBeGreaterThan(0);
    req.destroy();
    await noTempLeft();
  });
});
