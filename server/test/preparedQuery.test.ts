import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/storage/database.ts';
import { PreparedQuery } from '../src/storage/preparedQuery.ts';
import { Store } from '../src/storage/Store.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas } from './harness.ts';

afterAll(async () => {
  cleanupTempDirs();
  await dropTestSchemas();
});

/**
 * PreparedQuery (storage/preparedQuery.ts): compiled once per database, run with each call's
 * arguments in place of the markers it was built with, in or out of a transaction, on SQLite and
 * PostgreSQL. Also the repos that use it (token, user, lobby, roster reads).
 */
describe.each(databaseConfigs())('prepared queries on $name', ({ config }) => {
  let store: Store;
  let appId: string;

  beforeEach(async () => {
    store = new Store(await openDatabase(config()));
    appId = (await store.applications.create('Game')).id;
  });
  afterEach(async () => {
    await store.close();
  });

  const player = async (n: number) => (await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', `prepared-device-${n}`, `P${n}`)).user;

  it('answers each call with its own arguments, constants kept, several arguments in their places', async () => {
    const db = store.database.db;
    const users = [await player(1), await player(2), await player(3)];
    const byId = new PreparedQuery(1, (k, id: string) => k.selectFrom('users').select(['id', 'username']).where('id', '=', id));
    for (const u of [...users].reverse()) expect((await byId.first(db, db, u.id))?.id).toBe(u.id);
    expect(await byId.first(db, db, '1')).toBeUndefined();
    // A constant between two arguments, the arguments given in the other order than built.
    const two = new PreparedQuery(2, (k, b: string, a: string) =>
      k.selectFrom('users').select('id').where('is_provisional', '=', 1).where((w) => w.or([w('id', '=', a), w('id', '=', b)])).orderBy('id'));
    const rows = await two.all(db, db, users[2]!.id, users[0]!.id);
    expect(rows.map((r) => r.id)).toEqual([users[0]!.id, users[2]!.id].sort());
    expect((await two.all(db, db, users[1]!.id, '1')).map((r) => r.id)).toEqual([users[1]!.id]);
  });

  it('runs inside a transaction on its connection: sees its writes, and not once rolled back', async () => {
    const db = store.database.db;
    const u = await player(4);
    const nameOf = new PreparedQuery(1, (k, id: string) => k.selectFrom('users').select('global_name').where('id', '=', id));
    await expect(
      db.transaction().execute(async (tx) => {
        await tx.updateTable('users').set({ global_name: 'Inside' }).where('id', '=', u.id).execute();
        expect((await nameOf.first(db, tx, u.id))?.global_name).toBe('Inside');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await nameOf.first(db, db, u.id))?.global_name).toBe('P4');
  });

  it('refuses a query whose argument is not a bound parameter, at its first use', async () => {
    const db = store.database.db;
    const ignoring = new PreparedQuery(1, (k, _id: string) => k.selectFrom('users').select('id'));
    await expect(ignoring.all(db, db, 'x')).rejects.toThrow(/argument 0 is not a bound parameter/);
  });

  it('guild IDs of a user for Identify: numeric order (shorter first), at most the limit, as the paged list has them', async () => {
    const db = store.database.db;
    const u = await player(7);
    const other = await player(8);
    const made = await store.guilds.create(db, { name: 'G', ownerId: u.id, everyonePermissions: '0' });
    // Same row under IDs of other lengths, so text order and numeric order differ.
    for (const id of ['9', '10', '100000000000000000000'.slice(0, 19)]) await db.insertInto('guilds').values({ ...made, id }).execute();
    for (const id of [made.id, '9', '10', '1000000000000000000']) await store.guildMembers.add(db, id, u.id);
    await store.guildMembers.add(db, '10', other.id);
    const numeric = ['9', '10', '1000000000000000000', made.id].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    expect(await store.guilds.idsOfUser(u.id, 2500)).toEqual(numeric);
    expect(await store.guilds.idsOfUser(u.id, 2)).toEqual(numeric.slice(0, 2));
    expect((await store.guilds.ofUser(u.id, { limit: 2500 })).map((g) => g.id)).toEqual(numeric);
    expect(await store.guilds.idsOfUser(other.id, 2500)).toEqual(['10']);
    expect(await store.guilds.idsOfUser('1', 2500)).toEqual([]);
  });

  it('the repos that use it: token, user, lobby and roster reads', async () => {
    const a = await player(5);
    const b = await player(6);
    const token = await store.tokens.issue(b.id, appId, ['identify', 'lobbies.write'], 60);
    expect(await store.tokens.resolve(token)).toMatchObject({ userId: b.id, applicationId: appId, scopes: ['identify', 'lobbies.write'] });
    expect(await store.tokens.resolve(`${token}x`)).toBeUndefined();
    expect(await store.tokens.resolve(token, Date.now() + 61_000)).toBeUndefined();
    expect((await store.users.get(a.id))?.username).toBe(a.username);
    expect(await store.users.get('2')).toBeUndefined();
    const lobby = await store.lobbies.create(store.database.db, { applicationId: appId, secret: 'prepared', metadata: null, idleTimeoutSeconds: 300 });
    await store.lobbies.upsertMember(store.database.db, lobby.id, a.id, { additionalName: 'Ay' });
    await store.lobbies.upsertMember(store.database.db, lobby.id, b.id, {});
    expect((await store.lobbies.get(lobby.id))?.secret).toBe('prepared');
    expect(await store.lobbies.get('3')).toBeUndefined();
    const roster = await store.lobbies.roster(lobby.id);
    expect(roster.map((m) => [m.user_id, m.additional_name]).sort()).toEqual([[a.id, 'Ay'], [b.id, null]].sort());
  });
});
