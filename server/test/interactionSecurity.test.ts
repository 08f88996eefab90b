import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { searchServiceFor } from '../src/messages/search/SearchService.ts';
import { queryWords } from '../src/messages/search/SearchIndex.ts';

/**
 * Security review of the interactions code: only the web app (the first-party application's
 * token) invokes; a token route checks its token before it reads a multipart body; response
 * messages are in the search index (created, edited, deleted) and their files go with them; a
 * refused edit stores no file. SQLite and PostgreSQL.
 */
let t: TestServer;
let bot: RawGateway;
let guildId: string;
let channelId: string;
let cmd: string;
let user: { token: string; userId: string };
let thirdParty: string;

const invokeBody = () => ({ type: 2, channel_id: channelId, data: { id: cmd, name: 'go', type: 1 } });
async function invoke(): Promise<any> {
  const r = await t.req('POST', '/interactions', { token: user.token, body: invokeBody() });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (await bot.next((f) => f.t === 'INTERACTION_CREATE' && f.d.id === r.body.id)).d;
}
const send = async (method: string, path: string, body: unknown, files: { name: string; bytes: number }[] = []) => {
  let init: RequestInit;
  if (files.length === 0) init = { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  else {
    const form = new FormData();
    form.append('payload_json', JSON.stringify(body));
    files.forEach((f, n) => form.append(`files[${n}]`, new Blob([Buffer.alloc(f.bytes, 97)], { type: 'text/plain' }), f.name));
    init = { method, body: form };
  }
  const res = await fetch(`${t.api}${path}`, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};
const storedFiles = (): string[] => {
  // The attachment store's folder (where channel messages' files live too).
  const root = (t.server.interactions.messages as unknown as { files: { root: string } }).files.root;
  expect(root).toBeTruthy();
  try {
    return readdirSync(root, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => join(d.parentPath ?? d.path, d.name)).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
};
const interactionCount = async () => (await t.server.store.database.db.selectFrom('interactions').select('id').execute()).length;
const found = async (word: string) => (await searchServiceFor(t.server.store).index.query({ guildId, words: queryWords(word), filter: { all: [], not: [] }, sort: 'timestamp', order: 'desc', limit: 25, offset: 0 })).ids;

for (const { name: dbName, config } of databaseConfigs()) {
  describe(`interactions security (${dbName})`, () => {
    beforeAll(async () => {
      t = await startTestServer({ database: config(), rateLimits: false });
      const g = await t.guest('Player');
      user = { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
      // The same user's token of a third-party application, with the guilds scope.
      thirdParty = await t.server.store.tokens.issue(g.userId, t.app.id, ['identify', 'guilds'], 3600);
      const services = guildServicesFor(t.server.store, undefined as never);
      guildId = (await services.guilds.createGuild(user.userId, { name: 'Security' })).id;
      channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
      await services.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages | Permission.AttachFiles);
      cmd = (await t.req('POST', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true, body: { name: 'go', description: 'Go' } })).body.id;
      bot = await RawGateway.open(t.server);
      await bot.identify(t.app.botToken);
    });
    afterAll(async () => {
      bot?.terminate();
      await t?.close();
      await dropTestSchemas();
      cleanupTempDirs();
    });

    it('a third-party application\'s bearer token cannot invoke (403 / 50001) and nothing is written; the web app\'s token can', async () => {
      const before = await interactionCount();
      const r = await t.req('POST', '/interactions', { token: thirdParty, body: invokeBody() });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe(50001);
      expect(await interactionCount()).toBe(before);
      expect(bot.frames.some((f) => f.t === 'INTERACTION_CREATE')).toBe(false);
      const index = await t.req('GET', `/channels/${channelId}/application-command-index`, { token: thirdParty });
      expect(index.status).toBe(403);
      const mine = await t.req('GET', `/channels/${channelId}/application-command-index`, { token: user.token });
      expect(mine.body.application_commands.map((c: any) => c.id)).toEqual([cmd]);
      await invoke();
      expect(await interactionCount()).toBe(before + 1);
    });

    it('a token route checks the token before reading a large multipart body: token error, nothing stored', async () => {
      const i = await invoke();
      const files = storedFiles();
      const big = [{ name: 'big.txt', bytes: 6 * 1024 * 1024 }];
      const cb = await send('POST', `/interactions/${i.id}/not-the-token/callback`, { type: 4, data: { content: 'x' } }, big);
      expect(cb.status).toBe(404);
      expect(cb.body.code).toBe(10062);
      const fu = await send('POST', `/webhooks/${t.app.id}/not-the-token?wait=true`, { content: 'x' }, big);
      expect(fu.body.code).toBe(10015);
      const ed = await send('PATCH', `/webhooks/${t.app.id}/not-the-token/messages/@original`, { content: 'x' }, big);
      expect(ed.body.code).toBe(10015);
      // A file over the 10 MiB limit: read first, it would be answered 413; the token answers first.
      const over = await send('POST', `/webhooks/${t.app.id}/not-the-token?wait=true`, { content: 'x' }, [{ name: 'over.txt', bytes: 10 * 1024 * 1024 + 16 }]);
      expect(over.status).toBe(404);
      expect(over.body.code).toBe(10015);
      const badJson = await fetch(`${t.api}/interactions/${i.id}/not-the-token/callback`, { method: 'POST', body: (() => { const f = new FormData(); f.append('payload_json', '{not json'); return f; })() });
      expect(((await badJson.json()) as { code: number }).code).toBe(10062);
      expect(storedFiles()).toEqual(files);
      expect((await t.server.interactions.repo.interaction(i.id))!.state).toBe('pending');
    });

    it('response messages are searchable: found after create, by the new words after an edit, gone after delete (with their files)', async () => {
      const i = await invoke();
      const r = await send('POST', `/interactions/${i.id}/${i.token}/callback?with_response=true`, { type: 4, data: { content: 'zebra quartz' } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const id = r.body.resource.message.id;
      expect(await found('zebra')).toContain(id);
      const e = await send('PATCH', `/webhooks/${t.app.id}/${i.token}/messages/@original`, { content: 'mango lantern' });
      expect(e.status).toBe(200);
      expect(await found('mango')).toContain(id);
      expect(await found('zebra')).not.toContain(id);
      // A follow-up with a file: stored, found, then deleted with its file.
      const files = storedFiles();
      const f = await send('POST', `/webhooks/${t.app.id}/${i.token}?wait=true`, { content: 'walnut report' }, [{ name: 'r.txt', bytes: 10 }]);
      expect(f.status, JSON.stringify(f.body)).toBe(200);
      expect(storedFiles()).toHaveLength(files.length + 1);
      expect(await found('walnut')).toContain(f.body.id);
      expect((await send('DELETE', `/webhooks/${t.app.id}/${i.token}/messages/${f.body.id}`, undefined)).status).toBe(204);
      expect(await found('walnut')).not.toContain(f.body.id);
      expect(storedFiles()).toEqual(files);
      expect((await send('DELETE', `/webhooks/${t.app.id}/${i.token}/messages/@original`, undefined)).status).toBe(204);
      expect(await found('mango')).not.toContain(id);
    });

    it('a refused edit with files leaves no file in the attachment store', async () => {
      const i = await invoke();
      expect((await send('POST', `/interactions/${i.id}/${i.token}/callback`, { type: 5 })).status).toBe(204);
      const files = storedFiles();
      // An empty edit of a deferred (empty) response is refused; so is one with bad content.
      const empty = await send('PATCH', `/webhooks/${t.app.id}/${i.token}/messages/@original`, { content: '', attachments: [] }, []);
      expect(empty.body.code).toBe(50006);
      const tooLong = await send('PATCH', `/webhooks/${t.app.id}/${i.token}/messages/@original`, { content: 'x'.repeat(2001) }, [{ name: 'a.txt', bytes: 10 }]);
      expect(tooLong.status).toBe(400);
      const notMine = await send('PATCH', `/webhooks/${t.app.id}/${i.token}/messages/123456789012345678`, { content: 'y' }, [{ name: 'b.txt', bytes: 10 }]);
      expect(notMine.status).toBe(404);
      expect(storedFiles()).toEqual(files);
    });

    it('a modal submit refused for access (the bot left the guild) stores none of its files', async () => {
      const i = await invoke();
      const shown = await send('POST', `/interactions/${i.id}/${i.token}/callback`, { type: 9, data: { custom_id: 'up', title: 'Upload', components: [{ type: 18, label: 'File', component: { type: 19, custom_id: 'f', min_values: 1, max_values: 1 } }] } });
      expect(shown.status, JSON.stringify(shown.body)).toBe(204);
      const botUserId = (await t.server.store.applications.get(t.app.id))!.bot_user_id;
      const db = t.server.store.database.db;
      await t.server.store.guildMembers.remove(db, guildId, botUserId);
      try {
        const files = storedFiles();
        const form = new FormData();
        form.append('payload_json', JSON.stringify({ type: 5, channel_id: channelId, data: { id: i.id, custom_id: 'up', values: { f: ['0'] } } }));
        form.append('files[0]', new Blob(['save data'], { type: 'text/plain' }), 'save.txt');
        const r = await fetch(`${t.api}/interactions`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: form });
        expect(r.status).toBe(403);
        expect(storedFiles()).toEqual(files);
      } finally {
        await t.server.store.guildMembers.add(db, guildId, botUserId);
      }
    });
  });
}
