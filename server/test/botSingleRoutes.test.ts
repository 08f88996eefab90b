import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, webToken, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { PageSession, linkAccount } from './oauthHelpers.ts';

/**
 * Single routes a bot developer reaches for first, on SQLite and PostgreSQL: Get User, Get
 * Current Bot Application Information (/oauth2/applications/@me), Get and Edit Application by ID,
 * List Voice Regions and List Guild Voice Regions, Delete Own Reaction at its own path, Add Guild
 * Member with a `guilds.join` token, and Crosspost Message in an announcement channel.
 */
let t: TestServer;
let owner: { token: string; userId: string };
let guildId: string;
let botUserId: string;
const bot = () => ({ token: t.app.botToken, bot: true });

afterAll(async () => {
  await dropTestSchemas();
});

describe.each(databaseConfigs())('bot single routes on $name', ({ config }) => {
  beforeAll(async () => {
    t = await startTestServer({ rateLimits: false, database: config() });
    const o = await t.guest('Owner');
    owner = { token: await webToken(t, o.userId), userId: o.userId };
    const s = guildServicesFor(t.server.store, undefined as never);
    guildId = (await s.guilds.createGuild(owner.userId, { name: 'Single Routes' })).id;
    await s.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages | Permission.ReadMessageHistory | Permission.AddReactions | Permission.CreateInstantInvite | Permission.ManageNicknames | Permission.ManageRoles);
    botUserId = (await t.server.store.applications.get(t.app.id))!.bot_user_id;
  });
  afterAll(async () => {
    await t.close();
    cleanupTempDirs();
  });

  it('GET /users/{id}: the public User object, 10013 for an unknown ID', async () => {
    const res = await t.req('GET', `/users/${owner.userId}`, bot());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: owner.userId, username: expect.any(String), global_name: 'Owner', avatar: null, discriminator: '0', bot: false,
      public_flags: 0, flags: 0, banner: null, accent_color: null, avatar_decoration_data: null, collectibles: null, primary_guild: null,
    });
    expect((await t.req('GET', `/users/${botUserId}`, bot())).body.bot).toBe(true);
    // The web app may read profiles too; a bad or unknown ID is 10013.
    expect((await t.req('GET', `/users/${botUserId}`, { token: owner.token })).status).toBe(200);
    for (const id of ['123456789012345678', 'nope']) {
      const missing = await t.req('GET', `/users/${id}`, bot());
      expect([missing.status, missing.body]).toEqual([404, { code: 10013, message: 'Unknown User' }]);
    }
  });

  it('GET /oauth2/applications/@me and GET/PATCH /applications/{id}: the bot\'s own application only', async () => {
    const me = (await t.req('GET', '/applications/@me', bot())).body;
    expect((await t.req('GET', '/oauth2/applications/@me', bot())).body).toEqual(me);
    expect((await t.req('GET', `/applications/${t.app.id}`, bot())).body).toEqual(me);
    // The public object's required fields, the bot as a public User.
    expect(me).toMatchObject({ role_connections_verification_url: null, approximate_user_authorization_count: 0, explicit_content_filter: 0, eligible_oauth2_scopes: [], bot: { id: botUserId, public_flags: 0, flags: 0, primary_guild: null } });
    expect(me).not.toHaveProperty('summary');
    expect(me.bot).not.toHaveProperty('is_provisional');
    const patched = await t.req('PATCH', `/applications/${t.app.id}`, { ...bot(), body: { description: 'Edited by ID', tags: ['arcade'] } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: t.app.id, description: 'Edited by ID', tags: ['arcade'] });
    expect((await t.server.store.applications.get(t.app.id))!.description).toBe('Edited by ID');
    const other = await t.server.createApplication({ name: 'Other Game' });
    for (const method of ['GET', 'PATCH']) {
      const res = await t.req(method, `/applications/${other.id}`, { ...bot(), ...(method === 'PATCH' ? { body: { description: 'hijack' } } : {}) });
      expect([res.status, res.body.code]).toEqual([404, 10002]);
    }
    expect((await t.server.store.applications.get(other.id))!.description ?? '').toBe('');
    // A person's token is not the application's.
    expect((await t.req('GET', '/oauth2/applications/@me', { token: owner.token })).status).toBe(403);
  });

  it('GET /voice/regions and GET /guilds/{id}/regions: the one automatic region; a non-member gets 50001 or 10004', async () => {
    const regions = [{ id: 'automatic', name: 'Automatic', custom: false, deprecated: false, optimal: true }];
    expect((await t.req('GET', '/voice/regions', bot())).body).toEqual(regions);
    expect((await t.req('GET', `/guilds/${guildId}/regions`, bot())).body).toEqual(regions);
    const stranger = await t.guest('Stranger');
    const res = await t.req('GET', `/guilds/${guildId}/regions`, { token: await webToken(t, stranger.userId) });
    expect(res.status).toBeGreaterThanOrEqual(403);
    expect([50001, 10004]).toContain(res.body.code);
  });

  it('DELETE /channels/{id}/messages/{id}/reactions/{emoji}/@me removes the bot\'s own reaction', async () => {
    const textId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
    const message = (await t.req('POST', `/channels/${textId}/messages`, { token: owner.token, body: { content: 'react to me' } })).body;
    const emoji = encodeURIComponent('👍');
    expect((await t.req('PUT', `/channels/${textId}/messages/${message.id}/reactions/${emoji}/@me`, bot())).status).toBe(204);
    expect((await t.req('GET', `/channels/${textId}/messages/${message.id}/reactions/${emoji}`, bot())).body.map((u: { id: string }) => u.id)).toEqual([botUserId]);
    expect((await t.req('DELETE', `/channels/${textId}/messages/${message.id}/reactions/${emoji}/@me`, bot())).status).toBe(204);
    expect((await t.req('GET', `/channels/${textId}/messages/${message.id}/reactions/${emoji}`, bot())).body).toEqual([]);
  });

  describe('PUT /guilds/{id}/members/{user_id} (guilds.join)', () => {
    it('adds the user with a guilds.join token of the bot\'s application: 201 with the member, then 204', async () => {
      const joiner = await t.guest('Joiner');
      const token = await t.server.store.tokens.issue(joiner.userId, t.app.id, ['identify', 'guilds.join'], 3600);
      const gw = await RawGateway.open(t.server);
      await gw.identify(owner.token, 1 << 1);
      // A role below the bot's own (the owner orders them), so the bot may hand it out.
      const role = (await t.req('POST', `/guilds/${guildId}/roles`, { token: owner.token, body: { name: 'Newcomer' } })).body;
      const botRole = (await t.req('GET', `/guilds/${guildId}/roles`, { token: owner.token })).body.find((r: { tags?: { bot_id?: string } }) => r.tags?.bot_id === botUserId);
      expect((await t.req('PATCH', `/guilds/${guildId}/roles`, { token: owner.token, body: [{ id: botRole.id, position: 10 }, { id: role.id, position: 1 }] })).status).toBe(200);
      const added = await t.req('PUT', `/guilds/${guildId}/members/${joiner.userId}`, { ...bot(), body: { access_token: token, nick: 'Fresh', roles: [role.id], flags: 1 << 2 } });
      expect([added.status, added.body?.code]).toEqual([201, undefined]);
      expect(added.body).toMatchObject({ user: { id: joiner.userId }, nick: 'Fresh', roles: [role.id], flags: 1 << 2 });
      await gw.next((f) => f.t === 'GUILD_MEMBER_ADD' && f.d.user.id === joiner.userId && f.d.guild_id === guildId);
      expect(await t.server.store.guildMembers.isMember(guildId, joiner.userId)).toBe(true);
      const again = await t.req('PUT', `/guilds/${guildId}/members/${joiner.userId}`, { ...bot(), body: { access_token: token, nick: 'Changed' } });
      expect(again.status).toBe(204);
      expect(again.body).toBeUndefined();
      expect((await t.server.store.guildMembers.get(guildId, joiner.userId))!.member.nick).toBe('Fresh');
      gw.terminate();
    });

    it('takes the token a person granted through the consent page (scope `identify guilds.join`)', async () => {
      const redirect = 'http://127.0.0.1/callback';
      await t.server.configureApplication(t.app.id, { redirectUris: [redirect] });
      const person = new PageSession(t.server.url);
      await person.signUp(`joiner${Date.now()}`);
      const granted = await linkAccount(t, person, redirect, {}, 'identify guilds.join');
      expect(granted.status).toBe(200);
      expect(granted.body.scope.split(' ')).toContain('guilds.join');
      const userId = (await t.req('GET', '/users/@me', { token: granted.body.access_token })).body.id;
      const added = await t.req('PUT', `/guilds/${guildId}/members/${userId}`, { ...bot(), body: { access_token: granted.body.access_token } });
      expect([added.status, added.body.user.id]).toEqual([201, userId]);
    });

    it('refuses a token without guilds.join (50026), another user\'s or application\'s token (50025), a banned user (40007), a person\'s credential', async () => {
      const joiner = await t.guest('Joiner 2');
      const noScope = await t.server.store.tokens.issue(joiner.userId, t.app.id, ['identify'], 3600);
      const res = await t.req('PUT', `/guilds/${guildId}/members/${joiner.userId}`, { ...bot(), body: { access_token: noScope } });
      expect([res.status, res.body.code]).toEqual([403, 50026]);
      const other = await t.server.createApplication({ name: 'Other' });
      const otherApp = await t.server.store.tokens.issue(joiner.userId, other.id, ['guilds.join'], 3600);
      expect((await t.req('PUT', `/guilds/${guildId}/members/${joiner.userId}`, { ...bot(), body: { access_token: otherApp } })).body.code).toBe(50025);
      const own = await t.server.store.tokens.issue(joiner.userId, t.app.id, ['guilds.join'], 3600);
      expect((await t.req('PUT', `/guilds/${guildId}/members/${owner.userId}`, { ...bot(), body: { access_token: own } })).body.code).toBe(50025);
      expect((await t.req('PUT', `/guilds/${guildId}/members/${joiner.userId}`, { ...bot(), body: {} })).body.code).toBe(50035);
      expect((await t.req('PUT', `/guilds/${guildId}/members/${joiner.userId}`, { ...bot(), body: { access_token: own, mute: true } })).body.code).toBe(50013);
      expect((await t.req('PUT', `/guilds/${guildId}/members/${joiner.userId}`, { ...bot(), body: { access_token: own, flags: 1 } })).body.errors.flags._errors[0].code).toBe('MEMBER_FLAGS_INVALID');
      // The owner's new role sits above the bot's: not the bot's to give.
      const high = (await t.req('POST', `/guilds/${guildId}/roles`, { token: owner.token, body: { name: 'Staff' } })).body;
      expect((await t.req('PATCH', `/guilds/${guildId}/roles`, { token: owner.token, body: [{ id: high.id, position: 20 }] })).status).toBe(200);
      expect((await t.req('PUT', `/guilds/${guildId}/members/${joiner.userId}`, { ...bot(), body: { access_token: own, roles: [high.id] } })).body.code).toBe(50013);
      await t.req('PUT', `/guilds/${guildId}/bans/${joiner.userId}`, { token: owner.token });
      expect((await t.req('PUT', `/guilds/${guildId}/members/${joiner.userId}`, { ...bot(), body: { access_token: own } })).body.code).toBe(40007);
      expect((await t.req('PUT', `/guilds/${guildId}/members/${joiner.userId}`, { token: owner.token, body: { access_token: own } })).status).toBe(403);
      expect(await t.server.store.guildMembers.isMember(guildId, joiner.userId)).toBe(false);
    });
  });

  describe('POST /channels/{id}/messages/{id}/crosspost', () => {
    it('publishes a message of an announcement channel: CROSSPOSTED flag, MESSAGE_UPDATE; a second time is 40033', async () => {
      const news = await t.req('POST', `/guilds/${guildId}/channels`, { token: owner.token, body: { name: 'News', type: 5 } });
      expect(news.status).toBe(201);
      expect(news.body).toMatchObject({ type: 5, name: 'news' });
      const message = (await t.req('POST', `/channels/${news.body.id}/messages`, { ...bot(), body: { content: 'patch notes' } })).body;
      const gw = await RawGateway.open(t.server);
      await gw.identify(owner.token, (1 << 0) | (1 << 9) | (1 << 15));
      const res = await t.req('POST', `/channels/${news.body.id}/messages/${message.id}/crosspost`, bot());
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: message.id, content: 'patch notes', flags: 1 });
      await gw.next((f) => f.t === 'MESSAGE_UPDATE' && f.d.id === message.id && f.d.flags === 1);
      expect((await t.req('GET', `/channels/${news.body.id}/messages/${message.id}`, { token: owner.token })).body.flags).toBe(1);
      const again = await t.req('POST', `/channels/${news.body.id}/messages/${message.id}/crosspost`, bot());
      expect([again.status, again.body]).toEqual([400, { code: 40033, message: 'This message has already been crossposted.' }]);
      gw.terminate();
    });

    it('refuses a text channel\'s message (50024), someone else\'s message without MANAGE_MESSAGES (50013), an unknown message (10008)', async () => {
      const textId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
      const inText = (await t.req('POST', `/channels/${textId}/messages`, { ...bot(), body: { content: 'not news' } })).body;
      expect((await t.req('POST', `/channels/${textId}/messages/${inText.id}/crosspost`, bot())).body.code).toBe(50024);
      const newsId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 5)!.id;
      const owners = (await t.req('POST', `/channels/${newsId}/messages`, { token: owner.token, body: { content: 'by the owner' } })).body;
      expect((await t.req('POST', `/channels/${newsId}/messages/${owners.id}/crosspost`, bot())).body.code).toBe(50013);
      expect((await t.req('POST', `/channels/${newsId}/messages/123456789012345678/crosspost`, bot())).body.code).toBe(10008);
      expect((await t.server.store.database.db.selectFrom('channel_messages').select('flags').where('id', '=', owners.id).executeTakeFirstOrThrow()).flags).toBe(0);
    });
  });
});
