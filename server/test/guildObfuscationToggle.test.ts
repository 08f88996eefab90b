// The developer portal's channel obfuscation toggle (issue 10): saved through the portal's form
// (session cookie, CSRF, Origin), it makes the application's bot sessions get channels they
// cannot view as ___hidden___ without Identify capability 1<<15; off again, they do not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { PageSession } from './oauthHelpers.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Intent } from '../src/guilds/GuildGateway.ts';
import { Permission } from '../src/guilds/permissions.ts';

for (const backend of databaseConfigs()) {
  describe(`portal channel obfuscation toggle (${backend.name})`, () => {
    let t: TestServer;
    const sockets: RawGateway[] = [];

    beforeAll(async () => {
      t = await startTestServer({ rateLimits: false, database: backend.config(), accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
    });
    afterAll(async () => {
      for (const s of sockets) s.terminate();
      await t.close();
      await dropTestSchemas();
      cleanupTempDirs();
    });

    /** A bot session without any capability bit; resolves with the guild's GUILD_CREATE. */
    async function botGuildCreate(botToken: string, guildId: string): Promise<{ gw: RawGateway; guild: any }> {
      const gw = await RawGateway.open(t.server);
      sockets.push(gw);
      gw.send({ op: 2, d: { token: botToken, intents: Intent.Guilds, capabilities: 0, properties: { os: 'linux', browser: 'test', device: 'test' } } });
      await gw.next((f) => f.t === 'READY');
      return { gw, guild: (await gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guildId)).d };
    }

    it('turns obfuscated channels on for bot sessions without the capability bit, and off again', async () => {
      const dev = new PageSession(t.server.url);
      await dev.signUp('obfuscator');
      const csrf = PageSession.csrf((await dev.get('/developers')).text);
      const created = await dev.submit('/developers/applications', { csrf, name: 'Hidden Things' });
      expect([created.postStatus, created.status]).toEqual([303, 200]);
      const pick = (id: string) => new RegExp(`<code class="copy" id="${id}">([^<]+)</code>`).exec(created.text)![1]!;
      const appId = pick('client-id');
      const botToken = pick('bot-token');

      // A guild with the bot installed without VIEW_CHANNEL, and a channel @everyone may not view.
      const owner = await t.guest('Owner');
      const ownerToken = await t.server.store.tokens.issue(owner.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600);
      const guild = (await t.req('POST', '/guilds', { token: ownerToken, body: { name: 'Toggle' } })).body;
      await guildServicesFor(t.server.store, undefined as never).installBot(guild.id, appId, Permission.SendMessages);
      const secret = await t.req('POST', `/guilds/${guild.id}/channels`, {
        token: ownerToken,
        body: { name: 'secret plans', topic: 'the plan', permission_overwrites: [{ id: guild.id, type: 0, deny: Permission.ViewChannel.toString() }] },
      });
      expect(secret.status).toBe(201);

      // Off (the default): the channel is left out.
      const before = await botGuildCreate(botToken, guild.id);
      expect(before.guild.channels.map((c: any) => c.id)).not.toContain(secret.body.id);

      // The toggle's form refuses a cross-site post and writes nothing.
      const crossSite = await dev.request('POST', `/developers/applications/${appId}/gateway`, { csrf, channel_obfuscation: '1' }, { origin: 'https://evil.example' });
      expect(crossSite.status).toBe(403);
      expect((await t.server.store.applications.get(appId))!.channel_obfuscation).toBe(0);

      const on = await dev.post(`/developers/applications/${appId}/gateway`, { csrf, channel_obfuscation: '1' });
      expect(on.status).toBeLessThan(400);
      expect((await dev.get(`/developers/applications/${appId}`)).text).toMatch(/id="channel-obfuscation" value="1" checked/);

      const withToggle = await botGuildCreate(botToken, guild.id);
      const hidden = withToggle.guild.channels.find((c: any) => c.id === secret.body.id);
      expect(hidden).toMatchObject({ name: '___hidden___', topic: null, permission_overwrites: [{ id: guild.id, type: 0, allow: '0', deny: Permission.ViewChannel.toString() }] });
      expect(hidden.flags & (1 << 17)).toBe(1 << 17);
      // Live events too: a new hidden channel reaches the session obfuscated.
      const later = await t.req('POST', `/guilds/${guild.id}/channels`, {
        token: ownerToken,
        body: { name: 'later secret', permission_overwrites: [{ id: guild.id, type: 0, deny: Permission.ViewChannel.toString() }] },
      });
      expect((await withToggle.gw.next((f) => f.t === 'CHANNEL_CREATE' && f.d.id === later.body.id)).d.name).toBe('___hidden___');
      // The session opened before the toggle keeps what it identified with.
      expect(before.gw.dispatches('CHANNEL_CREATE').map((f) => f.d.id)).not.toContain(later.body.id);

      // Off again: an unticked checkbox is absent from the form.
      const off = await dev.post(`/developers/applications/${appId}/gateway`, { csrf });
      expect(off.status).toBeLessThan(400);
      expect((await t.server.store.applications.get(appId))!.channel_obfuscation).toBe(0);
      const after = await botGuildCreate(botToken, guild.id);
      expect(after.guild.channels.map((c: any) => c.id)).not.toContain(secret.body.id);
      expect(after.guild.channels.map((c: any) => c.id)).not.toContain(later.body.id);
    });

    it('leaves user sessions of the application alone', async () => {
      // The toggle is for bot sessions: a person signed in through the app sees no hidden channels.
      await t.server.store.applications.update(t.app.id, { channelObfuscation: true });
      const owner = await t.guest('Owner2');
      const ownerToken = await t.server.store.tokens.issue(owner.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600);
      const member = await t.guest('Member');
      const memberToken = await t.server.store.tokens.issue(member.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds', 'guilds.join'], 3600);
      const guild = (await t.req('POST', '/guilds', { token: ownerToken, body: { name: 'People' } })).body;
      const secret = await t.req('POST', `/guilds/${guild.id}/channels`, {
        token: ownerToken,
        body: { name: 'mods only', permission_overwrites: [{ id: guild.id, type: 0, deny: Permission.ViewChannel.toString() }] },
      });
      const invite = await t.req('POST', `/channels/${(await t.req('GET', `/guilds/${guild.id}/channels`, { token: ownerToken })).body.find((c: any) => c.type === 0).id}/invites`, { token: ownerToken, body: {} });
      expect((await t.req('POST', `/invites/${invite.body.code}`, { token: memberToken })).status).toBe(200);
      const gw = await RawGateway.open(t.server);
      sockets.push(gw);
      gw.send({ op: 2, d: { token: memberToken, intents: Intent.Guilds, capabilities: 0, properties: { os: 'linux', browser: 'test', device: 'test' } } });
      const gc = (await gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guild.id)).d;
      expect(gc.channels.map((c: any) => c.id)).not.toContain(secret.body.id);
    });
  });
}
