import { afterAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * `primary_guild` on user objects (issue 10, spec User): a guild sets a tag of 1 to 4 characters
 * (and a badge), a member chooses it as their primary guild, and every user object of theirs
 * carries `primary_guild` {identity_guild_id, identity_enabled, tag, badge}: GET /users/@me, the
 * member object, USER_UPDATE on the Gateway. Refusals write nothing. On SQLite and PostgreSQL.
 */
const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const servers: TestServer[] = [];
const sockets: RawGateway[] = [];

afterAll(async () => {
  for (const s of sockets) s.terminate();
  for (const s of servers) await s.close();
  cleanupTempDirs();
  await dropTestSchemas();
});

for (const { name, config } of databaseConfigs()) {
  describe(`primary_guild (${name})`, () => {
    it('sets a guild tag, lets a member wear it, and keeps every user object in step', async () => {
      const t = await startTestServer({ database: config(), rateLimits: false });
      servers.push(t);
      const user = async (n: string) => {
        const g = await t.guest(n);
        return { userId: g.userId, token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600) };
      };
      const owner = await user('Owner');
      const alice = await user('Alice');
      const stranger = await user('Stranger');
      const as = (u: { token: string }) => ({ token: u.token });
      const guild = (await t.req('POST', '/guilds', { ...as(owner), body: { name: 'Tagged' } })).body;
      const other = (await t.req('POST', '/guilds', { ...as(stranger), body: { name: 'Elsewhere' } })).body;
      const text = ((await t.req('GET', `/guilds/${guild.id}/channels`, as(owner))).body as any[]).find((c) => c.type === 0);
      const inv = await t.req('POST', `/channels/${text.id}/invites`, { ...as(owner), body: {} });
      expect((await t.req('POST', `/invites/${inv.body.code}`, as(alice))).status).toBe(200);
      const me = async (u: { token: string }) => (await t.req('GET', '/users/@me', as(u))).body;

      // Before any choice the field is absent; a guild without a tag cannot be chosen.
      expect((await me(alice)).primary_guild).toBeUndefined();
      const noTag = await t.req('PUT', '/users/@me/primary-guild', { ...as(alice), body: { identity_guild_id: guild.id } });
      expect([noTag.status, noTag.body.code, noTag.body.errors?.identity_guild_id?._errors?.[0]?.code]).toEqual([400, 50035, 'GUILD_TAG_NOT_SET']);

      // The tag: 1 to 4 letters or digits, MANAGE_GUILD; bad ones are 50035 and write nothing.
      for (const tag of ['', 'ABCDE', 'a b', 'ü', 5]) {
        const r = await t.req('PATCH', `/guilds/${guild.id}`, { ...as(owner), body: { tag } });
        expect([r.status, r.body.code]).toEqual([400, 50035]);
      }
      const notManager = await t.req('PATCH', `/guilds/${guild.id}`, { ...as(alice), body: { tag: 'NOPE' } });
      expect([notManager.status, notManager.body.code]).toEqual([403, 50013]);
      expect((await t.req('GET', `/guilds/${guild.id}`, as(owner))).body.tag).toBeNull();
      const tagged = await t.req('PATCH', `/guilds/${guild.id}`, { ...as(owner), body: { tag: 'SL' } });
      expect(tagged.status).toBe(200);
      expect(tagged.body).toMatchObject({ tag: 'SL', badge: null });

      // Choosing: refusals first, nothing written.
      const gw = await RawGateway.open(t.server);
      sockets.push(gw);
      gw.send({ op: 2, d: { token: alice.token, intents: 1, properties: { os: 'l', browser: 'b', device: 'd' } } });
      await gw.next((f) => f.t === 'READY');
      const refusals: [unknown, number, number][] = [
        [{ identity_guild_id: other.id }, 404, 10004], // not a member
        [{ identity_guild_id: '123456789012345678' }, 404, 10004], // no such guild
        [{ identity_guild_id: 'abc' }, 400, 50035],
        [{}, 400, 50035],
        [{ identity_guild_id: guild.id, identity_enabled: 'yes' }, 400, 50035],
      ];
      for (const [body, status, code] of refusals) {
        const r = await t.req('PUT', '/users/@me/primary-guild', { ...as(alice), body });
        expect([r.status, r.body.code], JSON.stringify(body)).toEqual([status, code]);
      }
      const byBot = await t.req('PUT', '/users/@me/primary-guild', { token: t.app.botToken, bot: true, body: { identity_guild_id: guild.id } });
      expect([byBot.status, byBot.body.code]).toEqual([403, 20001]);
      const noScope = await t.req('PUT', '/users/@me/primary-guild', { token: await t.server.store.tokens.issue(alice.userId, t.app.id, ['identify'], 3600), body: { identity_guild_id: guild.id } });
      // A game's token never chooses the person's guild tag: the web app's session only.
      expect([noScope.status, noScope.body.code]).toEqual([403, 50001]);
      expect((await me(alice)).primary_guild).toBeUndefined();

      const chosen = await t.req('PUT', '/users/@me/primary-guild', { ...as(alice), body: { identity_guild_id: guild.id } });
      expect(chosen.status).toBe(200);
      const wearing = { identity_guild_id: guild.id, identity_enabled: true, tag: 'SL', badge: null };
      expect(chosen.body).toMatchObject({ id: alice.userId, primary_guild: wearing });
      expect((await me(alice)).primary_guild).toEqual(wearing);
      expect((await gw.next((f) => f.t === 'USER_UPDATE')).d.primary_guild).toEqual(wearing);
      // Others see it on the member object (and anywhere the user object appears).
      expect((await t.req('GET', `/guilds/${guild.id}/members/${alice.userId}`, as(owner))).body.user.primary_guild).toEqual(wearing);

      // The guild changes its tag and sets a badge: the wearer's objects follow.
      await t.req('PATCH', `/guilds/${guild.id}`, { ...as(owner), body: { tag: 'GG42', badge: PNG } });
      const renamed = (await me(alice)).primary_guild;
      expect(renamed).toEqual({ identity_guild_id: guild.id, identity_enabled: true, tag: 'GG42', badge: expect.stringMatching(/^[0-9a-f]{32}$/) });
      await gw.next((f) => f.t === 'USER_UPDATE' && f.d.primary_guild?.tag === 'GG42');

      // Hidden by the user: still the chosen guild, no tag shown.
      await t.req('PUT', '/users/@me/primary-guild', { ...as(alice), body: { identity_guild_id: guild.id, identity_enabled: false } });
      expect((await me(alice)).primary_guild).toEqual({ identity_guild_id: guild.id, identity_enabled: false, tag: null, badge: null });
      await t.req('PUT', '/users/@me/primary-guild', { ...as(alice), body: { identity_guild_id: guild.id, identity_enabled: true } });

      // The guild drops its tag: the system clears the identity (identity_enabled null).
      await t.req('PATCH', `/guilds/${guild.id}`, { ...as(owner), body: { tag: null } });
      expect((await me(alice)).primary_guild).toEqual({ identity_guild_id: guild.id, identity_enabled: null, tag: null, badge: null });
      // Tag back, chosen again; then Alice leaves: cleared again.
      await t.req('PATCH', `/guilds/${guild.id}`, { ...as(owner), body: { tag: 'SL' } });
      expect((await me(alice)).primary_guild.identity_enabled).toBeNull();
      expect((await t.req('PUT', '/users/@me/primary-guild', { ...as(alice), body: { identity_guild_id: guild.id } })).body.primary_guild.tag).toBe('SL');
      expect((await t.req('DELETE', `/users/@me/guilds/${guild.id}`, as(alice))).status).toBe(204);
      expect((await me(alice)).primary_guild).toEqual({ identity_guild_id: guild.id, identity_enabled: null, tag: null, badge: null });

      // None at all: identity_guild_id null.
      const none = await t.req('PUT', '/users/@me/primary-guild', { ...as(alice), body: { identity_guild_id: null } });
      expect(none.body.primary_guild).toEqual({ identity_guild_id: null, identity_enabled: false, tag: null, badge: null });
      // A member with MANAGE_GUILD (not the owner) may set the tag too.
      const role = await t.req('POST', `/guilds/${guild.id}/roles`, { ...as(owner), body: { name: 'Mgr', permissions: Permission.ManageGuild.toString() } });
      const inv2 = await t.req('POST', `/channels/${text.id}/invites`, { ...as(owner), body: {} });
      await t.req('POST', `/invites/${inv2.body.code}`, as(alice));
      await t.req('PUT', `/guilds/${guild.id}/members/${alice.userId}/roles/${role.body.id}`, as(owner));
      expect((await t.req('PATCH', `/guilds/${guild.id}`, { ...as(alice), body: { tag: 'MGR' } })).body.tag).toBe('MGR');
    });
  });
}
