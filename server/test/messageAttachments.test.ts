import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, tempDir, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { UrlSigner } from '../src/messages/attachments.ts';
import { channelMessageRepo } from '../src/storage/ChannelMessageRepo.ts';
import { uploadBudget } from '../src/http/uploadBudget.ts';

/**
 * Attachments of guild messages (issue 11): multipart Create Message (`payload_json` + `files[n]`),
 * stored under the data folder, served from /attachments/... with an expiring signed URL;
 * description and is_spoiler on create and edit, the SPOILER_ prefix, 10 MiB per file, ATTACH_FILES.
 */
let t: TestServer;
let owner: { token: string; userId: string };
let member: { token: string; userId: string };
let channelId: string;
let dataDir: string;

async function userToken(name: string): Promise<{ token: string; userId: string }> {
  const g = await t.guest(name);
  return { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
}

async function upload(token: string, payload: unknown, files: { name: string; data: Buffer; type?: string }[]): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append('payload_json', JSON.stringify(payload));
  files.forEach((f, i) => form.append(`files[${i}]`, new Blob([new Uint8Array(f.data)], { type: f.type ?? 'application/octet-stream' }), f.name));
  const res = await fetch(`${t.api}/channels/${channelId}/messages`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: res.status, body: await res.json() };
}

const storedFiles = () => (existsSync(join(dataDir, 'attachments', channelId)) ? readdirSync(join(dataDir, 'attachments', channelId)) : []);

