// Lobbies as launch locations (issue 17: "launching an activity in a voice channel, a DM or a
// lobby"): a member of one of the application's lobbies launches the activity there (`lobby_id`),
// the other members join the same instance, the game's backend reads its location (kind lobby);
// non-members, another application's lobby, and a body with both or neither place are refused
// with nothing made. SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityService } from '../src/activities/ActivityService.ts';
import { UrlPolicy } from '../src/config/urlPolicy.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';

afterAll(async () => {
  await dropTestSchemas();
  cleanupTempDirs();
});

for (const { name, config } of databaseConfigs()) {
  describe(`activities in lobbies (${name})`, () => {
    let t: TestServer;
    type U = { userId: string; game: string; web: string };
    let alice: U;
    let bob: U;
    let carol: U;
    let lobbyId: string;
    const bot = () => ({ token: t.app.botToken, bot: true });

    async function user(nameOf: string): Promise<U> {
      const g = await t.guest(nameOf);
      const firstParty = await t.server.store.applications.firstParty();
      return { userId: g.userId, game: g.token, web: await t.server.store.tokens.issue(g.userId, firstParty.id, ['identify'], 3600) };
    }
    const launch = (u: U, body: unknown, appId = t.app.id) => t.req('POST', `/applications/${appId}/activity-instances`, { token: u.web, body });
    const instanceCount = async () => Number((await t.server.store.database.db.selectFrom('activity_instances').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

    beforeAll(async () => {
      t = await startTestServer({ database: config(), rateLimits: false, dev: true });
      [alice, bob, carol] = [await user('Alice'), await user('Bob'), await user('Carol')];
      const lobby = await t.req('PUT', '/lobbies', { token: alice.game, body: { secret: 'arcade-room' } });
      expect(lobby.status).toBe(200);
      lobbyId = lobby.body.id;
      expect((await t.req('PUT', '/lobbies', { token: bob.game, body: { secret: 'arcade-room' } })).body.id).toBe(lobbyId);
      await new ActivityService(t.server.store, new UrlPolicy(true)).updateSettings(t.app.id, { enabled: true, url_mappings: [{ prefix: '/', target: 'http://127.0.0.1:9' }] });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('members launch and join one instance in their lobby; the backend reads its location', async () => {
      const first = await launch(alice, { lobby_id: lobbyId });
      expect(first.status).toBe(200);
      expect(first.body.instance).toEqual({ application_id: t.app.id, instance_id: expect.any(String), launch_id: expect.any(String), location: { id: `lobby-${lobbyId}`, kind: 'lobby', channel_id: lobbyId }, users: [alice.userId] });
      // No roles in a lobby: the permissions a DM gets.
      expect(first.body.permissions).toMatch(/^\d+$/);
      const second = await launch(bob, { lobby_id: lobbyId });
      expect(second.body.instance).toEqual({ ...first.body.instance, users: [alice.userId, bob.userId] });
      const read = await t.req('GET', `/applications/${t.app.id}/activity-instances/${first.body.instance.instance_id}`, bot());
      expect(read.body.location).toEqual({ id: `lobby-${lobbyId}`, kind: 'lobby', channel_id: lobbyId });
      // Leaving works as anywhere else: the last one out ends it.
      for (const u of [alice, bob]) expect((await t.req('DELETE', `/applications/${t.app.id}/activity-instances/${first.body.instance.instance_id}/participants/@me`, { token: u.web })).status).toBe(204);
      expect((await t.req('GET', `/applications/${t.app.id}/activity-instances/${first.body.instance.instance_id}`, bot())).status).toBe(404);
    });

    it('refusals: not a member, another application\'s lobby, unknown lobby, both or neither place; nothing made', async () => {
      const before = await instanceCount();
      expect((await launch(carol, { lobby_id: lobbyId })).body.code).toBe(10031);
      const other = await t.server.createApplication({ name: 'Other Game' });
      await new ActivityService(t.server.store, new UrlPolicy(true)).updateSettings(other.id, { enabled: true, url_mappings: [{ prefix: '/', target: 'http://127.0.0.1:9' }] });
      // Alice is in the lobby, but it is Test Game's: Other Game cannot launch in it.
      expect((await launch(alice, { lobby_id: lobbyId }, other.id)).body.code).toBe(10031);
      expect((await launch(alice, { lobby_id: '123456789012345678' })).body.code).toBe(10031);
      const both = await launch(alice, { lobby_id: lobbyId, channel_id: '123456789012345678' });
      expect(both.status).toBe(400);
      expect(both.body).toMatchObject({ code: 50035, errors: { channel_id: { _errors: [{ code: 'ACTIVITY_LOCATION_REQUIRED' }] } } });
      expect((await launch(alice, {})).body.code).toBe(50035);
      expect((await launch(alice, { lobby_id: 'nope' })).body.code).toBe(50035);
      // The game's own token cannot launch (only the web app does, for its user).
      expect((await t.req('POST', `/applications/${t.app.id}/activity-instances`, { token: alice.game, body: { lobby_id: lobbyId } })).status).toBe(403);
      expect(await instanceCount()).toBe(before);
    });
  });
}
