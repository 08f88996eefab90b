// Leaving a lobby leaves its activity (issue 17): Alice and Bob, members of one of the game's
// lobbies, are in the lobby's instance; Bob leaves the lobby (the SDK's DELETE
// /lobbies/{id}/members/@me) and is out of the instance at once, and Alice's web app hears
// ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE; the game deleting the lobby takes Alice out, which ends the
// instance. Someone who only left the instance (page closed) and then leaves the lobby changes
// nothing further. SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityService } from '../src/activities/ActivityService.ts';
import { UrlPolicy } from '../src/config/urlPolicy.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, RawGateway, startTestServer, type TestServer } from './harness.ts';

afterAll(async () => {
  await dropTestSchemas();
  cleanupTempDirs();
});

for (const { name, config } of databaseConfigs()) {
  describe(`leaving a lobby leaves its activity (${name})`, () => {
    let t: TestServer;
    type U = { userId: string; game: string; web: string };
    const sockets: RawGateway[] = [];
    const bot = () => ({ token: t.app.botToken, bot: true });
    async function user(nameOf: string): Promise<U> {
      const g = await t.guest(nameOf);
      const firstParty = await t.server.store.applications.firstParty();
      return { userId: g.userId, game: g.token, web: await t.server.store.tokens.issue(g.userId, firstParty.id, ['identify'], 3600) };
    }
    const launch = (u: U, lobbyId: string) => t.req('POST', `/applications/${t.app.id}/activity-instances`, { token: u.web, body: { lobby_id: lobbyId } });
    const instanceOf = (id: string) => t.req('GET', `/applications/${t.app.id}/activity-instances/${id}`, bot());
    /** Polls (the leave runs on the bus's dispatch) until `check` holds, for up to 15 s. */
    async function eventually(check: () => Promise<boolean>): Promise<void> {
      const end = Date.now() + 15_000;
      while (!(await check())) {
        if (Date.now() > end) throw new Error('condition not reached in 15 s');
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    beforeAll(async () => {
      t = await startTestServer({ database: config(), rateLimits: false, dev: true });
      await new ActivityService(t.server.store, new UrlPolicy(true)).updateSettings(t.app.id, { enabled: true, url_mappings: [{ prefix: '/', target: 'http://127.0.0.1:9' }] });
    });
    afterAll(async () => {
      for (const s of sockets) s.terminate();
      await t?.close();
    });

    it('a member who leaves the lobby leaves the instance; deleting the lobby ends it', async () => {
      const [alice, bob] = [await user('Alice'), await user('Bob')];
      const lobby = (await t.req('PUT', '/lobbies', { token: alice.game, body: { secret: 'leave-room' } })).body.id as string;
      expect((await t.req('PUT', '/lobbies', { token: bob.game, body: { secret: 'leave-room' } })).body.id).toBe(lobby);
      const aliceWeb = await RawGateway.open(t.server);
      sockets.push(aliceWeb);
      await aliceWeb.identify(alice.web);
      const instance = (await launch(alice, lobby)).body.instance.instance_id as string;
      expect((await launch(bob, lobby)).body.instance.users).toEqual([alice.userId, bob.userId]);

      aliceWeb.frames.splice(0);
      expect((await t.req('DELETE', `/lobbies/${lobby}/members/@me`, { token: bob.game })).status).toBe(204);
      const update = await aliceWeb.next((f) => f.t === 'ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE' && f.d.users.length === 1, 15_000);
      expect(update.d).toEqual({ application_id: t.app.id, instance_id: instance, users: [alice.userId] });
      expect((await instanceOf(instance)).body.users).toEqual([alice.userId]);
      // Not a member any more: launching there again is refused.
      expect((await launch(bob, lobby)).status).toBe(404);

      // The game's backend deletes the lobby: Alice, the last one, is out and the instance ends.
      expect((await t.req('DELETE', `/lobbies/${lobby}`, bot())).status).toBe(204);
      await eventually(async () => (await instanceOf(instance)).status === 404);
    });

    it('leaving the instance first, then the lobby, changes nothing more', async () => {
      const [carol, dan] = [await user('Carol'), await user('Dan')];
      const lobby = (await t.req('PUT', '/lobbies', { token: carol.game, body: { secret: 'quiet-room' } })).body.id as string;
      expect((await t.req('PUT', '/lobbies', { token: dan.game, body: { secret: 'quiet-room' } })).body.id).toBe(lobby);
      const instance = (await launch(carol, lobby)).body.instance.instance_id as string;
      await launch(dan, lobby);
      expect((await t.req('DELETE', `/applications/${t.app.id}/activity-instances/${instance}/participants/@me`, { token: dan.web })).status).toBe(204);
      // Dan joins again and leaves again: still one participant, Carol.
      await launch(dan, lobby);
      expect((await t.req('DELETE', `/applications/${t.app.id}/activity-instances/${instance}/participants/@me`, { token: dan.web })).status).toBe(204);
      expect((await t.req('DELETE', `/lobbies/${lobby}/members/@me`, { token: dan.game })).status).toBe(204);
      await new Promise((r) => setTimeout(r, 300));
      expect((await instanceOf(instance)).body.users).toEqual([carol.userId]);
    });
  });
}