beforeAll(async () => {
  dataDir = tempDir();
  t = await startTestServer({ rateLimits: false, dataDir });
  owner = await userToken('Owner');
  member = await userToken('Member');
  const s = guildServicesFor(t.server.store, undefined as never);
  const guild = await s.guilds.createGuild(owner.userId, { name: 'Files' });
  await s.members.join(guild.id, member.userId);
  channelId = (await t.server.store.guilds.channels(guild.id)).find((c) => c.type === 0)!.id;
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

describe('attachments', () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(1000, 7)]);

  it('uploads files with description and spoilers; the signed URL serves the bytes, a tampered or unsigned one does not', async () => {
    const r = await upload(member.token, { content: 'pics', attachments: [{ id: 0, description: 'a cat' }, { id: 1, is_spoiler: true }] }, [
      { name: 'cat.png', data: png, type: 'image/png' },
      { name: 'plot.txt', data: Buffer.from('the butler did it') },
      { name: 'SPOILER_end.png', data: png, type: 'image/png' },
    ]);
    expect(r.status).toBe(200);
    const [cat, plot, end] = r.body.attachments;
    expect(cat).toMatchObject({ filename: 'cat.png', description: 'a cat', size: png.length, content_type: 'image/png' });
    expect(cat.flags ?? 0).toBe(0);
    expect(plot).toMatchObject({ filename: 'plot.txt', flags: 1 << 3 });
    expect(end).toMatchObject({ filename: 'SPOILER_end.png', flags: 1 << 3 });
    expect(cat.url).toMatch(new RegExp(`^${t.server.url}/attachments/${channelId}/${cat.id}/cat\\.png\\?ex=[0-9a-f]+&is=[0-9a-f]+&hm=[0-9a-f]{64}$`));

    const got = await fetch(cat.url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await got.arrayBuffer()).equals(png)).toBe(true);
    const url = new URL(cat.url);
    expect((await fetch(`${url.origin}${url.pathname}`)).status).toBe(404);
    const tampered = new URL(cat.url);
    tampered.searchParams.set('ex', (parseInt(tampered.searchParams.get('ex')!, 16) + 1).toString(16));
    expect((await fetch(tampered)).status).toBe(404);
    // Another attachment's signature does not open this one.
    const other = new URL(plot.url);
    expect((await fetch(`${url.origin}${url.pathname}${other.search}`)).status).toBe(404);
  });

  it('attack: a filename with a path, control characters or HTML never leaves the attachment folder or renders as a page', async () => {
    const r = await upload(member.token, { content: 'sneaky', attachments: [{ id: 0, filename: '../../../etc/pass\r\nwd' }] }, [
      { name: 'x.bin', data: Buffer.from('a') },
      { name: 'evil.html', data: Buffer.from('<script>alert(1)</script>'), type: 'text/html' },
    ]);
    expect(r.status).toBe(200);
    const [first, html] = r.body.attachments;
    expect(first.filename).toBe('passwd');
    expect(storedFiles()).toEqual(expect.arrayContaining([first.id, html.id]));
    expect(existsSync(join(dataDir, 'etc'))).toBe(false);
    const page = await fetch(html.url);
    expect(page.headers.get('content-type')).toBe('application/octet-stream');
    expect(page.headers.get('content-disposition')).toBe('attachment');
    expect(page.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('signed URLs expire', () => {
    const signer = new UrlSigner(dataDir);
    const signed = signer.sign('/attachments/1/2', Date.now() - 25 * 3600_000);
    const q = Object.fromEntries(new URLSearchParams(signed.slice(signed.indexOf('?') + 1)));
    expect(signer.verify('/attachments/1/2', q)).toBe(false);
    const fresh = signer.sign('/attachments/1/2');
    expect(signer.verify('/attachments/1/2', Object.fromEntries(new URLSearchParams(fresh.slice(fresh.indexOf('?') + 1))))).toBe(true);
  });

  it('refuses a file over 10 MiB with 413 / 40005 and stores nothing; ATTACH_FILES is needed', async () => {
    const before = storedFiles().length;
    const count = await channelMessageRepo(t.server.store.database.db, t.server.store.ids).count(channelId);
    const big = await upload(member.token, { content: 'too big' }, [{ name: 'big.bin', data: Buffer.alloc(10 * 1024 * 1024 + 1) }]);
    expect([big.status, big.body.code]).toEqual([413, 40005]);
    const exact = await upload(member.token, { content: 'just fits' }, [{ name: 'ok.bin', data: Buffer.alloc(10 * 1024 * 1024) }]);
    expect(exact.status).toBe(200);
    expect(storedFiles().length).toBe(before + 1);
    await t.server.store.database.db.updateTable('guild_channels').set({ permission_overwrites: JSON.stringify([{ id: member.userId, type: 1, allow: '0', deny: Permission.AttachFiles.toString() }]) }).where('id', '=', channelId).execute();
    const denied = await upload(member.token, { content: 'no files for you' }, [{ name: 'a.txt', data: Buffer.from('x') }]);
    expect([denied.status, denied.body.code]).toEqual([403, 50013]);
    await t.server.store.database.db.updateTable('guild_channels').set({ permission_overwrites: '[]' }).where('id', '=', channelId).execute();
    expect(storedFiles().length).toBe(before + 1);
    expect(await channelMessageRepo(t.server.store.database.db, t.server.store.ids).count(channelId)).toBe(count + 1);
    const badPayload = await upload(member.token, { content: 'x'.repeat(2001) }, [{ name: 'a.txt', data: Buffer.from('x') }]);
    expect([badPayload.status, badPayload.body.code]).toEqual([400, 50035]);
    expect(badPayload.body.errors.content).toBeDefined();
  });

  it('attack: uploads at once never hold more than the process budget; past it a 503 with Retry-After, nothing stored, every byte given back', async () => {
    const MiB = 1024 * 1024;
    expect(uploadBudget.heldBytes).toBe(0);
    uploadBudget.setCap(3 * MiB);
    try {
      // Others' uploads hold 2 MiB: a 2 MiB file does not fit beside them.
      expect(uploadBudget.take(2 * MiB)).toBe(true);
      const before = storedFiles().length;
      const count = await channelMessageRepo(t.server.store.database.db, t.server.store.ids).count(channelId);
      const form = new FormData();
      form.append('payload_json', JSON.stringify({ content: 'busy' }));
      form.append('files[0]', new Blob([new Uint8Array(2 * MiB)]), 'two.bin');
      const busy = await fetch(`${t.api}/channels/${channelId}/messages`, { method: 'POST', headers: { authorization: `Bearer ${member.token}` }, body: form });
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(((await busy.json()) as { message: string }).message).toMatch(/uploads in progress/);
      expect(storedFiles().length).toBe(before);
      expect(await channelMessageRepo(t.server.store.database.db, t.server.store.ids).count(channelId)).toBe(count);
      await expect.poll(() => uploadBudget.heldBytes).toBe(2 * MiB);
      uploadBudget.give(2 * MiB);

      // Alone, it fits; three at once, 1 MiB each, fit together; afterwards nothing is held.
      expect((await upload(member.token, { content: 'fits now' }, [{ name: 'two.bin', data: Buffer.alloc(2 * MiB) }])).status).toBe(200);
      const three = await Promise.all([0, 1, 2].map((i) => upload(member.token, { content: `one of three ${i}` }, [{ name: `${i}.bin`, data: Buffer.alloc(MiB - 4096) }])));
      expect(three.map((r) => r.status)).toEqual([200, 200, 200]);
      await expect.poll(() => uploadBudget.heldBytes).toBe(0);
    } finally {
      uploadBudget.setCap(256 * MiB);
    }
  });

  it('edits description and is_spoiler; an attachment left out of the list is removed with its file', async () => {
    const r = await upload(member.token, { attachments: [{ id: 0, description: 'first' }] }, [
      { name: 'a.png', data: png, type: 'image/png' },
      { name: 'b.png', data: png, type: 'image/png' },
    ]);
    const [a, b] = r.body.attachments;
    const edited = await t.req('PATCH', `/channels/${channelId}/messages/${r.body.id}`, { token: member.token, body: { attachments: [{ id: a.id, description: 'changed', is_spoiler: true }] } });
    expect(edited.status).toBe(200);
    expect(edited.body.attachments).toHaveLength(1);
    expect(edited.body.attachments[0]).toMatchObject({ id: a.id, description: 'changed', flags: 1 << 3 });
    expect((await fetch(b.url)).status).toBe(404);
    expect((await fetch(edited.body.attachments[0].url)).status).toBe(200);
    const unknown = await t.req('PATCH', `/channels/${channelId}/messages/${r.body.id}`, { token: member.token, body: { attachments: [{ id: '123' }] } });
    expect([unknown.status, unknown.body.code]).toEqual([400, 50035]);
    // Deleting the message removes the remaining file.
    expect((await t.req('DELETE', `/channels/${channelId}/messages/${r.body.id}`, { token: member.token })).status).toBe(204);
    expect((await fetch(edited.body.attachments[0].url)).status).toBe(404);
  });
});
