import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { channelMessageRepo } from '../src/storage/ChannelMessageRepo.ts';

/**
 * Issue 11's moderation parts on a real server, SQLite and PostgreSQL: AutoMod keyword rules
 * (REST, blocking create and edit with 400 / 200000, Gateway events), the audit log (entries of
 * guild and message actions, filters, X-Audit-Log-Reason, VIEW_AUDIT_LOG, the Gateway event) and
 * voice channel status (MANAGE_CHANNELS only when not connected, 500 characters, events, audit
 * 192/193, voice start time, op 43).
 */
let t: TestServer;
let owner: { token: string; userId: string };
let member: { token: string; userId: string };
let guildId: string;
let textId: string;
let voiceId: string;

const as = (who: { token: string }) => ({ token: who.token });
const repo = () => channelMessageRepo(t.server.store.database.db, t.server.store.ids);
const Intents = { Guilds: 1 << 0, GuildModeration: 1 << 2, GuildVoiceStates: 1 << 7, AutoModConfig: 1 << 20, AutoModExecution: 1 << 21 };

async function userToken(name: string): Promise<{ token: string; userId: string }> {
  const g = await t.guest(name);
  return { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
}

async function gateway(token: string, intents: number): Promise<RawGateway> {
  const gw = await RawGateway.open(t.server);
  gw.send({ op: 2, d: { token, intents, properties: { os: 'linux', browser: 'test', device: 'test' } } });
  await gw.next((f) => f.t === 'READY');
  return gw;
}

async function ruleCount(): Promise<number> {
  return (await t.server.store.database.db.selectFrom('automod_rules').select('id').where('guild_id', '=', guildId).execute()).length;
}

async function auditOf(q = ''): Promise<{ status: number; body: any }> {
  return t.req('GET', `/guilds/${guildId}/audit-logs${q}`, as(owner));
}

afterAll(async () => {
  await dropTestSchemas();
});

describe.each(databaseConfigs())('moderation on $name', ({ config }) => {
  beforeAll(async () => {
    t = await startTestServer({ rateLimits: false, database: config() });
    owner = await userToken('Owner');
    member = await userToken('Member');
    const s = guildServicesFor(t.server.store, undefined as never);
    guildId = (await s.guilds.createGuild(owner.userId, { name: 'Moderated' })).id;
    await s.members.join(guildId, member.userId);
    const channels = await t.server.store.guilds.channels(guildId);
    textId = channels.find((c) => c.type === 0)!.id;
    voiceId = channels.find((c) => c.type === 2)!.id;
  });
  afterAll(async () => {
    await t.close();
    cleanupTempDirs();
  });

  describe('AutoMod', () => {
    let ruleId: string;

    it('creates, lists, gets and modifies keyword rules (MANAGE_GUILD), with the public shape and events', async () => {
      const gw = await gateway(owner.token, Intents.Guilds | Intents.AutoModConfig);
      const body = { name: 'No swearing', event_type: 1, trigger_type: 1, trigger_metadata: { keyword_filter: ['darn', 'heck*', '*bad*'], regex_patterns: ['fr[o0]g'], allow_list: ['badminton'] }, actions: [{ type: 1, metadata: { custom_message: 'Keep it clean' } }], enabled: true };
      const created = await t.req('POST', `/guilds/${guildId}/auto-moderation/rules`, { ...as(owner), body, headers: { 'x-audit-log-reason': encodeURIComponent('spam wave') } });
      expect(created.status).toBe(200);
      expect(created.body).toMatchObject({ guild_id: guildId, name: 'No swearing', creator_id: owner.userId, event_type: 1, trigger_type: 1, enabled: true, exempt_roles: [], exempt_channels: [], actions: [{ type: 1, metadata: { custom_message: 'Keep it clean' } }], trigger_metadata: { keyword_filter: ['darn', 'heck*', '*bad*'], regex_patterns: ['fr[o0]g'], allow_list: ['badminton'] } });
      ruleId = created.body.id;
      expect((await gw.next((f) => f.t === 'AUTO_MODERATION_RULE_CREATE')).d.id).toBe(ruleId);
      expect((await t.req('GET', `/guilds/${guildId}/auto-moderation/rules`, as(owner))).body.map((r: { id: string }) => r.id)).toEqual([ruleId]);
      expect((await t.req('GET', `/guilds/${guildId}/auto-moderation/rules/${ruleId}`, as(owner))).body.name).toBe('No swearing');
      const renamed = await t.req('PATCH', `/guilds/${guildId}/auto-moderation/rules/${ruleId}`, { ...as(owner), body: { name: 'Clean chat' } });
      expect(renamed.body).toMatchObject({ id: ruleId, name: 'Clean chat', trigger_metadata: { keyword_filter: ['darn', 'heck*', '*bad*'] } });
      expect((await gw.next((f) => f.t === 'AUTO_MODERATION_RULE_UPDATE')).d.name).toBe('Clean chat');
      gw.ws.close();
      const audit = await auditOf('?action_type=140');
      expect(audit.body.audit_log_entries).toMatchObject([{ action_type: 140, target_id: ruleId, user_id: owner.userId, reason: 'spam wave' }]);
      expect(audit.body.auto_moderation_rules.map((r: { id: string }) => r.id)).toEqual([ruleId]);
      expect((await auditOf('?action_type=141')).body.audit_log_entries[0].changes).toEqual([{ key: 'name', old_value: 'No swearing', new_value: 'Clean chat' }]);
    });

    it('refuses bad rules and non-managers with the public codes, writing nothing', async () => {
      const before = await ruleCount();
      const base = { name: 'r', event_type: 1, trigger_type: 1, trigger_metadata: { keyword_filter: ['x'] }, actions: [{ type: 1 }] };
      const code = async (body: unknown, who = owner) => (await t.req('POST', `/guilds/${guildId}/auto-moderation/rules`, { ...as(who), body })).body.code;
      expect(await code(base, member)).toBe(50013);
      expect(await code({ ...base, trigger_type: 3 })).toBe(50035);
      expect(await code({ ...base, actions: [{ type: 2 }] })).toBe(50035);
      expect(await code({ ...base, actions: [] })).toBe(50035);
      expect(await code({ ...base, trigger_metadata: { regex_patterns: ['(a)\\1'] } })).toBe(50035);
      expect(await code({ ...base, trigger_metadata: { keyword_filter: ['x'.repeat(61)] } })).toBe(50035);
      expect(await code({ ...base, exempt_roles: ['123'] })).toBe(50035);
      expect(await code({ ...base, name: '' })).toBe(50035);
      expect(await ruleCount()).toBe(before);
      const unknown = await t.req('GET', `/guilds/${guildId}/auto-moderation/rules/999`, as(owner));
      expect(unknown.status).toBe(404);
      expect((await t.req('GET', `/guilds/${guildId}/auto-moderation/rules`, as(member))).body.code).toBe(50013);
    });

    it('blocks matching messages on create (400 / 200000, nothing written) and lets others through', async () => {
      const gw = await gateway(owner.token, Intents.Guilds | Intents.AutoModExecution);
      const count = await repo().count(textId);
      const send = (content: string) => t.req('POST', `/channels/${textId}/messages`, { ...as(member), body: { content } });
      for (const content of ['well DARN it', 'what the heckity', 'a superbadword', 'a fr0g appears']) {
        const r = await send(content);
        expect([content, r.status, r.body.code, r.body.message]).toEqual([content, 400, 200000, 'Message was blocked by automatic moderation']);
      }
      expect(await repo().count(textId)).toBe(count);
      for (const content of ['darned socks', 'I love badminton', 'a frog? no, a toad', 'all good']) {
        expect([content, (await send(content)).status]).toEqual([content, content === 'a frog? no, a toad' ? 400 : 200]);
      }
      const exec = await gw.next((f) => f.t === 'AUTO_MODERATION_ACTION_EXECUTION');
      expect(exec.d).toMatchObject({ guild_id: guildId, rule_trigger_type: 1, user_id: member.userId, channel_id: textId, content: 'well DARN it', matched_keyword: 'darn', matched_content: 'DARN', action: { type: 1 } });
      gw.ws.close();
      const blocks = await auditOf(`?action_type=143&user_id=${member.userId}`);
      expect(blocks.body.audit_log_entries[0]).toMatchObject({ action_type: 143, user_id: member.userId, target_id: member.userId, options: { auto_moderation_rule_name: 'Clean chat', auto_moderation_rule_trigger_type: '1', channel_id: textId } });
    });

    it('answers an edit whose new content is blocked with HTTP 400 / 200000 and keeps the message as it was', async () => {
      const m = await t.req('POST', `/channels/${textId}/messages`, { ...as(member), body: { content: 'harmless' } });
      const edit = await t.req('PATCH', `/channels/${textId}/messages/${m.body.id}`, { ...as(member), body: { content: 'now darn' } });
      expect([edit.status, edit.body.code]).toEqual([400, 200000]);
      expect((await t.req('GET', `/channels/${textId}/messages/${m.body.id}`, as(member))).body).toMatchObject({ content: 'harmless', edited_timestamp: null });
    });

    it('exempt roles and channels, disabled rules, and deletion', async () => {
      const role = await t.req('POST', `/guilds/${guildId}/roles`, { ...as(owner), body: { name: 'trusted' } });
      await t.req('PUT', `/guilds/${guildId}/members/${member.userId}/roles/${role.body.id}`, as(owner));
      await t.req('PATCH', `/guilds/${guildId}/auto-moderation/rules/${ruleId}`, { ...as(owner), body: { exempt_roles: [role.body.id] } });
      expect((await t.req('POST', `/channels/${textId}/messages`, { ...as(member), body: { content: 'darn' } })).status).toBe(200);
      await t.req('PATCH', `/guilds/${guildId}/auto-moderation/rules/${ruleId}`, { ...as(owner), body: { exempt_roles: [], exempt_channels: [textId] } });
      expect((await t.req('POST', `/channels/${textId}/messages`, { ...as(member), body: { content: 'darn' } })).status).toBe(200);
      await t.req('PATCH', `/guilds/${guildId}/auto-moderation/rules/${ruleId}`, { ...as(owner), body: { exempt_channels: [], enabled: false } });
      expect((await t.req('POST', `/channels/${textId}/messages`, { ...as(member), body: { content: 'darn' } })).status).toBe(200);
      expect((await t.req('DELETE', `/guilds/${guildId}/auto-moderation/rules/${ruleId}`, as(owner))).status).toBe(204);
      expect(await ruleCount()).toBe(0);
      expect((await auditOf('?action_type=142')).body.audit_log_entries[0]).toMatchObject({ target_id: ruleId, user_id: owner.userId });
    });
  });

  describe('audit log', () => {
    it('records channel, role, invite, member and message actions with the request reason, and announces them', async () => {
      const gw = await gateway(owner.token, Intents.Guilds | Intents.GuildModeration);
      const reason = { 'x-audit-log-reason': encodeURIComponent('tidy up: ünïcode') };
      const ch = await t.req('POST', `/guilds/${guildId}/channels`, { ...as(owner), body: { name: 'logs' }, headers: reason });
      await t.req('PATCH', `/channels/${ch.body.id}`, { ...as(owner), body: { topic: 'the topic' } });
      const VIEW = Permission.ViewChannel.toString();
      await t.req('PATCH', `/channels/${ch.body.id}`, { ...as(owner), body: { permission_overwrites: [{ id: member.userId, type: 1, allow: '0', deny: VIEW }] } });
      await t.req('PATCH', `/channels/${ch.body.id}`, { ...as(owner), body: { permission_overwrites: [{ id: member.userId, type: 1, allow: VIEW, deny: '0' }, { id: guildId, type: 0, allow: '0', deny: '0' }] } });
      await t.req('PATCH', `/channels/${ch.body.id}`, { ...as(owner), body: { permission_overwrites: [] } });
      const invite = await t.req('POST', `/channels/${ch.body.id}/invites`, { ...as(owner), body: { max_age: 60 } });
      expect(invite.status).toBe(200);
      const m1 = await t.req('POST', `/channels/${ch.body.id}/messages`, { ...as(member), body: { content: 'one' } });
      const m2 = await t.req('POST', `/channels/${ch.body.id}/messages`, { ...as(member), body: { content: 'two' } });
      const m3 = await t.req('POST', `/channels/${ch.body.id}/messages`, { ...as(member), body: { content: 'three' } });
      await t.req('PUT', `/channels/${ch.body.id}/messages/pins/${m1.body.id}`, { ...as(owner), headers: { 'x-audit-log-reason': 'pin it' } });
      await t.req('DELETE', `/channels/${ch.body.id}/messages/pins/${m1.body.id}`, as(owner));
      await t.req('POST', `/channels/${ch.body.id}/messages/bulk-delete`, { ...as(owner), body: { messages: [m1.body.id, m2.body.id] }, headers: { 'x-audit-log-reason': 'spam' } });
      await t.req('DELETE', `/channels/${ch.body.id}/messages/${m3.body.id}`, { ...as(owner), headers: { 'x-audit-log-reason': 'off topic' } });
      await t.req('DELETE', `/invites/${invite.body.code}`, as(owner));
      await t.req('DELETE', `/channels/${ch.body.id}`, as(owner));

      const all = (await auditOf('?limit=100')).body;
      const byType = (n: number) => all.audit_log_entries.filter((e: { action_type: number }) => e.action_type === n);
      expect(byType(10)[0]).toMatchObject({ target_id: ch.body.id, user_id: owner.userId, reason: 'tidy up: ünïcode', changes: expect.arrayContaining([{ key: 'name', new_value: 'logs' }]) });
      // Updates read the object before the change: only what changed, with old and new values.
      expect(byType(11)[0].changes).toEqual([{ key: 'topic', old_value: null, new_value: 'the topic' }]);
      expect(byType(11)[0].reason).toBeUndefined();
      expect(byType(13).map((e: { options: unknown }) => e.options)).toEqual([{ id: guildId, type: '0', role_name: '@everyone' }, { id: member.userId, type: '1' }]);
      expect(byType(14)[0]).toMatchObject({ target_id: ch.body.id, options: { id: member.userId, type: '1' }, changes: [{ key: 'allow', old_value: '0', new_value: VIEW }, { key: 'deny', old_value: VIEW, new_value: '0' }] });
      expect(byType(15).length).toBe(2);
      // The overwrite-only updates made no CHANNEL_UPDATE entry of their own.
      expect(byType(11).length).toBe(1);
      expect(byType(40)[0].changes).toEqual(expect.arrayContaining([{ key: 'code', new_value: invite.body.code }]));
      expect(byType(42)[0].changes).toEqual(expect.arrayContaining([{ key: 'code', old_value: invite.body.code }]));
      expect(byType(74)[0]).toMatchObject({ target_id: member.userId, reason: 'pin it', options: { channel_id: ch.body.id, message_id: m1.body.id } });
      expect(byType(75)[0]).toMatchObject({ target_id: member.userId, options: { channel_id: ch.body.id, message_id: m1.body.id } });
      expect(byType(73)[0]).toMatchObject({ target_id: ch.body.id, reason: 'spam', options: { count: '2' } });
      expect(byType(72)[0]).toMatchObject({ target_id: member.userId, reason: 'off topic', options: { channel_id: ch.body.id, count: '1' } });
      expect(byType(75)[0].reason).toBeUndefined();
      expect(byType(12)[0]).toMatchObject({ target_id: ch.body.id, changes: expect.arrayContaining([{ key: 'name', old_value: 'logs' }]) });
      expect(all.users.map((u: { id: string }) => u.id)).toEqual(expect.arrayContaining([owner.userId, member.userId]));
      // Newest first; the event reached the session holding VIEW_AUDIT_LOG with GUILD_MODERATION.
      const ids = all.audit_log_entries.map((e: { id: string }) => e.id);
      expect([...ids].sort().reverse()).toEqual(ids);
      const ev = await gw.next((f) => f.t === 'GUILD_AUDIT_LOG_ENTRY_CREATE' && f.d.action_type === 10);
      expect(ev.d).toMatchObject({ guild_id: guildId, target_id: ch.body.id, reason: 'tidy up: ünïcode' });
      gw.ws.close();
    });

    it('records role changes of a member as MEMBER_ROLE_UPDATE with $add/$remove, and role edits with old values', async () => {
      const role = await t.req('POST', `/guilds/${guildId}/roles`, { ...as(owner), body: { name: 'helpers' } });
      expect((await auditOf('?action_type=30')).body.audit_log_entries[0]).toMatchObject({ target_id: role.body.id, changes: expect.arrayContaining([{ key: 'name', new_value: 'helpers' }]) });
      await t.req('PATCH', `/guilds/${guildId}/roles/${role.body.id}`, { ...as(owner), body: { name: 'mentors' } });
      expect((await auditOf('?action_type=31')).body.audit_log_entries[0].changes).toEqual([{ key: 'name', old_value: 'helpers', new_value: 'mentors' }]);
      await t.req('PUT', `/guilds/${guildId}/members/${member.userId}/roles/${role.body.id}`, as(owner));
      await t.req('DELETE', `/guilds/${guildId}/members/${member.userId}/roles/${role.body.id}`, as(owner));
      const entries = (await auditOf('?action_type=25')).body.audit_log_entries;
      expect(entries[0]).toMatchObject({ target_id: member.userId, user_id: owner.userId, changes: [{ key: '$remove', new_value: [{ id: role.body.id, name: 'mentors' }] }] });
      expect(entries[1]).toMatchObject({ target_id: member.userId, changes: [{ key: '$add', new_value: [{ id: role.body.id, name: 'mentors' }] }] });
      // A nickname set by the owner is a member update with old and new values.
      await t.req('PATCH', `/guilds/${guildId}/members/${member.userId}`, { ...as(owner), body: { nick: 'Mem' } });
      expect((await auditOf('?action_type=24')).body.audit_log_entries[0]).toMatchObject({ target_id: member.userId, changes: [{ key: 'nick', old_value: null, new_value: 'Mem' }] });
      await t.req('DELETE', `/guilds/${guildId}/roles/${role.body.id}`, as(owner));
      expect((await auditOf('?action_type=32')).body.audit_log_entries[0].target_id).toBe(role.body.id);
    });

    it('keeps each request\'s own reason and actor when many requests run at once', async () => {
      // Each request's audit scope travels with its calls (no ambient context): 24 role creations
      // by two actors, interleaved, each with its own reason, must each be recorded as sent.
      const mods = await t.req('POST', `/guilds/${guildId}/roles`, { ...as(owner), body: { name: 'mods', permissions: Permission.ManageRoles.toString() } });
      await t.req('PUT', `/guilds/${guildId}/members/${member.userId}/roles/${mods.body.id}`, as(owner));
      const sent = Array.from({ length: 24 }, (_, i) => ({ who: i % 2 === 0 ? owner : member, name: `${i % 2 === 0 ? 'o' : 'm'}-${i}` }));
      const made = await Promise.all(sent.map(({ who, name }) => t.req('POST', `/guilds/${guildId}/roles`, { ...as(who), body: { name }, headers: { 'x-audit-log-reason': encodeURIComponent(`why ${name}`) } })));
      expect(made.map((r) => r.status)).toEqual(sent.map(() => 200));
      const entries = (await auditOf(`?action_type=30&limit=100`)).body.audit_log_entries as { target_id: string; user_id: string; reason?: string }[];
      for (const [i, r] of made.entries()) {
        const e = entries.find((x) => x.target_id === r.body.id);
        expect(e, sent[i]!.name).toMatchObject({ user_id: sent[i]!.who.userId, reason: `why ${sent[i]!.name}` });
      }
      for (const r of made) await t.req('DELETE', `/guilds/${guildId}/roles/${r.body.id}`, as(owner));
      await t.req('DELETE', `/guilds/${guildId}/roles/${mods.body.id}`, as(owner));
    });

    it('records kicks and bans of members by others, not a member leaving', async () => {
      const kicked = await userToken('Kicked');
      const banned = await userToken('Banned');
      const s = guildServicesFor(t.server.store, undefined as never);
      await s.members.join(guildId, kicked.userId);
      await s.members.join(guildId, banned.userId);
      expect((await t.req('DELETE', `/guilds/${guildId}/members/${kicked.userId}`, as(owner))).status).toBe(204);
      expect((await t.req('PUT', `/guilds/${guildId}/bans/${banned.userId}`, { ...as(owner), body: {} })).status).toBe(204);
      const kicks = (await auditOf('?action_type=20')).body.audit_log_entries;
      expect(kicks.map((e: { target_id: string }) => e.target_id)).toEqual([kicked.userId]);
      expect((await auditOf('?action_type=22')).body.audit_log_entries[0]).toMatchObject({ target_id: banned.userId, user_id: owner.userId });
      // A prune is one MEMBER_PRUNE entry, not a kick per member.
      const idle = await userToken('Idle');
      await s.members.join(guildId, idle.userId);
      await t.server.store.database.db.updateTable('guild_members').set({ joined_at: Date.now() - 40 * 86_400_000 } as never).where('user_id', '=', idle.userId).execute();
      const pruned = await t.req('POST', `/guilds/${guildId}/prune`, { ...as(owner), body: { days: 30 }, headers: { 'x-audit-log-reason': 'inactive' } });
      expect(pruned.status).toBe(200);
      expect(pruned.body.pruned).toBeGreaterThanOrEqual(1);
      expect((await auditOf('?action_type=21')).body.audit_log_entries[0]).toMatchObject({ user_id: owner.userId, reason: 'inactive', options: { delete_member_days: '30', members_removed: String(pruned.body.pruned) } });
      expect((await auditOf('?action_type=20')).body.audit_log_entries.map((e: { target_id: string }) => e.target_id)).toEqual([kicked.userId]);
    });

    it('takes a ban\'s reason from the body, else from X-Audit-Log-Reason, and a malformed header as its raw text', async () => {
      const s = guildServicesFor(t.server.store, undefined as never);
      const cases = [
        { headers: { 'x-audit-log-reason': encodeURIComponent('griefing: ünïcode') }, body: {}, reason: 'griefing: ünïcode' },
        { headers: { 'x-audit-log-reason': 'header' }, body: { reason: 'from the body' }, reason: 'from the body' },
        // Not valid percent-encoding: kept as sent (as every other route keeps it), not a 500.
        { headers: { 'x-audit-log-reason': '100%25 sure %E0%A4%A' }, body: {}, reason: '100%25 sure %E0%A4%A' },
        { headers: { 'x-audit-log-reason': encodeURIComponent('x'.repeat(600)) }, body: {}, reason: 'x'.repeat(512) },
      ];
      for (const [i, c] of cases.entries()) {
        const target = await userToken(`Ban${i}`);
        await s.members.join(guildId, target.userId);
        const put = await t.req('PUT', `/guilds/${guildId}/bans/${target.userId}`, { ...as(owner), body: c.body, headers: c.headers });
        expect(put.status, JSON.stringify(put.body)).toBe(204);
        expect((await t.req('GET', `/guilds/${guildId}/bans/${target.userId}`, as(owner))).body.reason).toBe(c.reason);
        const entry = (await auditOf('?action_type=22')).body.audit_log_entries.find((e: { target_id: string }) => e.target_id === target.userId);
        expect(entry).toMatchObject({ user_id: owner.userId, reason: c.reason });
      }
    });

    it('filters by user_id, action_type, before, after and limit; needs VIEW_AUDIT_LOG; refuses bad input', async () => {
      const all = (await auditOf('?limit=100')).body.audit_log_entries as { id: string; user_id: string; action_type: number }[];
      expect(all.length).toBeGreaterThan(5);
      const two = (await auditOf('?limit=2')).body.audit_log_entries;
      expect(two.map((e: { id: string }) => e.id)).toEqual(all.slice(0, 2).map((e) => e.id));
      const before = (await auditOf(`?before=${all[1]!.id}&limit=2`)).body.audit_log_entries;
      expect(before.map((e: { id: string }) => e.id)).toEqual(all.slice(2, 4).map((e) => e.id));
      // `after` alone pages oldest first.
      const after = (await auditOf(`?after=${all[3]!.id}&limit=2`)).body.audit_log_entries;
      expect(after.map((e: { id: string }) => e.id)).toEqual([all[2]!.id, all[1]!.id]);
      const mine = (await auditOf(`?user_id=${member.userId}`)).body.audit_log_entries;
      expect(mine.every((e: { user_id: string }) => e.user_id === member.userId)).toBe(true);
      expect((await auditOf('?action_type=74')).body.audit_log_entries.every((e: { action_type: number }) => e.action_type === 74)).toBe(true);
      const denied = await t.req('GET', `/guilds/${guildId}/audit-logs`, as(member));
      expect([denied.status, denied.body.code]).toEqual([403, 50013]);
      expect((await auditOf('?limit=101')).body.code).toBe(50035);
      expect((await auditOf('?user_id=abc')).body.code).toBe(50035);
      expect((await t.req('GET', '/guilds/123/audit-logs', as(owner))).body.code).toBe(10004);
    });
  });

  describe('voice channel status', () => {
    it('needs MANAGE_CHANNELS only when the caller is not connected; 500 characters; events, audit 192/193, start time, op 43', async () => {
      // The member may set the status but not manage channels.
      await t.server.store.database.db.updateTable('guild_channels').set({ permission_overwrites: JSON.stringify([{ id: member.userId, type: 1, allow: Permission.SetVoiceChannelStatus.toString(), deny: '0' }]) }).where('id', '=', voiceId).execute();
      const put = (who: { token: string }, status: string | null, reason?: string) => t.req('PUT', `/channels/${voiceId}/voice-status`, { ...as(who), body: { status }, ...(reason ? { headers: { 'x-audit-log-reason': reason } } : {}) });
      const notConnected = await put(member, 'gaming');
      expect([notConnected.status, notConnected.body.code]).toEqual([403, 50013]);

      const watcher = await gateway(owner.token, Intents.Guilds);
      const gw = await gateway(member.token, Intents.Guilds | Intents.GuildVoiceStates);
      gw.send({ op: 4, d: { guild_id: guildId, channel_id: voiceId, self_mute: false, self_deaf: false } });
      await gw.next((f) => f.t === 'VOICE_SERVER_UPDATE');
      const started = await watcher.next((f) => f.t === 'VOICE_CHANNEL_START_TIME_UPDATE' && f.d.voice_start_time !== null);
      expect(started.d).toMatchObject({ id: voiceId, guild_id: guildId });
      expect(Math.abs(started.d.voice_start_time - Date.now() / 1000)).toBeLessThan(60);

      expect((await put(member, 'x'.repeat(501))).body.code).toBe(50035);
      expect((await put(member, 'raiding the castle')).status).toBe(204);
      const upd = await watcher.next((f) => f.t === 'VOICE_CHANNEL_STATUS_UPDATE' && f.d.status === 'raiding the castle');
      expect(upd.d).toMatchObject({ id: voiceId, guild_id: guildId });
      watcher.send({ op: 43, d: { guild_id: guildId, fields: ['status', 'voice_start_time'] } });
      const info = await watcher.next((f) => f.t === 'CHANNEL_INFO');
      expect(info.d.channels.find((c: { id: string }) => c.id === voiceId)).toEqual({ id: voiceId, status: 'raiding the castle', voice_start_time: started.d.voice_start_time });
      expect((await put(member, 'x'.repeat(500))).status).toBe(204);
      expect((await put(member, null, 'quiet now')).status).toBe(204);
      await watcher.next((f) => f.t === 'VOICE_CHANNEL_STATUS_UPDATE' && f.d.status === null);

      const s192 = (await auditOf('?action_type=192')).body.audit_log_entries;
      expect(s192[s192.length - 1]).toMatchObject({ action_type: 192, target_id: voiceId, user_id: member.userId, options: { status: 'raiding the castle' } });
      expect((await auditOf('?action_type=193')).body.audit_log_entries[0]).toMatchObject({ action_type: 193, target_id: voiceId, user_id: member.userId, reason: 'quiet now' });

      // Leaving empties the call: the start time is cleared.
      gw.send({ op: 4, d: { guild_id: guildId, channel_id: null, self_mute: false, self_deaf: false } });
      await watcher.next((f) => f.t === 'VOICE_CHANNEL_START_TIME_UPDATE' && f.d.voice_start_time === null);
      expect((await put(member, 'gone')).body.code).toBe(50013);
      // The owner (MANAGE_CHANNELS) may set it without being connected.
      expect((await put(owner, 'owner says hi')).status).toBe(204);
      gw.ws.close();
      watcher.ws.close();
    });
  });
});
