// Security review M4: the last participant leaving must not lose a launch or join that happens at
// the same moment. Leaving ends the instance only by a conditional delete (no participant left)
// under the instance's row lock; joining inserts only while the instance exists, and a launch
// that finds it gone makes a new one. Run on SQLite and on PostgreSQL (real concurrency: a pool).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityService } from '../src/activities/ActivityService.ts';
import { UrlPolicy } from '../src/config/urlPolicy.ts';
import { ActivityRepo } from '../src/storage/ActivityRepo.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';

afterAll(async () => {
  await dropTestSchemas();
  cleanupTempDirs();
});

for (const { name, config } of databaseConfigs()) {
  describe(`activity instance end vs join (${name})`, () => {
    let t: TestServer;
    let repo: ActivityRepo;
    let activities: ActivityService;
    let alice: string;
    let bob: string;
    let lobbyId: string;
    const db = () => t.server.store.database.db;
    const orphans = async () => (await db().selectFrom('activity_participants').leftJoin('activity_instances', 'activity_instances.id', 'activity_participants.instance_id').select('activity_participants.instance_id').where('activity_instances.id', 'is', null).execute()).length;
    let n = 0;
    const newInstance = () => repo.createInstance({ id: t.server.store.ids.next(), application_id: t.app.id, launch_id: t.server.store.ids.next(), location_id: `test-${++n}`, location_kind: 'pc', guild_id: null, channel_id: String(n), created_at: Date.now() });

    beforeAll(async () => {
      t = await startTestServer({ database: config(), rateLimits: false, dev: true });
      repo = new ActivityRepo(db(), t.server.store.ids, t.server.store.database.dialect === 'postgres');
      activities = new ActivityService(t.server.store, new UrlPolicy(true));
      const a = await t.guest('Alice');
      const b = await t.guest('Bob');
      [alice, bob] = [a.userId, b.userId];
      const lobby = await t.req('PUT', '/lobbies', { token: a.token, body: { secret: 'race-room' } });
      lobbyId = lobby.body.id;
      expect((await t.req('PUT', '/lobbies', { token: b.token, body: { secret: 'race-room' } })).body.id).toBe(lobbyId);
      await activities.updateSettings(t.app.id, { enabled: true, url_mappings: [{ prefix: '/', target: 'http://127.0.0.1:9' }] });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('the last leave keeps an instance someone joined meanwhile; a join after the end is refused', async () => {
      const i = await newInstance();
      expect(await repo.joinIfExists(i.id, alice, Date.now())).toBe('joined');
      expect(await repo.joinIfExists(i.id, alice, Date.now())).toBe('already');
      expect(await repo.joinIfExists(i.id, bob, Date.now())).toBe('joined');
      // Alice was counted out while Bob joined: the conditional delete leaves the instance.
      expect(await repo.leaveAndEndIfEmpty(i.id, alice)).toBe(false);
      expect(await repo.instance(i.id)).toBeDefined();
      expect(await repo.leaveAndEndIfEmpty(i.id, bob)).toBe(true);
      expect(await repo.instance(i.id)).toBeUndefined();
      // A join that arrives after the end inserts nothing (no participant of a deleted instance).
      expect(await repo.joinIfExists(i.id, bob, Date.now())).toBe('gone');
      expect(await orphans()).toBe(0);
    });

    it('concurrent last leave and join: never a participant of a deleted instance', async () => {
      for (let k = 0; k < 25; k++) {
        const i = await newInstance();
        await repo.joinIfExists(i.id, alice, Date.now());
        const [ended, joined] = await Promise.all([repo.leaveAndEndIfEmpty(i.id, alice), repo.joinIfExists(i.id, bob, Date.now())]);
        if (joined === 'joined') {
          expect(ended).toBe(false);
          expect((await repo.participants(i.id)).map((p) => p.user_id)).toEqual([bob]);
        } else {
          expect(joined).toBe('gone');
          expect(ended).toBe(true);
          expect(await repo.instance(i.id)).toBeUndefined();
        }
      }
      expect(await orphans()).toBe(0);
    });

    it('a launch racing the last leave ends in a live instance with the launcher in it', async () => {
      for (let k = 0; k < 15; k++) {
        const first = await activities.launch(t.app.id, alice, { lobby_id: lobbyId });
        const [, launched] = await Promise.all([activities.leave(t.app.id, first.instance_id, alice), activities.launch(t.app.id, bob, { lobby_id: lobbyId })]);
        const live = await activities.instance(t.app.id, launched.instance_id);
        expect(live.users).toEqual([bob]);
        await activities.leave(t.app.id, launched.instance_id, bob);
        await expect(activities.instance(t.app.id, launched.instance_id)).rejects.toThrow();
      }
      expect(await orphans()).toBe(0);
    });
  });
}
