import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, startTestServer, tempDir, type TestServer } from './harness.ts';
import { MAX_APPLICATION_EMOJIS } from '../src/guilds/EmojiService.ts';
import { Permission } from '../src/guilds/permissions.ts';

/** Guild emojis (CREATE_GUILD_EXPRESSIONS to create) and application emojis (bot token, 2,000 at most). */
let t: TestServer;
type U = { userId: string; token: string };
let owner: U;
let alice: U;
let dataDir: string;
const PNG = `data:image/png;base64,${Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('fake-image-bytes')]).toString('base64')}`;

async function user(name: string): Promise<U> {
  const g = await t.guest(name);
  return { userId: g.userId, token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600) };
}

beforeAll(async () => {
  dataDir = tempDir();
  t = await startTestServer({ rateLimits: false, dataDir });
  owner = await user('Owner');
  alice = await user('Alice');
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

describe('guild emojis', () => {
  it('creating needs CREATE_GUILD_EXPRESSIONS (MANAGE_GUILD_EXPRESSIONS alone no longer does); others\' emojis need MANAGE_GUILD_EXPRESSIONS', async () => {
    const guild = (await t.req('POST', '/guilds', { token: owner.token, body: { name: 'Emoji' } })).body;
    const text = (await t.req('GET', `/guilds/${guild.id}/channels`, { token: owner.token })).body.find((c: any) => c.type === 0);
    const inv = await t.req('POST', `/channels/${text.id}/invites`, { token: owner.token, body: {} });
    await t.req('POST', `/invites/${inv.body.code}`, { token: alice.token });
    // @everyone: only MANAGE_GUILD_EXPRESSIONS (and the basics), not CREATE_GUILD_EXPRESSIONS.
    await t.req('PATCH', `/guilds/${guild.id}/roles/${guild.id}`, { token: owner.token, body: { permissions: (Permission.ViewChannel | Permission.ManageGuildExpressions).toString() } });
    const refused = await t.req('POST', `/guilds/${guild.id}/emojis`, { token: alice.token, body: { name: 'nope', image: PNG } });
    expect([refused.status, refused.body.code]).toEqual([403, 50013]);
    expect((await t.req('GET', `/guilds/${guild.id}/emojis`, { token: owner.token })).body).toEqual([]);
    await t.req('PATCH', `/guilds/${guild.id}/roles/${guild.id}`, { token: owner.token, body: { permissions: (Permission.ViewChannel | Permission.CreateGuildExpressions).toString() } });
    const made = await t.req('POST', `/guilds/${guild.id}/emojis`, { token: alice.token, body: { name: 'party_cat', image: PNG } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'party_cat', animated: false, roles: [], user: { id: alice.userId }, available: true });
    const ownersEmoji = (await t.req('POST', `/guilds/${guild.id}/emojis`, { token: owner.token, body: { name: 'crown', image: PNG } })).body;
    expect((await t.req('PATCH', `/guilds/${guild.id}/emojis/${made.body.id}`, { token: alice.token, body: { name: 'party_kitty' } })).body.name).toBe('party_kitty');
    expect((await t.req('DELETE', `/guilds/${guild.id}/emojis/${ownersEmoji.id}`, { token: alice.token })).body.code).toBe(50013);
    expect((await t.req('GET', `/guilds/${guild.id}`, { token: owner.token })).body.emojis.map((e: any) => e.name).sort()).toEqual(['crown', 'party_kitty']);
    // The image at the CDN path.
    const img = await fetch(`${t.server.url}/emojis/${made.body.id}.png`);
    expect(img.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await img.arrayBuffer()).toString()).toContain('fake-image-bytes');
    expect((await t.req('GET', `/guilds/${guild.id}/emojis/123456789012345678`, { token: owner.token })).body.code).toBe(10014);
    const badName = await t.req('POST', `/guilds/${guild.id}/emojis`, { token: owner.token, body: { name: 'has space', image: PNG } });
    expect([badName.status, badName.body.code]).toEqual([400, 50035]);
    const notImage = await t.req('POST', `/guilds/${guild.id}/emojis`, { token: owner.token, body: { name: 'x_x', image: 'data:text/html;base64,PGI+' } });
    expect(notImage.status).toBe(400);
    // Labelled a PNG, but the bytes are text: refused by what they are, not by the label.
    const labelled = await t.req('POST', `/guilds/${guild.id}/emojis`, { token: owner.token, body: { name: 'x_y', image: `data:image/png;base64,${Buffer.from('<script>alert(1)</script>').toString('base64')}` } });
    expect([labelled.status, labelled.body.errors?.image?._errors[0].code]).toEqual([400, 'IMAGE_INVALID']);
    expect((await t.req('DELETE', `/guilds/${guild.id}/emojis/${ownersEmoji.id}`, { token: owner.token })).status).toBe(204);
  });
});

describe('application emojis', () => {
  it('are managed with the bot token; names are unique; the 2,001st is refused with 30008', async () => {
    const bot = { token: t.app.botToken, bot: true };
    const base = `/applications/${t.app.id}/emojis`;
    const made = await t.req('POST', base, { ...bot, body: { name: 'logo', image: PNG } });
    expect(made.status).toBe(201);
    expect((await t.req('POST', base, { ...bot, body: { name: 'logo', image: PNG } })).body.code).toBe(50035);
    expect((await t.req('GET', base, bot)).body.items.map((e: any) => e.name)).toEqual(['logo']);
    expect((await t.req('PATCH', `${base}/${made.body.id}`, { ...bot, body: { name: 'logo2' } })).body.name).toBe('logo2');
    expect((await t.req('GET', base, { token: owner.token })).status).toBe(403);
    const other = await t.server.createApplication({ name: 'Other' });
    expect((await t.req('GET', base, { token: other.botToken, bot: true })).body.code).toBe(50001);
    // Fill to the limit in storage (the route is exercised above), then the next create is refused.
    const db = t.server.store.database.db;
    for (let i = 1; i < MAX_APPLICATION_EMOJIS; i += 200) {
      const rows = [];
      for (let j = i; j < Math.min(i + 200, MAX_APPLICATION_EMOJIS); j++) rows.push({ id: String(900000000000000000n + BigInt(j)), guild_id: null, application_id: t.app.id, name: `e${j}`, animated: 0, creator_id: null, image: PNG, roles: '[]', created_at: Date.now() });
      await db.insertInto('emojis').values(rows).execute();
    }
    expect((await t.req('GET', base, bot)).body.items.length).toBe(MAX_APPLICATION_EMOJIS);
    const over = await t.req('POST', base, { ...bot, body: { name: 'one_more', image: PNG } });
    expect([over.status, over.body.code]).toEqual([400, 30008]);
    expect((await t.req('GET', base, bot)).body.items.length).toBe(MAX_APPLICATION_EMOJIS);
    expect((await t.req('DELETE', `${base}/${made.body.id}`, bot)).status).toBe(204);
    expect((await t.req('GET', `${base}/${made.body.id}`, bot)).body.code).toBe(10014);
  });
});

describe('emoji images', () => {
  it('are stored like message attachments (the data folder\'s attachment store), served from there, and removed with the emoji', async () => {
    const guild = (await t.req('POST', '/guilds', { token: owner.token, body: { name: 'Stored' } })).body;
    const made = await t.req('POST', `/guilds/${guild.id}/emojis`, { token: owner.token, body: { name: 'stored_one', image: PNG } });
    expect(made.status).toBe(201);
    const file = join(dataDir, 'attachments', guild.id, made.body.id);
    expect(readFileSync(file).toString()).toContain('fake-image-bytes');
    // The row keeps only the content type, not the bytes.
    const row = (await t.server.store.emojis.get(made.body.id))!;
    expect(row.image).toBe('file:image/png');
    const img = await fetch(`${t.server.url}/emojis/${made.body.id}.png`);
    expect([img.status, img.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(Buffer.from(await img.arrayBuffer()).toString()).toContain('fake-image-bytes');
    // Application emojis too, keyed by the application.
    const bot = { token: t.app.botToken, bot: true };
    const appEmoji = await t.req('POST', `/applications/${t.app.id}/emojis`, { ...bot, body: { name: 'stored_app', image: PNG } });
    const appFile = join(dataDir, 'attachments', t.app.id, appEmoji.body.id);
    expect(existsSync(appFile)).toBe(true);
    // Deleting removes the bytes; the CDN path is then 404.
    expect((await t.req('DELETE', `/guilds/${guild.id}/emojis/${made.body.id}`, { token: owner.token })).status).toBe(204);
    expect(existsSync(file)).toBe(false);
    expect((await fetch(`${t.server.url}/emojis/${made.body.id}.png`)).status).toBe(404);
    expect((await t.req('DELETE', `/applications/${t.app.id}/emojis/${appEmoji.body.id}`, bot)).status).toBe(204);
    expect(existsSync(appFile)).toBe(false);
    // A refused upload writes no file.
    const before = existsSync(join(dataDir, 'attachments', guild.id)) ? readdirCount(join(dataDir, 'attachments', guild.id)) : 0;
    expect((await t.req('POST', `/guilds/${guild.id}/emojis`, { token: alice.token, body: { name: 'not_a_member', image: PNG } })).status).toBe(403);
    expect(existsSync(join(dataDir, 'attachments', guild.id)) ? readdirCount(join(dataDir, 'attachments', guild.id)) : 0).toBe(before);
  });
});

function readdirCount(dir: string): number {
  return readdirSync(dir).length;
}
