// Quests (issue 15, the source of QUEST_USER_ENROLLMENT): the application's bot defines quests,
// a player enrolls with the game's token or the first-party web app's, and the enrollment reaches
// a receiver that verifies it with discord-interactions, once. Refusals (bad input, a closed
// quest, another game's token) write nothing. On SQLite and PostgreSQL; then the portal section.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { PageSession } from './oauthHelpers.ts';
import { WebhookReceiver } from './webhookReceiver.ts';

afterAll(async () => {
  await dropTestSchemas();
  cleanupTempDirs();
});

for (const { name, config } of databaseConfigs()) {
  describe(`quests (${name})`, () => {
    let t: TestServer;
    let receiver: WebhookReceiver;
    let bot: { token: string; bot: true };
    beforeAll(async () => {
      t = await startTestServer({ database: config(), rateLimits: false, webhooks: { allowLoopback: true, pollIntervalMs: 50 } });
      bot = { token: t.app.botToken, bot: true };
      receiver = await WebhookReceiver.start();
      receiver.publicKey = (await t.server.webhooks.wire(t.app.id)).verify_key;
      await t.server.webhooks.update(t.app.id, { event_webhooks_url: receiver.url, event_webhooks_types: ['QUEST_USER_ENROLLMENT'] });
    });
    afterAll(async () => {
      await t?.close();
      await receiver?.close();
    });
    const enrollmentEvents = async () => (await t.server.store.database.db.selectFrom('webhook_events').select(['id', 'data']).where('type', '=', 'QUEST_USER_ENROLLMENT').execute()).length;

    it('the bot defines a quest; a player enrolls once; QUEST_USER_ENROLLMENT arrives signed, with the user and the quest', async () => {
      const created = await t.req('POST', `/applications/${t.app.id}/quests`, { ...bot, body: { name: 'Win 3 matches', description: 'Any mode' } });
      expect(created.status).toBe(200);
      const quest = created.body;
      expect(quest).toEqual({ id: expect.any(String), application_id: t.app.id, name: 'Win 3 matches', description: 'Any mode', starts_at: expect.any(String), ends_at: null });

      const player = await t.guest('Quinn');
      const open = await t.req('GET', `/applications/${t.app.id}/quests`, { token: player.token });
      expect(open.status).toBe(200);
      expect(open.body).toEqual([{ ...quest, enrolled_at: null }]);

      const enrolled = await t.req('POST', `/quests/${quest.id}/enroll`, { token: player.token });
      expect(enrolled.status).toBe(200);
      expect(enrolled.body).toEqual({ quest_id: quest.id, user_id: player.userId, enrolled_at: expect.any(String) });
      await receiver.waitFor(() => receiver.events().some((e) => e.body.event.type === 'QUEST_USER_ENROLLMENT'));
      const got = receiver.events().find((e) => e.body.event.type === 'QUEST_USER_ENROLLMENT')!;
      expect(got.verified).toBe(true);
      expect(got.body).toMatchObject({ version: 1, application_id: t.app.id, type: 1 });
      expect(got.body.event.data).toEqual({ ...enrolled.body, user: expect.objectContaining({ id: player.userId, global_name: 'Quinn' }), quest });

      // Again: the same enrollment, no second event.
      const again = await t.req('POST', `/quests/${quest.id}/enroll`, { token: player.token });
      expect(again.body).toEqual(enrolled.body);
      expect(await enrollmentEvents()).toBe(1);
      expect((await t.req('GET', `/applications/${t.app.id}/quests`, { token: player.token })).body[0].enrolled_at).toBe(enrolled.body.enrolled_at);
      expect((await t.req('GET', `/applications/${t.app.id}/quests`, bot)).body).toEqual([{ ...quest, enrollments: 1 }]);
    });

    it('the first-party web app enrolls its user in any game\'s quest; another game\'s token cannot see or enroll', async () => {
      const quest = (await t.req('POST', `/applications/${t.app.id}/quests`, { ...bot, body: { name: 'Explore' } })).body;
      const player = await t.guest('Webby');
      const firstParty = await t.server.store.applications.firstParty();
      const webToken = await t.server.store.tokens.issue(player.userId, firstParty.id, ['identify'], 3600);
      expect((await t.req('GET', `/applications/${t.app.id}/quests`, { token: webToken })).body.map((q: any) => q.id)).toContain(quest.id);
      const before = await enrollmentEvents();
      expect((await t.req('POST', `/quests/${quest.id}/enroll`, { token: webToken })).status).toBe(200);
      expect(await enrollmentEvents()).toBe(before + 1);

      const other = await t.server.createApplication({ name: 'Other' });
      const otherToken = await t.server.store.tokens.issue(player.userId, other.id, ['identify'], 3600);
      const list = await t.req('GET', `/applications/${t.app.id}/quests`, { token: otherToken });
      expect([list.status, list.body.code]).toEqual([403, 50001]);
      const refused = await t.req('POST', `/quests/${quest.id}/enroll`, { token: otherToken });
      expect([refused.status, refused.body.code, refused.body.message]).toEqual([404, 0, 'Unknown Quest']);
      // Another application's bot neither lists nor creates this one's quests.
      expect((await t.req('GET', `/applications/${t.app.id}/quests`, { token: other.botToken, bot: true })).status).toBe(403);
      expect(await enrollmentEvents()).toBe(before + 1);
    });

    it('refuses bad quests (50035) and enrollments in closed, future or unknown quests, writing nothing', async () => {
      const db = t.server.store.database.db;
      const count = async () => (await db.selectFrom('quests').select('id').execute()).length;
      const quests = await count();
      for (const body of [{ name: '' }, { name: 'x'.repeat(101) }, { name: 'ok', ends_at: '2000-01-01T00:00:00Z' }, {}]) {
        const r = await t.req('POST', `/applications/${t.app.id}/quests`, { ...bot, body });
        expect([r.status, r.body.code], JSON.stringify(body)).toEqual([400, 50035]);
      }
      expect(await count()).toBe(quests);

      const player = await t.guest('Late');
      const before = await enrollmentEvents();
      const soon = (await t.req('POST', `/applications/${t.app.id}/quests`, { ...bot, body: { name: 'Later', starts_at: new Date(Date.now() + 3_600_000).toISOString() } })).body;
      const future = await t.req('POST', `/quests/${soon.id}/enroll`, { token: player.token });
      expect([future.status, future.body.message]).toEqual([400, 'This quest is not open for enrollment']);
      expect((await t.req('GET', `/applications/${t.app.id}/quests`, { token: player.token })).body.map((q: any) => q.id)).not.toContain(soon.id);

      const ending = (await t.req('POST', `/applications/${t.app.id}/quests`, { ...bot, body: { name: 'Ending' } })).body;
      await t.server.store.database.db.updateTable('quests').set({ ends_at: Date.now() - 1000 }).where('id', '=', ending.id).execute();
      expect((await t.req('POST', `/quests/${ending.id}/enroll`, { token: player.token })).status).toBe(400);
      const unknown = await t.req('POST', '/quests/123456789012345678/enroll', { token: player.token });
      expect([unknown.status, unknown.body.message]).toEqual([404, 'Unknown Quest']);
      expect((await t.req('POST', '/quests/nope/enroll', { token: player.token })).status).toBe(404);
      // A bot cannot enroll (a user's token is needed).
      expect((await t.req('POST', `/quests/${ending.id}/enroll`, bot)).status).toBe(403);
      expect(await enrollmentEvents()).toBe(before);
      expect(await db.selectFrom('quest_enrollments').select('user_id').where('user_id', '=', player.userId).execute()).toEqual([]);
    });
  });
}

