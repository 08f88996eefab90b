// Activity participation ends with the web app's Gateway session (issue 17): a browser that dies
// without leaving (its socket dropped, no pagehide request) is taken out of its instances once the
// resume grace period passes, and the others hear ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE; a clean
// close takes the last one out at once and ends the instance. The game's own sessions coming and
// going change nothing. SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityService } from '../src/activities/ActivityService.ts';
import { UrlPolicy } from '../src/config/urlPolicy.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, RawGateway, startTestServer, type TestServer } from './harness.ts';

afterAll(async () => {
  await dropTestSchemas();
  cleanupTempDirs();
});

for (const { name, config } of databaseConfigs()) {
  describe(`activity participation expiry (${name})`, () => {
    let t: TestServer;
    type U = { userId: string; game: string; web: string };
    let owner: U;
    let alice: U;
    let voice: string;
    const sockets: RawGateway[] = [];
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
    const launch = (u: U) => t.req('POST', `/applications/${t.app.id}/activity-instances`, { token: u.web, body: { channel_id: voice } });
    const gateway = async (token: string) => {
      const g = await RawGateway.open(t.server);
      sockets.push(g);
      await g.identify(token);
      return g;
    };

    beforeAll(async () => {
      // A short resume grace period: a dropped socket counts as gone after 300 ms.
      t = await startTestServer({ database: config(), rateLimits: false, dev: true, presenceGraceMs: 300 });
      [owner, alice] = [await user('Owner'), await user('Alice')];
      const g = await t.req('POST', '/guilds', { token: owner.web, body: { name: 'Arcade' } });
      const channels = (await t.req('GET', `/guilds/${g.body.id}/channels`, { token: owner.web })).body as any[];
      voice = channels.find((c) => c.type === 2).id;
      const text = channels.find((c) => c.type === 0).id;
      const inv = await t.req('POST', `/channels/${text}/invites`, { token: owner.web, body: {} });
      expect((await t.req('POST', `/invites/${inv.body.code}`, { token: alice.web })).status).toBe(200);
      await new ActivityService(t.server.store, new UrlPolicy(true)).updateSettings(t.app.id, { enabled: true, url_mappings: [{ prefix: '/', target: 'http://127.0.0.1:9' }] });
    });
    afterAll(async () => {
      for (const s of sockets) s.terminate();
      await t?.close();
    });

    it('a crashed browser leaves after the grace period; a clean close of the last one ends the instance', async () => {
      const ownerWeb = await gateway(owner.web);
      const aliceWeb = await gateway(alice.web);
      // Alice's game session (another application) is not her web app: it closing changes nothing.
      const aliceGame = await gateway(alice.game);
      const instance = (await launch(owner)).body.instance;
      expect((await launch(alice)).body.instance.users).toEqual([owner.userId, alice.userId]);

      aliceGame.ws.close(1000);
      await aliceGame.closed();
      await new Promise((r) => setTimeout(r, 700));
      expect((await t.req('GET', `/applications/${t.app.id}/activity-instances/${instance.instance_id}`, bot())).body.users).toEqual([owner.userId, alice.userId]);

      // Alice's browser dies: her socket drops without a close frame and nothing else is sent.
      ownerWeb.frames.splice(0);
      aliceWeb.terminate();
      const update = await ownerWeb.next((f) => f.t === 'ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE' && f.d.users.length === 1, 10_000);
      expect(update.d).toEqual({ application_id: t.app.id, instance_id: instance.instance_id, users: [owner.userId] });
      expect((await t.req('GET', `/applications/${t.app.id}/activity-instances/${instance.instance_id}`, bot())).body.users).toEqual([owner.userId]);

      // The owner's web app closes cleanly (session over): out at once, and the instance ends with them.
      ownerWeb.ws.close(1000);
      await ownerWeb.closed();
      const deadline = Date.now() + 10_000;
      let status = 200;
      while (status === 200 && Date.now() < deadline) {
        status = (await t.req('GET', `/applications/${t.app.id}/activity-instances/${instance.instance_id}`, bot())).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe(404);
    });

    it('a reconnect inside the grace period keeps the participant', async () => {
      const first = await gateway(alice.web);
      const instance = (await launch(alice)).body.instance;
      first.terminate();
      // Back before the grace period ends (a new session: the tracker counts sessions per user).
      await gateway(alice.web);
      await new Promise((r) => setTimeout(r, 900));
      expect((await t.req('GET', `/applications/${t.app.id}/activity-instances/${instance.instance_id}`, bot())).body.users).toEqual([alice.userId]);
    });
  });
}
