import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/storage/database.ts';
import { PreparedQuery } from '../src/storage/preparedQuery.ts';
import { MAX_COMPILED_LIST, PreparedListQuery } from '../src/storage/preparedListQuery.ts';
import { Store } from '../src/storage/Store.ts';
import { shareLobby } from '../src/social/messagingPolicy.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas } from './harness.ts';

afterAll(async () => {
  cleanupTempDirs();
  await dropTestSchemas();
});

/**
 * PreparedQuery (storage/preparedQuery.ts): compiled once per database, run with each call's
 * arguments in place of the markers it was built with, in or out of a transaction, on SQLite and
 * PostgreSQL, as row objects or as arrays. Also the repos that use it (token, user, lobby, member reads).
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

  it('the repos that use it: token, user, lobby and member reads', async () => {
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
    expect((await store.lobbies.memberIds(lobby.id)).sort()).toEqual([a.id, b.id].sort());
    expect(await store.lobbies.memberIds('3')).toEqual([]);
    // Read as arrays and mapped by position: every field lands in its own place.
    const members = await store.lobbies.membersWithUsers(lobby.id);
    expect(members.map((m) => m.member.user_id)).toEqual([a.id, b.id]);
    expect(members[0]).toMatchObject({
      member: { lobby_id: lobby.id, user_id: a.id, metadata: null, flags: 0, additional_name: 'Ay' },
      user: { id: a.id, username: a.username, global_name: 'P5', avatar: null, is_bot: 0, is_provisional: 1, primary_guild_id: null },
    });
    expect(Number(members[0]!.member.joined_at)).toBeGreaterThan(0);
    expect(Number(members[0]!.user!.created_at)).toBe(Number(a.created_at));
    expect(await store.lobbies.memberWithUser(lobby.id, b.id)).toEqual(members[1]);
    expect(await store.lobbies.memberWithUser(lobby.id, '4')).toBeUndefined();
  });

  it('counts the rows a write changed: one matched, none matched', async () => {
    const db = store.database.db;
    const u = await player(7);
    const rename = new PreparedQuery(2, (k, id: string, name: string) => k.updateTable('users').set({ global_name: name }).where('id', '=', id));
    expect(await rename.run(db, db, u.id, 'Renamed')).toBe(1);
    expect(await rename.run(db, db, '1', 'Nobody')).toBe(0);
    expect((await store.users.get(u.id))?.global_name).toBe('Renamed');
  });

  it('the reads and writes of every Identify: relationships, friends and their games, lobbies, status, played-with, invites, profiles, the application', async () => {
    const db = store.database.db;
    const other = (await store.applications.create('Other')).id;
    const [a, b, c] = [await player(8), await player(9), await player(10)];
    const rel = (user: string, otherId: string, scope: string, type: number, since: number, k: typeof db = db) =>
      store.relationships.set(k, { user_id: user, other_id: otherId, application_id: scope, type, is_spam: 0, since });
    await rel(a.id, b.id, '0', 1, 2); // platform friends
    await rel(a.id, c.id, other, 1, 1); // game friends in the other application only
    await rel(a.id, c.id, appId, 2, 3); // blocked in this one
    expect((await store.relationships.listFor(a.id, appId)).map((r) => [r.other_id, r.application_id, r.type])).toEqual([[b.id, '0', 1], [c.id, appId, 2]]);
    expect((await store.relationships.listFor(a.id, other)).map((r) => r.other_id)).toEqual([c.id, b.id]);
    await db.transaction().execute(async (tx) => {
      await rel(a.id, b.id, appId, 4, 4, tx);
      expect(await store.relationships.listFor(a.id, appId, tx)).toHaveLength(3);
      await tx.deleteFrom('relationships').where('user_id', '=', a.id).where('application_id', '=', appId).where('other_id', '=', b.id).execute();
    });
    expect(await store.relationships.friendIds(a.id, appId)).toEqual([b.id]);
    expect((await store.relationships.friendIds(a.id, other)).sort()).toEqual([b.id, c.id].sort());

    // Played-with: the first mark inserts, a later one (past the node's interval) touches the row.
    await store.socialSettings.markPlayed(appId, b.id, 1_000);
    await store.socialSettings.markPlayed(other, c.id, 1_000);
    await store.socialSettings.markPlayed(other, c.id, 1_000 + 61_000);
    expect(await store.socialSettings.applicationsOf(c.id)).toEqual([other]);
    const seen = await db.selectFrom('application_players').select(['first_seen_at', 'last_seen_at']).where('user_id', '=', c.id).executeTakeFirstOrThrow();
    expect([Number(seen.first_seen_at), Number(seen.last_seen_at)]).toEqual([1_000, 62_000]);
    // A platform friend's sessions are wherever they played; a game friend's only in that game.
    const sessions = (await store.relationships.friendSessions(a.id)).map((f) => `${f.friendId}@${f.applicationId}`).sort();
    expect(sessions).toEqual([`${b.id}@${appId}`, `${c.id}@${other}`].sort());

    expect(await store.socialSettings.chosenStatus(a.id)).toBeUndefined();
    await store.socialSettings.setChosenStatus(a.id, 'dnd');
    expect(await store.socialSettings.chosenStatus(a.id)).toBe('dnd');

    const lobby = await store.lobbies.create(db, { applicationId: appId, secret: 'identify', metadata: null, idleTimeoutSeconds: 300 });
    await store.lobbies.create(db, { applicationId: other, secret: 'elsewhere', metadata: null, idleTimeoutSeconds: 300 });
    await store.lobbies.upsertMember(db, lobby.id, a.id, {});
    expect((await store.lobbies.forUser(a.id, appId)).map((l) => l.id)).toEqual([lobby.id]);
    expect(await store.lobbies.forUser(a.id, other)).toEqual([]);

    expect((await store.applications.get(appId))?.name).toBe('Game');
    expect(await store.applications.get('5')).toBeUndefined();

    // Invites from one application (prepared) and from a family (built each time) agree.
    const channel = await store.directMessages.openChannel(db, b.id, a.id);
    const invite = async (app: string, at: number) => {
      const row = await store.invites.insert(db, { application_id: app, sender_id: b.id, recipient_id: a.id, channel_id: channel.id, type: 1, party_id: 'p', session_id: 's', content: `at ${at}`, cover_image: null });
      await db.updateTable('activity_invites').set({ created_at: at }).where('id', '=', row.id).execute();
      return row.id;
    };
    const first = await invite(appId, 1_000);
    const second = await invite(other, 2_000);
    const third = await invite(appId, 3_000);
    expect((await store.invites.received(a.id, [appId], 0)).map((i) => i.id)).toEqual([third, first]);
    expect((await store.invites.received(a.id, [appId, other], 0)).map((i) => i.id)).toEqual([third, second, first]);
    expect((await store.invites.received(a.id, [appId], 1_001)).map((i) => i.id)).toEqual([third]);

    // One user's profiles (prepared) are the rows a read of several users gives for them.
    for (const [n, u] of [[1, a], [2, b]] as const) {
      await store.applicationProfiles.upsert({ applicationId: appId, authType: 'DEVICE_ID', externalId: `prepared-device-${n === 1 ? 8 : 9}` }, {
        providerType: 'device', providerId: null, providerIssuedUserId: `issued-${u.id}`, username: `name-${n}`, avatarHash: null, metadata: null,
      });
    }
    const one = await store.applicationProfiles.ofUsers(appId, [a.id]);
    const both = await store.applicationProfiles.ofUsers(appId, [a.id, b.id, a.id]);
    expect(one.get(a.id)?.map((r) => r.username)).toEqual(['name-1']);
    expect(one.get(a.id)).toEqual(both.get(a.id));
    expect(both.get(b.id)?.map((r) => r.provider_issued_user_id)).toEqual([`issued-${b.id}`]);
    expect((await store.applicationProfiles.ofUsers(other, [a.id])).size).toBe(0);
  });

  it('reads rows as arrays in the select\'s order and a plucked column, with arguments and constants in place', async () => {
    const db = store.database.db;
    const users = [await player(9), await player(10)];
    const q = new PreparedQuery(1, (k, id: string) => k.selectFrom('users').select(['username', 'id', 'is_provisional']).where('is_provisional', '=', 1).where('id', '=', id));
    expect(await q.rows(db, db, users[1]!.id)).toEqual([[users[1]!.username, users[1]!.id, 1]]);
    expect(await q.column(db, db, users[0]!.id)).toEqual([users[0]!.username]);
    expect(await q.rows(db, db, '5')).toEqual([]);
    // Both modes of one query side by side, and in a transaction.
    await db.transaction().execute(async (tx) => {
      await tx.updateTable('users').set({ username: 'renamed' }).where('id', '=', users[0]!.id).execute();
      expect(await q.column(db, tx, users[0]!.id)).toEqual(['renamed']);
      expect(await q.rows(db, tx, users[0]!.id)).toEqual([['renamed', users[0]!.id, 1]]);
    });
  });

  it('an array read outside a transaction never sees another request\'s uncommitted writes', async () => {
    const db = store.database.db;
    const u = await player(11);
    const v = await player(12);
    const lobby = await store.lobbies.create(db, { applicationId: appId, secret: 'arrays', metadata: null, idleTimeoutSeconds: 300 });
    await store.lobbies.upsertMember(db, lobby.id, u.id, {});
    let outside: Promise<string[]> | undefined;
    let outsideWithUsers: Promise<unknown[]> | undefined;
    await expect(
      db.transaction().execute(async (tx) => {
        await store.lobbies.upsertMember(tx, lobby.id, v.id, {});
        // On SQLite these wait for the transaction's lock (one connection); on PostgreSQL they
        // run on another connection. Either way the member added here must not show.
        outside = store.lobbies.memberIds(lobby.id);
        outsideWithUsers = store.lobbies.membersWithUsers(lobby.id);
        await new Promise((r) => setTimeout(r, 30));
        expect((await store.lobbies.memberIds(lobby.id, tx)).sort()).toEqual([u.id, v.id].sort());
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await outside).toEqual([u.id]);
    expect(await outsideWithUsers).toHaveLength(1);
  });

  it('a list argument: each length answers the rows the query built for that list answers, padded forms adding none', async () => {
    const db = store.database.db;
    // 300 users in one insert: more than the longest compiled list, so the built form runs too.
    const ids = Array.from({ length: 300 }, (_, i) => String(900_000_000_000_000_000n + BigInt(i)));
    await db.insertInto('users').values(ids.map((id, i) => ({ id, username: `list-${i}`, global_name: i % 3 === 0 ? null : `L${i}`, avatar: null, is_provisional: i % 2, is_bot: 0, created_at: i }))).execute();
    const built = (list: readonly string[], provisional: number) =>
      db.selectFrom('users').select(['id', 'username']).where('id', 'in', list).where('is_provisional', '=', provisional).orderBy('created_at').execute();
    const q = new PreparedListQuery(1, (k, list: readonly string[], provisional: number) =>
      k.selectFrom('users').select(['id', 'username']).where('id', 'in', list).where('is_provisional', '=', provisional).orderBy('created_at'));
    for (const n of [1, 2, 3, 4, 5, 7, 8, 9, 31, 64, 100, MAX_COMPILED_LIST, MAX_COMPILED_LIST + 1, 300]) {
      // Every third ID from the end, so lists of different lengths overlap and end on different rows.
      const list = Array.from({ length: n }, (_, i) => ids[(299 - 3 * i + 900) % 300]!);
      for (const provisional of [0, 1]) expect(await q.all(db, db, list, provisional), `${n} items, provisional ${provisional}`).toEqual(await built(list, provisional));
    }
    // Repeats in the caller's list, an unknown ID, and the padding (a 3-item list runs as 4) give each row once.
    const repeated = [ids[1]!, ids[1]!, '1', ids[3]!, ids[1]!];
    expect((await q.all(db, db, repeated, 1)).map((r) => r.id)).toEqual([ids[1], ids[3]]);
    expect((await q.all(db, db, [ids[3]!, '1', '2'], 1)).map((r) => r.id)).toEqual([ids[3]]);
    // In a transaction: its own writes show, and the same compiled form runs outside it after.
    await db.transaction().execute(async (tx) => {
      await tx.updateTable('users').set({ username: 'inside' }).where('id', '=', ids[5]!).execute();
      expect((await q.all(db, tx, [ids[5]!, ids[7]!, ids[9]!], 1)).map((r) => r.username)).toEqual(['inside', 'list-7', 'list-9']);
    });
    await expect(q.all(db, db, [], 1)).rejects.toThrow(/list is empty/);
  });

  it('the repos\' list reads give for one item what they give for it among many (users); an empty list reads nothing', async () => {
    const db = store.database.db;
    const [a, b] = [await player(13), await player(14)];
    const one = await store.users.getMany([a.id]);
    const many = await store.users.getMany([b.id, a.id, a.id, '1']);
    expect([...one.keys()]).toEqual([a.id]);
    expect(many.get(a.id)).toEqual(one.get(a.id));
    expect([...many.keys()].sort()).toEqual([a.id, b.id].sort());
    expect((await store.users.getMany([])).size).toBe(0);
    expect(await store.invites.received(a.id, [], 0)).toEqual([]);
  });

  it('the reads and writes of a DM send: blocks either way, friendship in scope, a shared lobby, the recipient writing first, the pair\'s channel, the message', async () => {
    const db = store.database.db;
    const other = (await store.applications.create('Other')).id;
    const [a, b, c] = [await player(15), await player(16), await player(17)];
    const rel = (user: string, otherId: string, scope: string, type: number) =>
      store.relationships.set(db, { user_id: user, other_id: otherId, application_id: scope, type, is_spam: 0, since: 1 });
    expect(await store.relationships.blockedEitherWay(a.id, b.id)).toBe(false);
    await rel(b.id, a.id, '0', 2);
    expect([await store.relationships.blockedEitherWay(a.id, b.id), await store.relationships.blockedEitherWay(b.id, a.id)]).toEqual([true, true]);
    expect(await store.relationships.blockedEitherWay(a.id, c.id)).toBe(false);
    // A block in one game only is not a platform block.
    await rel(a.id, c.id, appId, 2);
    expect(await store.relationships.blockedEitherWay(a.id, c.id)).toBe(false);
    await rel(a.id, c.id, other, 1);
    expect([await store.relationships.areFriends(a.id, c.id, other), await store.relationships.areFriends(a.id, c.id, appId)]).toEqual([true, false]);
    await rel(a.id, c.id, '0', 1);
    expect(await store.relationships.areFriends(a.id, c.id, appId)).toBe(true);

    // A shared lobby counts in the family given, not outside it.
    const lobby = await store.lobbies.create(db, { applicationId: other, secret: 'dm-path', metadata: null, idleTimeoutSeconds: 300 });
    await store.lobbies.upsertMember(db, lobby.id, a.id, {});
    expect(await shareLobby(store, a.id, c.id, [appId, other])).toBe(false);
    await store.lobbies.upsertMember(db, lobby.id, c.id, {});
    expect([await shareLobby(store, a.id, c.id, [appId, other]), await shareLobby(store, c.id, a.id, [other]), await shareLobby(store, a.id, c.id, [appId]), await shareLobby(store, a.id, c.id, [])]).toEqual([true, true, false, false]);

    // The pair's channel is one whichever way it is asked; messages go in whole; one sent is enough.
    const channel = await store.directMessages.openChannel(db, c.id, a.id);
    expect((await store.directMessages.channelBetween(a.id, c.id))?.id).toBe(channel.id);
    expect((await store.directMessages.openChannel(db, a.id, c.id)).id).toBe(channel.id);
    expect(await store.directMessages.hasSent(c.id, a.id, [appId])).toBe(false);
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push(await store.directMessages.insert(db, { channelId: channel.id, applicationId: appId, authorId: c.id, recipientId: a.id, content: `m${i}`, metadata: i === 0 ? { k: 'v' } : null }));
    const stored = await store.directMessages.get(sent[0]!.id);
    expect({ ...stored, created_at: Number(stored!.created_at) }).toEqual(sent[0]);
    expect([await store.directMessages.hasSent(c.id, a.id, [appId]), await store.directMessages.hasSent(c.id, a.id, [other, appId]), await store.directMessages.hasSent(c.id, a.id, [other]), await store.directMessages.hasSent(a.id, c.id, [appId]), await store.directMessages.hasSent(c.id, a.id, [])]).toEqual([true, true, false, false, false]);
    // However many the pair has, the check reads one row (it read every one of them once).
    for (let i = 0; i < 20; i++) await store.directMessages.insert(db, { channelId: channel.id, applicationId: appId, authorId: c.id, recipientId: a.id, content: `more ${i}`, metadata: null });
    const rowsRead: number[] = [];
    const repo = store.directMessages as unknown as { db: typeof db };
    repo.db = db.withPlugin({ transformQuery: (q) => q.node, transformResult: async (r) => (rowsRead.push(r.result.rows.length), r.result) });
    try {
      expect(await store.directMessages.hasSent(c.id, a.id, [appId])).toBe(true);
    } finally {
      repo.db = db;
    }
    expect(rowsRead).toEqual([1]);
  });

  it('refuses an array read on a Kysely bound to one connection, which would wait for itself', async () => {
    const db = store.database.db;
    const q = new PreparedQuery(1, (k, id: string) => k.selectFrom('users').select('id').where('id', '=', id));
    await expect(db.connection().execute((conn) => q.rows(db, conn, '1'))).rejects.toThrow(/root database or in one of its transactions/);
  });
});