describe('developer portal: quests', () => {
  it('creates a quest, lists it with its enrollments, and ends it', async () => {
    const t = await startTestServer({ dev: true, accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
    try {
      const dev = new PageSession(t.server.url);
      await dev.signUp('quest_dev');
      const csrf = PageSession.csrf((await dev.get('/developers')).text);
      const created = await dev.submit('/developers/applications', { csrf, name: 'Quest Game' });
      const appId = /<code class="copy" id="client-id">([^<]+)<\/code>/.exec(created.text)![1]!;
      expect((await dev.get(`/developers/applications/${appId}`)).text).toContain('id="create-quest"');

      const bad = await dev.post(`/developers/applications/${appId}/quests`, { csrf, name: '', days: '' });
      expect(bad.status).toBe(400);
      const saved = await dev.post(`/developers/applications/${appId}/quests`, { csrf, name: 'Find the key', description: 'In the old mill', days: '7' });
      expect(saved.status).toBe(303);
      const [quest] = await t.server.store.database.db.selectFrom('quests').selectAll().where('application_id', '=', appId).execute();
      expect(quest).toMatchObject({ name: 'Find the key', description: 'In the old mill' });
      expect(Number(quest!.ends_at) - Number(quest!.starts_at)).toBe(7 * 86_400_000);

      const list = (await dev.get(`/developers/applications/${appId}/quests`)).text;
      expect(list).toMatch(new RegExp(`data-quest-id="${quest!.id}"[\\s\\S]*?Find the key[\\s\\S]*?<span class="enrollments">0</span> enrolled · <span class="state">open</span>`));
      const ended = await dev.post(`/developers/applications/${appId}/quests`, { csrf, action: 'end', quest_id: quest!.id });
      expect(ended.status).toBe(303);
      expect((await dev.get(`/developers/applications/${appId}/quests`)).text).toMatch(/<span class="state">closed<\/span>/);
      // Someone else's application's quest list is not shown.
      const stranger = new PageSession(t.server.url);
      await stranger.signUp('quest_stranger');
      expect((await stranger.get(`/developers/applications/${appId}/quests`)).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
