import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, webToken, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { channelMessageRepo } from '../src/storage/ChannelMessageRepo.ts';

/**
 * Edit Channel Permissions and Delete Channel Permission (PUT/DELETE /channels/{id}/permissions/
 * {overwrite_id}) and Bulk Guild Ban (POST /guilds/{id}/bulk-ban) on a real server, SQLite and
 * PostgreSQL: the stored overwrite and what it does to a member's access, MANAGE_ROLES, the
 * CHANNEL_UPDATE dispatch, the CHANNEL_OVERWRITE_* audit entries; bans with banned_users and
 * failed_users, 500000 when none is banned, BAN_MEMBERS and MANAGE_GUILD, the banned users'
 * recent messages deleted by delete_message_seconds.
 */
let t: TestServer;
let owner: { token: string; userId: string };
let member: { token: string; userId: string };
let guildId: string;
let textId: string;
let botUserId: string;

const Intents = { Guilds: 1 << 0, GuildModeration: 1 << 2, GuildMessages: 1 << 9 };

async function person(name: string): Promise<{ token: string; userId: string }> {
  const g = await t.guest(name);
  return { token: await webToken(t, g.userId), userId: g.userId };
}

afterAll(async () => {
  await dropTestSchemas();
});

describe.each(databaseConfigs())('overwrites and bulk ban on $name', ({ config }) => {
  beforeAll(async () => {
    t = await startTestServer({ rateLimits: false, database: config() });
    owner = await person('Owner');
    member = await person('Member');
    const s = guildServicesFor(t.server.store, undefined as never);
    guildId = (await s.guilds.createGuild(owner.userId, { name: 'Overwritten' })).id;
    await s.members.join(guildId, member.userId);
    textId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
    // The bot can see channels but not manage roles or ban.
    await s.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages);
    botUserId = (await t.server.store.applications.get(t.app.id))!.bot_user_id;
  });
  afterAll(async () => {
    await t.close();
    cleanupTempDirs();
  });

  describe('channel permission overwrites', () => {
    it('PUT stores a member overwrite (204), dispatches CHANNEL_UPDATE, and the member loses the channel', async () => {
      const gw = await RawGateway.open(t.server);
      await gw.identify(owner.token, Intents.Guilds);
      expect((await t.req('GET', `/channels/${textId}`, { token: member.token })).status).toBe(200);
      const put = await t.req('PUT', `/channels/${textId}/permissions/${member.userId}`, { token: owner.token, body: { type: 1, allow: '0', deny: String(Permission.ViewChannel) }, headers: { 'x-audit-log-reason': 'quiet%20please' } });
      expect(put.status).toBe(204);
      expect(put.body).toBeUndefined();
      const update = (await gw.next((f) => f.t === 'CHANNEL_UPDATE' && f.d.id === textId)).d;
      expect(update.permission_overwrites).toContainEqual({ id: member.userId, type: 1, allow: '0', deny: String(Permission.ViewChannel) });
      expect((await t.req('GET', `/channels/${textId}`, { token: member.token })).status).toBe(403);
      gw.terminate();
    });

    it('PUT again changes it in place, accepts integer bitfields and a role without `type`; entries are CHANNEL_OVERWRITE_CREATE and _UPDATE', async () => {
      const put = await t.req('PUT', `/channels/${textId}/permissions/${member.userId}`, { token: owner.token, body: { type: 1, allow: Number(Permission.AddReactions), deny: Number(Permission.ViewChannel) } });
      expect(put.status).toBe(204);
      // No `type`: the @everyone role's ID names a role.
      expect((await t.req('PUT', `/channels/${textId}/permissions/${guildId}`, { token: owner.token, body: { deny: String(Permission.SendMessages) } })).status).toBe(204);
      const channel = (await t.req('GET', `/channels/${textId}`, { token: owner.token })).body;
      expect(channel.permission_overwrites.filter((o: { id: string }) => o.id === member.userId)).toEqual([{ id: member.userId, type: 1, allow: String(Permission.AddReactions), deny: String(Permission.ViewChannel) }]);
      expect(channel.permission_overwrites).toContainEqual({ id: guildId, type: 0, allow: '0', deny: String(Permission.SendMessages) });
      const log = (await t.req('GET', `/guilds/${guildId}/audit-logs`, { token: owner.token })).body.audit_log_entries as any[];
      const created = log.filter((e) => e.action_type === 13 && e.options.id === member.userId);
      expect(created).toHaveLength(1);
      expect(created[0]).toMatchObject({ target_id: textId, user_id: owner.userId, reason: 'quiet please', options: { id: member.userId, type: '1' } });
      expect(log.find((e) => e.action_type === 14 && e.options.id === member.userId)).toMatchObject({ target_id: textId, changes: [{ key: 'allow', old_value: '0', new_value: String(Permission.AddReactions) }] });
      expect(log.find((e) => e.action_type === 13 && e.options.id === guildId)).toMatchObject({ options: { id: guildId, type: '0', role_name: '@everyone' } });
    });

    it('refuses without MANAGE_ROLES (50013), a bad bitfield (50035 at allow) and an unknown role (10011)', async () => {
      const bot = await t.req('PUT', `/channels/${textId}/permissions/${member.userId}`, { token: t.app.botToken, bot: true, body: { type: 1, allow: '0', deny: '0' } });
      expect(bot.status).toBe(403);
      expect(bot.body).toEqual({ code: 50013, message: 'Missing Permissions' });
      const bad = await t.req('PUT', `/channels/${textId}/permissions/${member.userId}`, { token: owner.token, body: { type: 1, allow: '1'.repeat(21) } });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe(50035);
      expect(bad.body.errors.allow).toBeDefined();
      const role = await t.req('PUT', `/channels/${textId}/permissions/123456789012345678`, { token: owner.token, body: { type: 0, allow: '0' } });
      expect(role.status).toBe(404);
      expect(role.body.code).toBe(10011);
    });

    it('DELETE removes it (204, CHANNEL_UPDATE, CHANNEL_OVERWRITE_DELETE); a second DELETE is 404 Unknown Overwrite', async () => {
      const gw = await RawGateway.open(t.server);
      await gw.identify(owner.token, Intents.Guilds);
      const del = await t.req('DELETE', `/channels/${textId}/permissions/${member.userId}`, { token: owner.token });
      expect(del.status).toBe(204);
      const update = (await gw.next((f) => f.t === 'CHANNEL_UPDATE' && f.d.id === textId)).d;
      expect(update.permission_overwrites.some((o: { id: string }) => o.id === member.userId)).toBe(false);
      expect((await t.req('GET', `/channels/${textId}`, { token: member.token })).status).toBe(200);
      const log = (await t.req('GET', `/guilds/${guildId}/audit-logs?action_type=15`, { token: owner.token })).body.audit_log_entries;
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ target_id: textId, options: { id: member.userId, type: '1' }, changes: expect.arrayContaining([{ key: 'deny', old_value: String(Permission.ViewChannel) }]) });
      const again = await t.req('DELETE', `/channels/${textId}/permissions/${member.userId}`, { token: owner.token });
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ code: 10009, message: 'Unknown Overwrite' });
      gw.terminate();
    });
  });

  describe('bulk ban', () => {
    it('bans members and non-members, answers banned_users and failed_users, and deletes recent messages', async () => {
      const s = guildServicesFor(t.server.store, undefined as never);
      const a = await person('A');
      const b = await person('B');
      const outsider = await person('Outsider');
      await s.members.join(guildId, a.userId);
      await s.members.join(guildId, b.userId);
      // Back to a channel everyone may post in.
      await t.req('DELETE', `/channels/${textId}/permissions/${guildId}`, { token: owner.token });
      const posted = (await t.req('POST', `/channels/${textId}/messages`, { token: a.token, body: { content: 'spam' } })).body;
      const kept = (await t.req('POST', `/channels/${textId}/messages`, { token: member.token, body: { content: 'fine' } })).body;
      expect([posted.id, kept.id]).toEqual([expect.stringMatching(/^\d+$/), expect.stringMatching(/^\d+$/)]);
      // Two hours old: outside the hour the ban deletes.
      const repo = channelMessageRepo(t.server.store.database.db, t.server.store.ids);
      const old = await repo.insert(t.server.store.database.db, {
        channel_id: textId, guild_id: guildId, author_id: a.userId, application_id: null, type: 0, content: 'long ago', flags: 0, tts: 0, nonce: null,
        mention_everyone: 0, message_reference: null, message_snapshots: null, interaction_metadata: null,
      }, Date.now() - 2 * 3600_000);
      const gw = await RawGateway.open(t.server);
      await gw.identify(owner.token, Intents.Guilds | Intents.GuildModeration | Intents.GuildMessages);

      // Already banned: failed, with the others banned.
      await t.req('PUT', `/guilds/${guildId}/bans/${b.userId}`, { token: owner.token });
      const unknown = '123456789012345678';
      const res = await t.req('POST', `/guilds/${guildId}/bulk-ban`, { token: owner.token, body: { user_ids: [a.userId, outsider.userId, b.userId, owner.userId, unknown], delete_message_seconds: 3600 }, headers: { 'x-audit-log-reason': 'raid' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ banned_users: [a.userId, outsider.userId], failed_users: [b.userId, owner.userId, unknown] });
      expect(await t.server.store.guildMembers.isMember(guildId, a.userId)).toBe(false);
      expect(await t.server.store.guildMembers.ban(guildId, outsider.userId)).toBeDefined();
      await gw.next((f) => f.t === 'GUILD_BAN_ADD' && f.d.user.id === a.userId);
      await gw.next((f) => f.t === 'GUILD_BAN_ADD' && f.d.user.id === outsider.userId);
      expect((await gw.next((f) => f.t === 'MESSAGE_DELETE_BULK')).d).toEqual({ ids: [posted.id], channel_id: textId, guild_id: guildId });
      expect((await t.req('GET', `/channels/${textId}/messages/${posted.id}`, { token: owner.token })).status).toBe(404);
      expect((await t.req('GET', `/channels/${textId}/messages/${kept.id}`, { token: owner.token })).status).toBe(200);
      expect((await t.req('GET', `/channels/${textId}/messages/${old.id}`, { token: owner.token })).status).toBe(200);
      const log = (await t.req('GET', `/guilds/${guildId}/audit-logs?action_type=22`, { token: owner.token })).body.audit_log_entries as any[];
      expect(log.filter((e) => e.reason === 'raid').map((e) => e.target_id).sort()).toEqual([a.userId, outsider.userId].sort());
      gw.terminate();
    });

    it('none banned is 400 / 500000; the body is checked (1-200 distinct IDs); BAN_MEMBERS and MANAGE_GUILD are needed', async () => {
      const none = await t.req('POST', `/guilds/${guildId}/bulk-ban`, { token: owner.token, body: { user_ids: [owner.userId] } });
      expect(none.status).toBe(400);
      expect(none.body).toEqual({ code: 500000, message: 'Failed to ban users' });
      const tooMany = await t.req('POST', `/guilds/${guildId}/bulk-ban`, { token: owner.token, body: { user_ids: Array.from({ length: 201 }, (_, i) => String(100000000000000000n + BigInt(i))) } });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.code).toBe(50035);
      const dup = await t.req('POST', `/guilds/${guildId}/bulk-ban`, { token: owner.token, body: { user_ids: [member.userId, member.userId] } });
      expect(dup.body.code).toBe(50035);
      const bot = await t.req('POST', `/guilds/${guildId}/bulk-ban`, { token: t.app.botToken, bot: true, body: { user_ids: [member.userId] } });
      expect(bot.status).toBe(403);
      expect(bot.body.code).toBe(50013);
      expect(await t.server.store.guildMembers.isMember(guildId, member.userId)).toBe(true);
      expect(botUserId).toMatch(/^\d+$/);
    });
  });
});
