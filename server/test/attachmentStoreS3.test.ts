import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// s3rver: a local S3-compatible server from the registry (works on Node 20), on loopback only.
import S3rver from 's3rver';
import { cleanupTempDirs, startTestServer, tempDir, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { FsAttachmentStore, type AttachmentStore } from '../src/messages/attachments.ts';
import { S3AttachmentStore, type S3AttachmentOptions } from '../src/messages/s3AttachmentStore.ts';

/**
 * Attachments in an S3-compatible bucket (issue 11): the store contract on the data folder and on a
 * bucket, and a server started with the bucket serving uploads from it and deleting them with the message.
 */
const BUCKET = 'social-layer-test';
let s3: S3rver;
let s3opts: S3AttachmentOptions;
const made: S3AttachmentStore[] = [];

beforeAll(async () => {
  s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: tempDir(), configureBuckets: [{ name: BUCKET, configs: [] }] });
  const { port } = (await s3.run()) as { port: number };
  // s3rver's fixed development credentials.
  s3opts = { bucket: BUCKET, endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } };
});
afterAll(async () => {
  for (const m of made) m.destroy();
  await s3?.close();
  cleanupTempDirs();
});

const stores: [string, () => AttachmentStore][] = [
  ['FsAttachmentStore', () => new FsAttachmentStore(join(tempDir(), 'attachments'))],
  ['S3AttachmentStore', () => { const m = new S3AttachmentStore(s3opts); made.push(m); return m; }],
];

describe.each(stores)('%s contract', (_name, make) => {
  it('puts, gets, overwrites and deletes; a missing key is undefined; a bad key is refused', async () => {
    const store = make();
    const bytes = Buffer.from([0, 1, 2, 255, 254, ...Buffer.from('hello')]);
    await store.put('111/222', bytes);
    expect((await store.get('111/222'))?.equals(bytes)).toBe(true);
    await store.put('111/222', Buffer.from('second'));
    expect((await store.get('111/222'))?.toString()).toBe('second');
    expect(await store.get('111/333')).toBeUndefined();
    expect(await store.get('999/222')).toBeUndefined();
    await store.delete('111/222');
    expect(await store.get('111/222')).toBeUndefined();
    // Deleting what is not there is fine (a retried delete).
    await expect(store.delete('111/222')).resolves.toBeUndefined();
    for (const bad of ['../etc/passwd', '111/../222', '111', '111/222/333', 'a/b', '111/222 ', '']) {
      await expect(store.put(bad, bytes)).rejects.toThrow('bad attachment key');
      await expect(store.get(bad)).rejects.toThrow('bad attachment key');
      await expect(store.delete(bad)).rejects.toThrow('bad attachment key');
    }
  });

  it('takes a file by path (an upload temporary file): the bytes are stored and the file is gone', async () => {
    const store = make();
    // 3 MiB of varied bytes: several stream chunks, so a store that mangles a streamed body shows it.
    const bytes = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 11)) & 255;
    const file = join(tempDir(), 'upload.bin');
    writeFileSync(file, bytes, { mode: 0o600 });
    await store.putFile('111/444', file);
    expect((await store.get('111/444'))?.equals(bytes)).toBe(true);
    expect(existsSync(file)).toBe(false);
    writeFileSync(file, 'x');
    await expect(store.putFile('../444', file)).rejects.toThrow('bad attachment key');
    await store.delete('111/444');
  });
});

describe('server with attachments in a bucket', () => {
  let t: TestServer;
  let dataDir: string;
  let probe: S3AttachmentStore;

  beforeAll(async () => {
    dataDir = tempDir();
    t = await startTestServer({ rateLimits: false, dataDir, attachmentsS3: s3opts });
    probe = new S3AttachmentStore(s3opts);
    made.push(probe);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('uploads via REST into the bucket, the signed CDN URL serves the bytes, deleting the message removes the object', async () => {
    const g = await t.guest('Owner');
    const token = await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600);
    const guild = await guildServicesFor(t.server.store, undefined as never).guilds.createGuild(g.userId, { name: 'Bucket' });
    const channelId = (await t.server.store.guilds.channels(guild.id)).find((c) => c.type === 0)!.id;

    const data = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(5000, 9)]);
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content: 'in the bucket' }));
    form.append('files[0]', new Blob([new Uint8Array(data)], { type: 'image/png' }), 'pic.png');
    const res = await fetch(`${t.api}/channels/${channelId}/messages`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(res.status).toBe(200);
    const msg = (await res.json()) as { id: string; attachments: { id: string; url: string }[] };
    const a = msg.attachments[0]!;

    // In the bucket, not in the data folder.
    expect((await probe.get(`${channelId}/${a.id}`))?.equals(data)).toBe(true);
    expect(existsSync(join(dataDir, 'attachments', channelId, a.id))).toBe(false);

    const got = await fetch(a.url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await got.arrayBuffer()).equals(data)).toBe(true);

    const del = await fetch(`${t.api}/channels/${channelId}/messages/${msg.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect(del.status).toBe(204);
    expect(await probe.get(`${channelId}/${a.id}`)).toBeUndefined();
    expect((await fetch(a.url)).status).toBe(404);
  });
});
