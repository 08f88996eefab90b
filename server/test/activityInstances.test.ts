// Activity instances (issue 17): one instance per launch location (guild channel, DM), the
// participants as users launch and leave, Get Application Activity Instance for the game's
// backend (its Bot token only), and the refusals: activities off, a channel the user cannot
// see or use activities in, another application's instance, tokens other than the web app's.
// SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityService } from '../src/activities/ActivityService.ts';
import { UrlPolicy } from '../src/config/urlPolicy.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';

afterAll(async () => {
  await dropTestSchemas();
  cleanupTempDirs();
});

for (const { name, config } of databaseConfigs()) {
  describe(`activity instances (${name})`, () => {
    let t: TestServer;
    /** A user with a game token (guilds scope, to make guilds) and the web app's token (to launch). */
    type U = { userId: string; game: string; web: string };
    let owner: U;
    let alice: U;
    let carol: U;
    let guild: { id: string; voice: string; text: string };
    const bot = () => ({ token: t.app.botToken, bot: true });

    async function user(nameOf: string): Promise<U> {
      const g = await t.guest(nameOf);
      const firstParty = await t.server.store.applications.firstParty();
      return {
        userId: g.userId,
        game: await t.server.store.tokens.issue(g.userId, t.app.id, ['identify', 'guilds'], 3600),
        web: await t.server.store.tokens.issue(g.userId, firstParty.id, ['identify', 'guilds'], 3600),
      };
    }
    const launch = (u: U, channelId: string, appId = t.app.id) => t.req('POST', `/applications/${appId}/activity-instances`, { token: u.web, body: { channel_id: channelId } });

    beforeAll(async () => {
      t = await startTestServer({ database: config(), rateLimits: false, dev: true });
      [owner, alice, carol] = [await user('Owner'), await user('Alice'), await user('Carol')];
      const g = await t.req('POST', '/guilds', { token: owner.web, body: { name: 'Arcade' } });
      const channels = (await t.req('GET', `/guilds/${g.body.id}/channels`, { token: owner.web })).body as any[];
      guild = { id: g.body.id, voice: channels.find((c) => c.type === 2).id, text: channels.find((c) => c.type === 0).id };
      const inv = await t.req('POST', `/channels/${guild.text}/invites`, { token: owner.web, body: {} });
      expect((await t.req('POST', `/invites/${inv.body.code}`, { token: alice.web })).status).toBe(200);
      await new ActivityService(t.server.store, new UrlPolicy(true)).updateSettings(t.app.id, { enabled: true, url_mappings: [{ prefix: '/', target: 'http://127.0.0.1:9' }], supported_platforms: ['web', 'ios'], orientation: 'landscape' });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('one instance per voice channel: the second launch joins it; the bot reads it; the last one out ends it', async () => {
      const first = await launch(owner, guild.voice);
      expect(first.status).toBe(200);
      const instance = first.body.instance;
      expect(first.body).toEqual({
        instance: { application_id: t.app.id, instance_id: expect.any(String), launch_id: expect.any(String), location: { id: `gc-${guild.id}-${guild.voice}`, kind: 'gc', channel_id: guild.voice, guild_id: guild.id }, users: [owner.userId] },
        activity_origin: `http://${t.app.id}.activities.localhost:${t.server.port}`,
        supported_platforms: ['web', 'ios'],
        orientation: 'landscape',
        participants: [{ id: owner.userId, username: expect.any(String), global_name: 'Owner', avatar: null }],
        // The owner holds every permission (GET_CHANNEL_PERMISSIONS).
        permissions: expect.stringMatching(/^\d+$/),
      });
      expect(BigInt(first.body.permissions) & (1n << 39n)).toBe(1n << 39n);
      const second = await launch(alice, guild.voice);
      expect(second.body.instance).toEqual({ ...instance, users: [owner.userId, alice.userId] });
      // Launching again changes nothing.
      expect((await launch(alice, guild.voice)).body.instance.users).toEqual([owner.userId, alice.userId]);
      // Another channel is another instance.
      const inText = await launch(alice, guild.text);
      expect(inText.body.instance.instance_id).not.toBe(instance.instance_id);
      expect(inText.body.instance.location.id).toBe(`gc-${guild.id}-${guild.text}`);

      const got = await t.req('GET', `/applications/${t.app.id}/activity-instances/${instance.instance_id}`, bot());
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ ...instance, users: [owner.userId, alice.userId] });

      expect((await t.req('DELETE', `/applications/${t.app.id}/activity-instances/${instance.instance_id}/participants/@me`, { token: owner.web })).status).toBe(204);
      expect((await t.req('GET', `/applications/${t.app.id}/activity-instances/${instance.instance_id}`, bot())).body.users).toEqual([alice.userId]);
      expect((await t.req('DELETE', `/applications/${t.app.id}/activity-instances/${instance.instance_id}/participants/@me`, { token: alice.web })).status).toBe(204);
      const gone = await t.req('GET', `/applications/${t.app.id}/activity-instances/${instance.instance_id}`, bot());
      expect(gone.status).toBe(404);
      // A new launch there is a new instance.
      const again = await launch(owner, guild.voice);
      expect(again.body.instance.instance_id).not.toBe(instance.instance_id);
      expect(again.body.instance.users).toEqual([owner.userId]);
    });

    it('AUTHORIZE: consent first, then a code the activity backend exchanges without redirect_uri; prompt none after; participants only', async () => {
      // The shelf lists an activity once the user authorized it (or its bot is in the guild).
      expect((await t.req('GET', `/channels/${guild.voice}/activities`, { token: owner.web })).body).toEqual([]);
      const live = (await launch(owner, guild.voice)).body.instance;
      const authorize = (u: U, body: Record<string, unknown>) => t.req('POST', `/applications/${t.app.id}/activity-instances/${live.instance_id}/authorize`, { token: u.web, body });
      const noConsent = await authorize(owner, { scope: ['identify', 'guilds'] });
      expect(noConsent.status).toBe(403);
      const granted = await authorize(owner, { scope: ['identify', 'guilds'], consent: true });
      expect(granted.status).toBe(200);
      const form = new URLSearchParams({ grant_type: 'authorization_code', code: granted.body.code, client_id: t.app.id, client_secret: t.app.clientSecret });
      const tok = await fetch(`${t.api}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
      expect(tok.status).toBe(200);
      const token = await tok.json();
      expect(token.scope.split(' ').sort()).toEqual(['guilds', 'identify']);
      expect((await t.req('GET', '/users/@me', { token: token.access_token })).body.id).toBe(owner.userId);
      // Granted before: prompt none (and no consent) gets a code; a wider scope needs consent again.
      expect((await authorize(owner, { scope: ['identify'], prompt: 'none' })).status).toBe(200);
      const shelf = await t.req('GET', `/channels/${guild.voice}/activities`, { token: owner.web });
      expect(shelf.body).toEqual([{ application_id: t.app.id, name: 'Test Game', icon: null, instance: { instance_id: live.instance_id, users: [owner.userId] } }]);
      expect((await t.req('GET', `/channels/${guild.voice}/activities`, { token: carol.web })).body.code).toBe(50001);
      expect((await authorize(owner, { scope: ['identify', 'relationships.read'], prompt: 'none' })).status).toBe(403);
      expect((await authorize(owner, { scope: ['identify', 'relationships.read'], prompt: 'none', consent: true })).status).toBe(200);
      // Not in the instance, a bad scope, a bad challenge: refused.
      expect((await authorize(carol, { scope: ['identify'], consent: true })).body.code).toBe(50001);
      expect((await authorize(owner, { scope: ['nope'], consent: true })).status).toBe(400);
      expect((await authorize(owner, { scope: ['identify'], consent: true, code_challenge: 'short', code_challenge_method: 'S256' })).status).toBe(400);
      await t.req('DELETE', `/applications/${t.app.id}/activity-instances/${live.instance_id}/participants/@me`, { token: owner.web });
    });

    it('the shelf finds an installed or authorized activity behind 200 other activity-enabled ids', async () => {
      // 200 enabled settings rows whose ids sort before every real one and name no application
      // the user has: a scan of the first 200 would never reach the owner's authorized activity.
      const db = t.server.store.database.db;
      const ids = Array.from({ length: 200 }, (_, i) => `0${String(i).padStart(5, '0')}`);
      await db.insertInto('activity_settings').values(ids.map((application_id) => ({ application_id, enabled: 1, url_mappings: '[]', supported_platforms: '["web"]', orientation: 'unlocked', updated_at: Date.now() }))).execute();
      try {
        const shelf = await t.req('GET', `/channels/${guild.voice}/activities`, { token: owner.web });
        expect(shelf.status).toBe(200);
        expect(shelf.body.map((a: { application_id: string }) => a.application_id)).toEqual([t.app.id]);
      } finally {
        await db.deleteFrom('activity_settings').where('application_id', 'in', ids).execute();
      }
    });

    it('a DM is a pc- location for its two recipients only', async () => {
      const dm = await t.req('POST', '/users/@me/channels', { token: owner.web, body: { recipient_id: alice.userId } });
      expect(dm.status).toBe(200);
      const a = await launch(owner, dm.body.id);
      expect(a.status).toBe(200);
      expect(a.body.instance.location).toEqual({ id: `pc-${dm.body.id}`, kind: 'pc', channel_id: dm.body.id });
      expect((await launch(alice, dm.body.id)).body.instance.users).toEqual([owner.userId, alice.userId]);
      expect((await launch(carol, dm.body.id)).status).toBe(403);
    });

    it('refusals: not a member, hidden or no-activities channel, activities off, other app, wrong tokens, unknown ids', async () => {
      // Carol is not in the guild.
      expect((await launch(carol, guild.voice)).body.code).toBe(50001);
      // USE_EMBEDDED_ACTIVITIES denied on the channel for @everyone.
      const denied = await t.req('PATCH', `/channels/${guild.text}`, { token: owner.web, body: { permission_overwrites: [{ id: guild.id, type: 0, deny: String(1n << 39n) }] } });
      expect(denied.status).toBe(200);
      expect((await launch(alice, guild.text)).body.code).toBe(50013);
      // Activities off: refused, and the proxy host is gone too.
      const other = await t.server.createApplication({ name: 'Plain Game' });
      expect((await launch(alice, guild.voice, other.id)).status).toBe(400);
      expect((await launch(alice, guild.voice, '123456789012345678')).body.code).toBe(10002);
      expect((await launch(alice, '123456789012345678')).body.code).toBe(10003);
      // The game's own token cannot launch (only the web app does, for its user).
      expect((await t.req('POST', `/applications/${t.app.id}/activity-instances`, { token: alice.game, body: { channel_id: guild.voice } })).status).toBe(403);
      // Bad body: 50035, nothing made.
      expect((await t.req('POST', `/applications/${t.app.id}/activity-instances`, { token: alice.web, body: { channel_id: 'x' } })).body.code).toBe(50035);

      const live = (await launch(alice, guild.voice)).body.instance;
      // Another application's bot, a user token, no token: refused; another app's id in the path: unknown.
      expect((await t.req('GET', `/applications/${t.app.id}/activity-instances/${live.instance_id}`, { token: other.botToken, bot: true })).status).toBe(403);
      expect((await t.req('GET', `/applications/${t.app.id}/activity-instances/${live.instance_id}`, { token: alice.web })).status).toBe(403);
      expect((await t.req('GET', `/applications/${t.app.id}/activity-instances/${live.instance_id}`)).status).toBe(401);
      expect((await t.req('GET', `/applications/${other.id}/activity-instances/${live.instance_id}`, { token: other.botToken, bot: true })).status).toBe(404);
      expect((await t.req('GET', `/applications/${t.app.id}/activity-instances/nope`, bot())).status).toBe(404);
    });
  });
}
