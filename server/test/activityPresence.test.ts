// SET_ACTIVITY as presence (issue 17): an activity's SET_ACTIVITY becomes the user's rich presence
// in that application (checked as UpdateRichPresence), which friends in the application see as
// PRESENCE_UPDATE with the application_id; a running activity shows as played even before it sets
// one; leaving the activity (or its expiry) clears it. Only participants, only the web app's token.
// SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityService } from '../src/activities/ActivityService.ts';
import { UrlPolicy } from '../src/config/urlPolicy.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, RawGateway, startTestServer, type TestServer } from './harness.ts';

afterAll(async () => {
  await dropTestSchemas();
  cleanupTempDirs();
});

for (const { name, config } of databaseConfigs()) {
  describe(`activity presence (${name})`, () => {
    let t: TestServer;
    type U = { userId: string; game: string; web: string };
    let alice: U;
    let bob: U;
    let carol: U;
    let dm: string;
    const sockets: RawGateway[] = [];

    async function user(nameOf: string): Promise<U> {
      const g = await t.guest(nameOf);
      const firstParty = await t.server.store.applications.firstParty();
      return { userId: g.userId, game: g.token, web: await t.server.store.tokens.issue(g.userId, firstParty.id, ['identify', 'guilds'], 3600) };
    }
    const gateway = async (token: string) => {
      const g = await RawGateway.open(t.server);
      sockets.push(g);
      await g.identify(token);
      return g;
    };
    const path = (instanceId: string) => `/applications/${t.app.id}/activity-instances/${instanceId}/activity`;

    beforeAll(async () => {
      t = await startTestServer({ database: config(), rateLimits: false, dev: true, presenceGraceMs: 0 });
      [alice, bob, carol] = [await user('Alice'), await user('Bob'), await user('Carol')];
      expect((await t.req('PUT', `/users/@me/relationships/${bob.userId}`, { token: alice.game, body: {} })).status).toBe(204);
      expect((await t.req('PUT', `/users/@me/relationships/${alice.userId}?type=3`, { token: bob.game, body: {} })).status).toBe(204);
      dm = (await t.req('POST', '/users/@me/channels', { token: alice.web, body: { recipient_id: bob.userId } })).body.id;
      await new ActivityService(t.server.store, new UrlPolicy(true)).updateSettings(t.app.id, { enabled: true, url_mappings: [{ prefix: '/', target: 'http://127.0.0.1:9' }] });
    });
    afterAll(async () => {
      for (const s of sockets) s.terminate();
      await t?.close();
    });

    it('friends in the application see the activity, its SET_ACTIVITY, and its end', async () => {
      // Bob plays the game (a session of the application); Alice has only the web app open.
      const bobGame = await gateway(bob.game);
      await gateway(alice.web);
      const aliceIn = (pred: (d: any) => boolean) => bobGame.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === alice.userId && pred(f.d), 10_000);
      const launched = await t.req('POST', `/applications/${t.app.id}/activity-instances`, { token: alice.web, body: { channel_id: dm } });
      expect(launched.status).toBe(200);
      const instanceId = launched.body.instance.instance_id;
      // Running the activity is playing the game: "Playing Test Game" before any SET_ACTIVITY.
      const playing = await aliceIn((d) => d.activities.length === 1);
      expect(playing.d.activities).toEqual([{ name: 'Test Game', type: 0, application_id: t.app.id, parent_application_id: null }]);

      const set = await t.req('PUT', path(instanceId), { token: alice.web, body: { type: 0, state: 'In the lobby', details: 'Round 2', timestamps: { start: 1_700_000_000 }, party: { id: 'p1', size: [1, 4] }, secrets: { join: 'secret-1' } } });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({ name: 'Test Game', type: 0, application_id: t.app.id, state: 'In the lobby', details: 'Round 2', timestamps: { start: 1_700_000_000_000 }, party: { id: 'p1', size: [1, 4] }, secrets: { join: 'secret-1' } });
      const rich = await aliceIn((d) => d.activities[0]?.state === 'In the lobby');
      expect(rich.d.activities[0]).toMatchObject({ application_id: t.app.id, details: 'Round 2', party: { id: 'p1', size: [1, 4] } });
      // Friends never see the join secret.
      expect(rich.d.activities[0].secrets).toBeUndefined();

      // Bad input: 50035 at the field, nothing changed; not a participant, or not the web app's token: refused.
      const bad = await t.req('PUT', path(instanceId), { token: alice.web, body: { state: 'x'.repeat(200) } });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe(50035);
      expect((await t.req('PUT', path(instanceId), { token: carol.web, body: { state: 'Intruder' } })).status).toBe(403);
      expect((await t.req('PUT', path(instanceId), { token: alice.game, body: { state: 'Game token' } })).status).toBe(403);
      expect((await t.req('PUT', path('123456789012345678'), { token: alice.web, body: { state: 'Nowhere' } })).status).toBe(404);

      // SET_ACTIVITY null clears the rich presence: back to "Playing".
      expect((await t.req('DELETE', path(instanceId), { token: alice.web })).status).toBe(204);
      await aliceIn((d) => d.activities.length === 1 && d.activities[0].state === undefined);

      // Set again, then the activity closes: the game no longer shows for Alice at all.
      expect((await t.req('PUT', path(instanceId), { token: alice.web, body: { state: 'Back again' } })).status).toBe(200);
      await aliceIn((d) => d.activities[0]?.state === 'Back again');
      expect((await t.req('DELETE', `/applications/${t.app.id}/activity-instances/${instanceId}/participants/@me`, { token: alice.web })).status).toBe(204);
      const ended = await aliceIn((d) => d.activities.length === 0);
      expect(ended.d.status).toBe('online');
    });

    it('a crashed web app ends the activity presence with its participation', async () => {
      const bobGame = await gateway(bob.game);
      const aliceWeb = await gateway(alice.web);
      const instanceId = (await t.req('POST', `/applications/${t.app.id}/activity-instances`, { token: alice.web, body: { channel_id: dm } })).body.instance.instance_id;
      expect((await t.req('PUT', path(instanceId), { token: alice.web, body: { state: 'Crashing soon' } })).status).toBe(200);
      await bobGame.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === alice.userId && f.d.activities[0]?.state === 'Crashing soon', 10_000);
      bobGame.frames.splice(0);
      // Alice has two web app sockets open (the first test's and this one): both die.
      for (const s of sockets) if (s !== bobGame) s.terminate();
      void aliceWeb;
      const gone = await bobGame.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === alice.userId && f.d.activities.length === 0, 10_000);
      expect(gone.d.status).toBe('offline');
      await new Promise((r) => setTimeout(r, 300));
      expect((await t.req('GET', `/applications/${t.app.id}/activity-instances/${instanceId}`, { token: t.app.botToken, bot: true })).status).toBe(404);
    });
  });
}
