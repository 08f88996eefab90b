import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configureApplication } from '../src/accounts/accountServices.ts';
import { openDatabase } from '../src/storage/database.ts';
import { Store } from '../src/storage/Store.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas } from './harness.ts';

afterAll(async () => {
  cleanupTempDirs();
  await dropTestSchemas();
});

/**
 * SocialSettingsRepo's two per-node memories (hot on every Identify): who has played which game,
 * written at most once a minute per player and game; and application families, read again after
 * five seconds or at once after this node links an application. On SQLite and PostgreSQL.
 */
describe.each(databaseConfigs())('social settings storage on $name', ({ config }) => {
  let store: Store;
  let appId: string;
  let userId: string;

  beforeEach(async () => {
    store = new Store(await openDatabase(config()));
    appId = (await store.applications.create('Game')).id;
    userId = (await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'player-device-0001', 'Player')).user.id;
  });
  afterEach(async () => {
    await store.close();
  });

  const lastSeen = async () =>
    (await store.database.db.selectFrom('application_players').select('last_seen_at').where('application_id', '=', appId).where('user_id', '=', userId).executeTakeFirst())?.last_seen_at;

  it('markPlayed writes the row once per minute per player and game; calls meanwhile wait on that write', async () => {
    const t0 = 1_800_000_000_000;
    // Two at once (an Identify's connect and READY): one write, and both resolve after it.
    await Promise.all([store.socialSettings.markPlayed(appId, userId, t0), store.socialSettings.markPlayed(appId, userId, t0 + 1)]);
    expect(Number(await lastSeen())).toBe(t0);
    expect(await store.socialSettings.applicationsOf(userId)).toEqual([appId]);
    await store.socialSettings.markPlayed(appId, userId, t0 + 59_999);
    expect(Number(await lastSeen())).toBe(t0);
    // A minute on, the next one writes again.
    await store.socialSettings.markPlayed(appId, userId, t0 + 60_000);
    expect(Number(await lastSeen())).toBe(t0 + 60_000);
  });

  it('families are kept for a few seconds, and read again at once after this node links an application', async () => {
    const child = (await store.applications.create('Sequel')).id;
    expect(await store.socialSettings.family(child)).toEqual([child]);
    expect(await store.socialSettings.family(appId)).toEqual([appId]);
    // A write behind the repository's back is not seen while the memory is fresh...
    await store.database.db.updateTable('applications').set({ parent_id: appId }).where('id', '=', child).execute();
    expect(await store.socialSettings.family(child)).toEqual([child]);
    await store.database.db.updateTable('applications').set({ parent_id: null }).where('id', '=', child).execute();
    // ...while configureApplication, the way an operator links games, forgets it.
    await configureApplication(store, child, { parentId: appId });
    expect((await store.socialSettings.family(child)).sort()).toEqual([appId, child].sort());
    expect((await store.socialSettings.family(appId)).sort()).toEqual([appId, child].sort());
    // Callers get their own copy: changing it changes nothing kept.
    (await store.socialSettings.family(appId)).push('1');
    expect((await store.socialSettings.family(appId)).sort()).toEqual([appId, child].sort());
  });
});
