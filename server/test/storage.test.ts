import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { m0020_lookup_indexes } from '../src/storage/migrations/0020_lookup_indexes.ts';
import { m0021_direct_message_indexes } from '../src/storage/migrations/0021_direct_message_indexes.ts';
import { m0022_idle_lobby_index } from '../src/storage/migrations/0022_idle_lobby_index.ts';
import { m0023_webhook_pending_index } from '../src/storage/migrations/0023_webhook_pending_index.ts';
import { m0024_subscription_entitlement_type } from '../src/storage/migrations/0024_subscription_entitlement_type.ts';
import { openDatabase } from '../src/storage/database.ts';
import { Store } from '../src/storage/Store.ts';
import type { UsersTable } from '../src/storage/schema.ts';
import { WebhookStatus } from '../src/storage/WebhookEventRepo.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer } from './harness.ts';

afterAll(async () => {
  cleanupTempDirs();
  await dropTestSchemas();
});

/** One contract suite for every storage backend (DESIGN.md convention 5). */
describe.each(databaseConfigs())('storage on $name', ({ config }) => {
  let store: Store;
  let appId: string;

  beforeEach(async () => {
    store = new Store(await openDatabase(config()));
    appId = (await store.applications.create('Contract')).id;
  });
  afterEach(async () => {
    await store.close();
  });

  it('stores applications with hashed secrets only', async () => {
    const created = await store.applications.create('Hashed');
    const row = await store.applications.get(created.id);
    expect(row).toBeDefined();
    expect(JSON.stringify(row)).not.toContain(created.botToken);
    expect(JSON.stringify(row)).not.toContain(created.clientSecret);
    expect((await store.applications.findByBotToken(created.botToken))?.id).toBe(created.id);
    expect(await store.applications.findByBotToken(created.clientSecret)).toBeUndefined();
    const bot = await store.users.get(created.botUserId);
    expect(bot?.is_bot).toBe(1);
  });

  it('creates one provisional user per external identity, even under concurrency', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'same-device', 'Pat')));
    const ids = new Set(results.map((r) => r.user.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.created).length).toBe(1);
    const other = await store.users.findOrCreateProvisional(appId, 'BOT', 'same-device', undefined);
    expect(other.user.id).not.toBe(results[0]!.user.id);
  });

  it('resolves tokens until they expire, and never stores them in the clear', async () => {
    const { user } = await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'tok-device', undefined);
    const token = await store.tokens.issue(user.id, appId, ['sdk.social_layer'], 60);
    const grant = await store.tokens.resolve(token);
    expect(grant).toMatchObject({ userId: user.id, applicationId: appId, scopes: ['sdk.social_layer'] });
    expect(await store.tokens.resolve(token, Date.now() + 61_000)).toBeUndefined();
    // A different token: its first character changed (never to itself, which 'x' would be 1 time in 64).
    expect(await store.tokens.resolve((token[0] === 'x' ? 'y' : 'x') + token.slice(1))).toBeUndefined();
    const rows = await store.database.db.selectFrom('access_tokens').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('keeps lobby secrets unique per application and rolls back a failed transaction whole', async () => {
    const { user } = await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'lobby-device', undefined);
    const lobby = await store.lobbies.transaction((tx) => store.lobbies.create(tx, { applicationId: appId, secret: 's1', metadata: { a: 'b' }, idleTimeoutSeconds: 300 }));
    await expect(store.lobbies.transaction((tx) => store.lobbies.create(tx, { applicationId: appId, secret: 's1', metadata: null, idleTimeoutSeconds: 300 }))).rejects.toThrow();
    await expect(
      store.lobbies.transaction(async (tx) => {
        await store.lobbies.upsertMember(tx, lobby.id, user.id, { metadata: { x: '1' } });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await store.lobbies.members(lobby.id)).toEqual([]);
    expect((await store.lobbies.findBySecret(appId, 's1'))?.id).toBe(lobby.id);
  });

  it('upserts members (keep, overwrite, clear) and lists a user\'s lobbies', async () => {
    const { user } = await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'member-device', undefined);
    const lobby = await store.lobbies.transaction((tx) => store.lobbies.create(tx, { applicationId: appId, secret: 's2', metadata: null, idleTimeoutSeconds: 300 }));
    const first = await store.lobbies.transaction((tx) => store.lobbies.upsertMember(tx, lobby.id, user.id, { metadata: { x: '1' }, additionalName: 'Knight' }));
    expect(first.added).toBe(true);
    const second = await store.lobbies.transaction((tx) => store.lobbies.upsertMember(tx, lobby.id, user.id, { flags: 1 }));
    expect(second.added).toBe(false);
    expect(second.row).toMatchObject({ metadata: '{"x":"1"}', flags: 1, additional_name: 'Knight' });
    const cleared = await store.lobbies.transaction((tx) => store.lobbies.upsertMember(tx, lobby.id, user.id, { additionalName: null, metadata: null }));
    expect(cleared.row).toMatchObject({ metadata: null, additional_name: null, flags: 1 });
    expect((await store.lobbies.forUser(user.id, appId)).map((l) => l.id)).toEqual([lobby.id]);
    expect(await store.lobbies.countForUser(user.id, appId)).toBe(1);
    expect(await store.lobbies.transaction((tx) => store.lobbies.removeMember(tx, lobby.id, user.id))).toBe(true);
    expect(await store.lobbies.transaction((tx) => store.lobbies.removeMember(tx, lobby.id, user.id))).toBe(false);
  });

  it('returns history newest first within the age limit, and deletes a lobby with its rows', async () => {
    const { user } = await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'history-device', undefined);
    const lobby = await store.lobbies.transaction((tx) => store.lobbies.create(tx, { applicationId: appId, secret: 's3', metadata: null, idleTimeoutSeconds: 300 }));
    await store.lobbies.transaction((tx) => store.lobbies.upsertMember(tx, lobby.id, user.id, {}));
    for (let i = 0; i < 4; i++) {
      await store.messages.insertLobbyMessage(store.database.db, { lobbyId: lobby.id, applicationId: appId, authorId: user.id, content: `m${i}`, metadata: i === 0 ? { k: 'v' } : null, additionalName: null, flags: 0 });
    }
    const history = await store.messages.lobbyHistory(lobby.id, 3, 0);
    expect(history.map((m) => m.content)).toEqual(['m3', 'm2', 'm1']);
    expect(await store.messages.lobbyHistory(lobby.id, 10, Date.now() + 1000)).toEqual([]);
    expect(Number((await store.messages.lobbyHistory(lobby.id, 10, 0))[3]!.created_at)).toBeGreaterThan(0);
    await store.lobbies.delete(lobby.id);
    expect(await store.lobbies.get(lobby.id)).toBeUndefined();
    expect(await store.messages.countLobbyMessages(lobby.id)).toBe(0);
  });

  // ---- guilds (issue 10) ----------------------------------------------------------------------

  it('stores a guild with its @everyone role, channels by position, roles and 64-bit permissions', async () => {
    const { user } = await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'guild-owner', undefined);
    const big = ((1n << 51n) | (1n << 50n) | 1024n).toString();
    const guild = await store.guilds.transaction((tx) => store.guilds.create(tx, { name: 'G', ownerId: user.id, features: ['ENHANCED_ROLE_COLORS'], tag: 'ABCD', everyonePermissions: big }));
    expect(await store.guilds.get(guild.id)).toMatchObject({ name: 'G', owner_id: user.id, tag: 'ABCD', features: '["ENHANCED_ROLE_COLORS"]' });
    const everyone = await store.guilds.role(guild.id);
    expect(everyone).toMatchObject({ guild_id: guild.id, name: '@everyone', permissions: big, position: 0 });
    const voice = await store.guilds.createChannel(store.database.db, guild.id, { type: 2, name: 'General' });
    const text = await store.guilds.createChannel(store.database.db, guild.id, { type: 0, name: 'general', permission_overwrites: JSON.stringify([{ id: guild.id, type: 0, allow: '0', deny: big }]) });
    await store.guilds.updateChannel(store.database.db, voice.id, { position: 5 });
    expect((await store.guilds.channels(guild.id)).map((c) => c.name)).toEqual(['general', 'General']);
    expect(JSON.parse((await store.guilds.channel(text.id))!.permission_overwrites)[0].deny).toBe(big);
    expect(voice.bitrate).toBe(64000);
    const role = await store.guilds.createRole(store.database.db, guild.id, { name: 'Mod', permissions: '8' });
    expect(role.position).toBe(1);
    await store.guildMembers.add(store.database.db, guild.id, user.id, [role.id]);
    expect(await store.guilds.roleMemberCounts(guild.id)).toEqual({ [role.id]: 1 });
    expect((await store.guilds.ofUser(user.id)).map((g) => g.id)).toEqual([guild.id]);
    await store.guilds.deleteRole(store.database.db, role.id);
    expect((await store.guildMembers.get(guild.id, user.id))?.roles).toEqual([]);
    await store.guilds.transaction((tx) => store.guilds.delete(tx, guild.id));
    expect(await store.guilds.get(guild.id)).toBeUndefined();
    expect(await store.guilds.channels(guild.id)).toEqual([]);
  });

  it('keeps members with roles, searches them by name prefix, bans, and prunes by tenure and roles', async () => {
    const owner = (await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'm-owner', 'Owner')).user;
    const alice = (await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'm-alice', 'Alice')).user;
    const bob = (await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'm-bob', 'Bob')).user;
    const guild = await store.guilds.transaction((tx) => store.guilds.create(tx, { name: 'M', ownerId: owner.id, everyonePermissions: '0' }));
    const role = await store.guilds.createRole(store.database.db, guild.id, { name: 'Keep', permissions: '0' });
    const old = Date.now() - 10 * 86_400_000;
    await store.guildMembers.add(store.database.db, guild.id, owner.id);
    await store.guildMembers.add(store.database.db, guild.id, alice.id, [role.id], { joined_at: old });
    await store.guildMembers.add(store.database.db, guild.id, bob.id, [], { joined_at: old });
    await expect(store.guildMembers.add(store.database.db, guild.id, bob.id)).rejects.toThrow();
    await store.guildMembers.update(store.database.db, guild.id, bob.id, { nick: 'Bobby', bio: 'hi', banner: 'b1', flags: 2 });
    expect(await store.guildMembers.get(guild.id, bob.id)).toMatchObject({ member: { nick: 'Bobby', bio: 'hi', banner: 'b1', flags: 2 }, roles: [] });
    expect((await store.guildMembers.list(guild.id, { limit: 10, query: 'ali' })).map((m) => m.user.id)).toEqual([alice.id]);
    expect((await store.guildMembers.list(guild.id, { limit: 10, query: 'BOBB' })).map((m) => m.user.id)).toEqual([bob.id]);
    expect((await store.guildMembers.list(guild.id, { limit: 10, query: '%' })).length).toBe(0);
    expect((await store.guildMembers.list(guild.id, { limit: 2 })).length).toBe(2);
    expect(await store.guildMembers.count(guild.id)).toBe(3);
    expect(await store.guildMembers.pruneCandidates(guild.id, 7, [], [owner.id])).toEqual([bob.id]);
    expect((await store.guildMembers.pruneCandidates(guild.id, 7, [role.id], [owner.id])).sort()).toEqual([alice.id, bob.id].sort());
    expect(await store.guildMembers.pruneCandidates(guild.id, 30, [role.id], [])).toEqual([]);
    await store.guilds.transaction(async (tx) => {
      await store.guildMembers.remove(tx, guild.id, bob.id);
      await store.guildMembers.addBan(tx, guild.id, bob.id, 'spam');
    });
    expect(await store.guildMembers.isMember(guild.id, bob.id)).toBe(false);
    expect(await store.guildMembers.ban(guild.id, bob.id)).toMatchObject({ reason: 'spam' });
    await store.guildMembers.removeBan(store.database.db, guild.id, bob.id);
    expect(await store.guildMembers.bans(guild.id, { limit: 10 })).toEqual([]);
  });

  it('keeps guild and application emojis apart, with their images', async () => {
    const owner = (await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'e-owner', undefined)).user;
    const guild = await store.guilds.transaction((tx) => store.guilds.create(tx, { name: 'E', ownerId: owner.id, everyonePermissions: '0' }));
    const g = await store.emojis.create(store.database.db, { guild_id: guild.id, application_id: null, name: 'wave', animated: 0, creator_id: owner.id, image: 'data:image/png;base64,AAAA', roles: '[]' });
    await store.emojis.create(store.database.db, { guild_id: null, application_id: appId, name: 'logo', animated: 1, creator_id: null, image: 'data:image/gif;base64,BBBB', roles: '[]' });
    expect((await store.emojis.ofGuild(guild.id)).map((e) => e.name)).toEqual(['wave']);
    expect(await store.emojis.count({ applicationId: appId })).toBe(1);
    await store.emojis.update(store.database.db, g.id, { name: 'hello', roles: '["1"]' });
    expect(await store.emojis.get(g.id)).toMatchObject({ name: 'hello', roles: '["1"]', image: 'data:image/png;base64,AAAA' });
    await store.guilds.transaction((tx) => store.guilds.delete(tx, guild.id));
    expect(await store.emojis.count({ guildId: guild.id })).toBe(0);
  });

  it('counts invite uses up to max_uses and keeps target users', async () => {
    const owner = (await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'i-owner', undefined)).user;
    const guild = await store.guilds.transaction((tx) => store.guilds.create(tx, { name: 'I', ownerId: owner.id, everyonePermissions: '0' }));
    const channel = await store.guilds.createChannel(store.database.db, guild.id, { type: 0, name: 'general' });
    const row = { code: 'abcDEF12', guild_id: guild.id, channel_id: channel.id, inviter_id: owner.id, max_age: 0, max_uses: 2, uses: 0, temporary: 0, role_ids: '[]', has_target_users: 0, created_at: Date.now(), expires_at: null };
    await store.guildInvites.create(store.database.db, row, ['300000000000000000', '200000000000000000', '300000000000000000']);
    expect(await store.guildInvites.targetUsers('abcDEF12')).toEqual(['200000000000000000', '300000000000000000']);
    expect((await store.guildInvites.get('abcDEF12'))?.has_target_users).toBe(1);
    expect(await store.guildInvites.isTarget('abcDEF12', '200000000000000000')).toBe(true);
    expect(await store.guildInvites.use(store.database.db, 'abcDEF12')).toBe(true);
    expect(await store.guildInvites.use(store.database.db, 'abcDEF12')).toBe(true);
    expect(await store.guildInvites.use(store.database.db, 'abcDEF12')).toBe(false);
    expect((await store.guildInvites.ofChannel(channel.id)).map((i) => i.uses)).toEqual([2]);
    await store.guilds.deleteChannel(store.database.db, channel.id);
    expect(await store.guildInvites.get('abcDEF12')).toBeUndefined();
  });

  it('keeps application profiles per external identity: upsert replaces or keeps, reads follow the identity\'s user, a rolled-back write leaves nothing, no identity no profile', async () => {
    const key = { applicationId: appId, authType: 'OIDC', externalId: 'hash-of-issuer-and-sub' };
    const data = { providerType: 'OIDC', providerId: 'https://issuer.example', providerIssuedUserId: 'sub-1', username: 'pat', avatarHash: 'https://issuer.example/p.png', metadata: null };
    // The foreign key: a profile needs its identity.
    await expect(store.applicationProfiles.upsert(key, data)).rejects.toThrow();
    const { user } = await store.users.findOrCreateProvisional(appId, 'OIDC', key.externalId, 'Pat');
    await store.applicationProfiles.upsert(key, data);
    await store.applicationProfiles.upsert(key, { ...data, username: 'kept?' }, { keepExisting: true });
    const read = async (userId: string) => ((await store.applicationProfiles.ofUsers(appId, [userId])).get(userId) ?? []).map((r) => [r.provider_issued_user_id, r.username, r.metadata]);
    expect(await read(user.id)).toEqual([['sub-1', 'pat', null]]);
    await store.applicationProfiles.upsert(key, { ...data, username: 'pat2', metadata: '{"a":1}' });
    expect(await read(user.id)).toEqual([['sub-1', 'pat2', '{"a":1}']]);
    // Another application sees nothing of it.
    const other = (await store.applications.create('Other')).id;
    expect((await store.applicationProfiles.ofUsers(other, [user.id])).size).toBe(0);
    // In a transaction that fails, the write is gone with it.
    await expect(
      store.database.db.transaction().execute(async (tx) => {
        await store.applicationProfiles.upsert(key, { ...data, username: 'rolled back' }, { db: tx });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await read(user.id)).toEqual([['sub-1', 'pat2', '{"a":1}']]);
    // The identity moves to another user (a merge): the profile follows; deleting the user takes identity and profile.
    const { user: second } = await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'profile-device', undefined);
    await store.database.db.updateTable('external_identities').set({ user_id: second.id }).where('external_id', '=', key.externalId).execute();
    expect(await read(user.id)).toEqual([]);
    expect(await read(second.id)).toEqual([['sub-1', 'pat2', '{"a":1}']]);
    await store.database.db.deleteFrom('users').where('id', '=', second.id).execute();
    expect(await store.database.db.selectFrom('application_profiles').selectAll().where('application_id', '=', appId).execute()).toEqual([]);
  });

  it('answers the lookups migration 0020 indexes: a username in any case, a recent rejection among many requests, an application by its bot user', async () => {
    const db = store.database.db;
    const [a, b] = [
      (await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'lookup-a', 'A')).user,
      (await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'lookup-b', 'B')).user,
    ];
    expect((await store.relationships.userByUsername(a.username.toUpperCase()))?.id).toBe(a.id);
    expect(await store.relationships.userByUsername(`${a.username}x`)).toBeUndefined();
    // Many requests from b to a, one rejected at 5,000: found since 5,000, not since 5,001.
    for (let i = 0; i < 30; i++) await store.relationships.logRequest(db, b.id, a.id, appId, 1_000 + i);
    await store.relationships.markRejected(db, b.id, a.id, 5_000);
    await store.relationships.logRequest(db, b.id, a.id, appId, 6_000);
    expect([await store.relationships.rejectedSince(b.id, a.id, 5_000), await store.relationships.rejectedSince(b.id, a.id, 5_001), await store.relationships.rejectedSince(a.id, b.id, 0)]).toEqual([true, false, false]);
    const app = await store.applications.create('Bot lookup');
    expect((await db.selectFrom('applications').select('id').where('bot_user_id', '=', app.botUserId).execute()).map((r) => r.id)).toEqual([app.id]);
    if (config().dialect !== 'sqlite') {
      // PostgreSQL's planner scans tables this small whatever the indexes; that they exist is what is checked.
      const names = (await sql<{ indexname: string }>`select indexname from pg_indexes where schemaname = current_schema()`.execute(db)).rows.map((r) => r.indexname);
      expect(names).toEqual(expect.arrayContaining(['users_username_lower', 'friend_request_log_rejections', 'applications_bot_user']));
      expect(names).not.toContain('friend_request_log_pair');
      return;
    }
    // SQLite's plans: each lookup searches an index, none scans its table.
    const plan = async (q: ReturnType<typeof sql>) => (await sql<{ detail: string }>`explain query plan ${q}`.execute(db)).rows.map((r) => r.detail).join('; ');
    expect(await plan(sql`select * from users where lower(username) = ${'x'}`)).toMatch(/SEARCH users USING INDEX users_username_lower/);
    expect(await plan(sql`select id from friend_request_log where recipient_id = ${'1'} and sender_id = ${'2'} and rejected_at >= ${0} limit 1`)).toMatch(/SEARCH friend_request_log USING (COVERING )?INDEX friend_request_log_rejections \(recipient_id=\? AND sender_id=\? AND rejected_at>\?\)/);
    expect(await plan(sql`select * from applications where bot_user_id = ${'1'}`)).toMatch(/SEARCH applications USING INDEX applications_bot_user/);
  });

  it('runs the index migrations 0020 to 0023 again over themselves, as a cut-short SQLite run must (its DDL is not in a transaction)', async () => {
    const db = store.database.db as unknown as Kysely<any>;
    for (const m of [m0020_lookup_indexes, m0021_direct_message_indexes, m0022_idle_lobby_index, m0023_webhook_pending_index]) await expect(m.up(db)).resolves.toBeUndefined();
    expect(await store.relationships.userByUsername('nobody-by-this-name')).toBeUndefined();
  });

  it('migration 0024 makes a subscription\'s PURCHASE entitlements APPLICATION_SUBSCRIPTION, leaves the rest, and runs again over itself', async () => {
    const db = store.database.db;
    const user = (await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', 'ent-0024', 'ent')).user;
    const sku = await store.skus.create({ application_id: appId, type: 5, name: 'Pass 0024', slug: 'pass-0024', flags: 4, price: 1, billing_period_days: 30 });
    const subscription = async (id: string) => {
      await store.subscriptions.insert(db, { id, application_id: appId, user_id: user.id, sku_id: sku.id, renewal_sku_ids: '[]', status: 0, canceled_at: null, current_period_start: 1, current_period_end: 2, created_at: 1, updated_at: 1 });
      return id;
    };
    const row = (type: number, subscription: string | null) => ({ application_id: appId, sku_id: sku.id, user_id: user.id, guild_id: null, type, starts_at: 1, ends_at: null, test: 0, subscription_id: subscription });
    const old = await store.entitlements.create(db, row(1, await subscription(store.ids.next())), 1);
    const bought = await store.entitlements.create(db, row(1, null), 1);
    const tested = await store.entitlements.create(db, row(4, await subscription(store.ids.next())), 1);
    for (let i = 0; i < 2; i++) await m0024_subscription_entitlement_type.up(db as unknown as Kysely<any>);
    const typeOf = async (id: string) => (await db.selectFrom('entitlements').select('type').where('id', '=', id).executeTakeFirstOrThrow()).type;
    expect([await typeOf(old.id), await typeOf(bought.id), await typeOf(tested.id)]).toEqual([8, 1, 4]);
  });

  it('answers the direct-message lookups migration 0021 indexes: whether one user wrote to another, and a user\'s conversations', async () => {
    const db = store.database.db;
    const [a, b, c] = (await Promise.all(['dm-a', 'dm-b', 'dm-c'].map(async (k) => (await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', k, k)).user))) as [UsersTable, UsersTable, UsersTable];
    const send = async (from: string, to: string) => {
      const channel = await store.directMessages.openChannel(db, from, to);
      return (await store.directMessages.insert(db, { channelId: channel.id, applicationId: appId, authorId: from, recipientId: to, content: 'hi', metadata: null })).id;
    };
    for (let i = 0; i < 5; i++) await send(a.id, b.id);
    const toC = await send(c.id, a.id);
    const lastAB = await send(b.id, a.id);
    expect([
      await store.directMessages.hasSent(a.id, b.id, [appId]),
      await store.directMessages.hasSent(b.id, a.id, [appId]),
      await store.directMessages.hasSent(a.id, c.id, [appId]),
      await store.directMessages.hasSent(a.id, b.id, ['1']),
    ]).toEqual([true, true, false, false]);
    expect(await store.directMessages.summaries(a.id, [appId])).toEqual([
      { userId: b.id, lastMessageId: lastAB },
      { userId: c.id, lastMessageId: toC },
    ]);
    const names = async () =>
      config().dialect === 'sqlite'
        ? (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'direct_messages'`.execute(db)).rows.map((r) => r.name)
        : (await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename = 'direct_messages'`.execute(db)).rows.map((r) => r.name);
    expect(await names()).toEqual(expect.arrayContaining(['direct_messages_author_recipient', 'direct_messages_recipient']));
    // PostgreSQL's planner scans tables this small whatever the indexes; SQLite's plans show each
    // read searching an index (the repository's queries, built the same way here), none scanning.
    if (config().dialect !== 'sqlite') return;
    const plan = async (q: { compile(): { sql: string; parameters: readonly unknown[] } }) => {
      const compiled = q.compile();
      return (await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]))).rows.map((r) => r.detail).join('; ');
    };
    const wrote = plan(db.selectFrom('direct_messages').select('id').where('author_id', '=', a.id).where('recipient_id', '=', b.id).where('application_id', 'in', [appId, appId]).limit(1));
    expect(await wrote).toMatch(/SEARCH direct_messages USING INDEX direct_messages_author_recipient \(author_id=\? AND recipient_id=\?\)/);
    const conversations = await plan(
      db.selectFrom('direct_messages').select(['author_id', 'recipient_id', 'id']).where((eb) => eb.or([eb('author_id', '=', a.id), eb('recipient_id', '=', a.id)])).where('application_id', 'in', [appId]),
    );
    expect(conversations).toMatch(/MULTI-INDEX OR/);
    expect(conversations).toMatch(/INDEX direct_messages_author_recipient \(author_id=\?\)/);
    expect(conversations).toMatch(/INDEX direct_messages_recipient \(recipient_id=\?\)/);
    expect(conversations).not.toMatch(/SCAN direct_messages/);
  });

  it('deletes an idle lobby only if it is still idle as it goes, and answers who was in it then', async () => {
    const users = await Promise.all(['idle-u', 'idle-v'].map(async (k) => (await store.users.findOrCreateProvisional(appId, 'DEVICE_ID', k, k)).user.id));
    const [u, v] = users as [string, string];
    const idleLobby = async (secret: string) => {
      const lobby = await store.lobbies.transaction((tx) => store.lobbies.create(tx, { applicationId: appId, secret, metadata: null, idleTimeoutSeconds: 5 }));
      await store.lobbies.transaction((tx) => store.lobbies.upsertMember(tx, lobby.id, u, {}));
      await store.lobbies.setIdleSince(lobby.id, Date.now() - 6000);
      return lobby.id;
    };
    const now = () => Date.now();
    // The clock stopped since the sweep's query (a member connected), or restarted: kept.
    const stopped = await idleLobby('idle-stopped');
    await store.lobbies.setIdleSince(stopped, null);
    expect(await store.lobbies.deleteIfIdle(stopped, now(), () => true)).toBeNull();
    await store.lobbies.setIdleSince(stopped, Date.now());
    expect(await store.lobbies.deleteIfIdle(stopped, now(), () => true)).toBeNull();
    expect(await store.lobbies.get(stopped)).toBeDefined();
    // The sweep's own check of the members (someone connected): kept, with what it was shown.
    const shown: string[][] = [];
    const connected = await idleLobby('idle-connected');
    expect(await store.lobbies.deleteIfIdle(connected, now(), (ids) => (shown.push(ids), false))).toBeNull();
    expect(shown).toEqual([[u]]);
    expect(await store.lobbies.memberIds(connected)).toEqual([u]);
    // Still idle: deleted with its members and messages, and they are answered.
    const gone = await idleLobby('idle-gone');
    expect(await store.lobbies.deleteIfIdle(gone, now(), () => true)).toEqual([u]);
    expect(await store.lobbies.get(gone)).toBeUndefined();
    expect(await store.lobbies.memberIds(gone)).toEqual([]);
    expect(await store.lobbies.deleteIfIdle(gone, now(), () => true)).toBeNull();
    if (config().dialect !== 'postgres') return;
    // PostgreSQL runs transactions side by side: a join still open when the sweep deletes makes
    // the delete wait for it, and the joiner is among the members answered (told LOBBY_DELETE).
    // Read without the lock, the delete cascaded the joiner's row away untold.
    const racing = await idleLobby('idle-racing');
    let commitJoin!: () => void;
    const joinOpen = new Promise<void>((resolve) => {
      void store.lobbies.transaction(async (tx) => {
        await store.lobbies.upsertMember(tx, racing, v, {});
        resolve();
        await new Promise<void>((r) => (commitJoin = r));
      });
    });
    await joinOpen;
    const deleting = store.lobbies.deleteIfIdle(racing, now(), () => true);
    await new Promise((r) => setTimeout(r, 200));
    commitJoin();
    expect((await deleting)?.sort()).toEqual([u, v].sort());
    expect(await store.lobbies.get(racing)).toBeUndefined();
  });

  it('reads an application\'s webhook events still to send past its skipped ones, by the index that holds only those (migration 0023)', async () => {
    const db = store.database.db;
    await store.webhookEvents.saveSettings(appId, { url: 'https://hooks.example/in', status: WebhookStatus.Enabled, types: ['LOBBY_MESSAGE_CREATE'] });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await db.transaction().execute((tx) => store.webhookEvents.record(tx, appId, 'LOBBY_MESSAGE_CREATE', { n: i })))!);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    // Most are skipped (the application is not subscribed), two are still to send.
    for (const id of ids) if (id !== ids[3] && id !== ids[9]) await store.webhookEvents.markSkipped(id);
    expect((await store.webhookEvents.nextBatch(appId, 10)).map((e) => e.id)).toEqual([ids[3], ids[9]]);
    expect((await store.webhookEvents.takeBatch(appId, 1, 42)).map((e) => e.id)).toEqual([ids[3]]);
    if (config().dialect !== 'sqlite') return;
    const plan = async (q: { compile(): { sql: string; parameters: readonly unknown[] } }) => {
      const compiled = q.compile();
      return (await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]))).rows.map((r) => r.detail).join('; ');
    };
    // The worker's two reads (WebhookEventRepo.takeBatch's selection and claimApplications' exists), built the same way.
    const toSend = /INDEX webhook_events_app_to_send \(application_id=\? AND delivered_at=\? AND skipped_at=\?\)/;
    expect(await plan(db.selectFrom('webhook_events').select('id').where('application_id', '=', appId).where('delivered_at', 'is', null).where('skipped_at', 'is', null).orderBy('id').limit(10))).toMatch(toSend);
    expect(
      await plan(
        db
          .selectFrom('webhook_settings as s')
          .select('s.application_id')
          .where((eb) => eb.exists(eb.selectFrom('webhook_events as e').select(sql`1`.as('one')).whereRef('e.application_id', '=', 's.application_id').where('e.delivered_at', 'is', null).where('e.skipped_at', 'is', null))),
      ),
    ).toMatch(toSend);
  });

  it('finds lobbies whose idle timeout ran out', async () => {
    const lobby = await store.lobbies.transaction((tx) => store.lobbies.create(tx, { applicationId: appId, secret: 's4', metadata: null, idleTimeoutSeconds: 5 }));
    await store.lobbies.setIdleSince(lobby.id, Date.now() - 4000);
    expect((await store.lobbies.idleExpired(Date.now())).map((l) => l.id)).not.toContain(lobby.id);
    await store.lobbies.setIdleSince(lobby.id, Date.now() - 6000);
    expect((await store.lobbies.idleExpired(Date.now())).map((l) => l.id)).toContain(lobby.id);
    await store.lobbies.setIdleSince(lobby.id, null);
    expect((await store.lobbies.idleExpired(Date.now())).map((l) => l.id)).not.toContain(lobby.id);
  });

  it('finds idle lobbies in SQL: each by its own timeout, longest idle first, a batch at a time, linked ones left out', async () => {
    const now = Date.now();
    const make = async (secret: string, timeoutSeconds: number, idleForMs: number) => {
      const lobby = await store.lobbies.transaction((tx) => store.lobbies.create(tx, { applicationId: appId, secret, metadata: null, idleTimeoutSeconds: timeoutSeconds }));
      await store.lobbies.setIdleSince(lobby.id, now - idleForMs);
      return lobby.id;
    };
    const oldest = await make('batch-oldest', 60, 300_000);
    const older = await make('batch-older', 60, 200_000);
    const old = await make('batch-old', 5, 100_000);
    await make('batch-long-timeout', 3600, 300_000);
    const linked = await make('batch-linked', 5, 400_000);
    await store.database.db.insertInto('lobby_channel_links').values({ lobby_id: linked, channel_id: '1', guild_id: '1', application_id: appId, linked_by: '1', created_at: now }).execute();
    expect((await store.lobbies.idleExpired(now)).map((l) => l.id)).toEqual([oldest, older, old]);
    expect((await store.lobbies.idleExpired(now, 2)).map((l) => l.id)).toEqual([oldest, older]);
  });

  it('stopIdleClock clears a running idle clock and leaves a stopped one stopped', async () => {
    const lobby = await store.lobbies.transaction((tx) => store.lobbies.create(tx, { applicationId: appId, secret: 's5', metadata: null, idleTimeoutSeconds: 5 }));
    const idleSince = async () => {
      const v = (await store.lobbies.get(lobby.id))!.idle_since;
      return v === null ? null : Number(v);
    };
    expect(await idleSince()).not.toBeNull();
    await store.lobbies.stopIdleClock(lobby.id);
    expect(await idleSince()).toBeNull();
    await store.lobbies.stopIdleClock(lobby.id);
    expect(await idleSince()).toBeNull();
    await store.lobbies.setIdleSince(lobby.id, 1_000);
    await store.lobbies.stopIdleClock(lobby.id);
    expect(await idleSince()).toBeNull();
  });
});

describe.each(databaseConfigs())('the server on $name', ({ config }) => {
  it('runs the lobby flow end to end', async () => {
    const t = await startTestServer({ database: config() });
    try {
      const a = await t.guest('A');
      const b = await t.guest('B');
      const lobby = (await t.req('PUT', '/lobbies', { token: a.token, body: { secret: 'e2e', lobby_metadata: { m: '1' } } })).body;
      expect((await t.req('PUT', '/lobbies', { token: b.token, body: { secret: 'e2e' } })).body.id).toBe(lobby.id);
      await t.req('POST', `/lobbies/${lobby.id}/messages`, { token: b.token, body: { content: 'hi from b' } });
      const h = await t.req('GET', `/lobbies/${lobby.id}/messages`, { token: a.token });
      expect(h.body.map((m: any) => m.content)).toEqual(['hi from b']);
      expect(h.body[0].author.id).toBe(b.userId);
    } finally {
      await t.close();
    }
  });
});
