import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { MessageIntent } from '../src/messages/messageGateway.ts';
import { channelMessageRepo } from '../src/storage/ChannelMessageRepo.ts';

/**
 * Messages in guild channels over REST and the Gateway (issue 11): a real server, real sockets,
 * SQLite and PostgreSQL. Three users (owner, member, outsider), a bot without MESSAGE_CONTENT, and a hidden
 * channel the member cannot view.
 */
let t: TestServer;
let owner: { token: string; userId: string };
let member: { token: string; userId: string };
let outsider: { token: string; userId: string };
let guildId: string;
let channelId: string;
let hiddenId: string;
let botUserId: string;

const as = (who: { token: string }) => ({ token: who.token });
const repo = () => channelMessageRepo(t.server.store.database.db, t.server.store.ids);
const bot = () => ({ token: t.app.botToken, bot: true });

async function userToken(name: string): Promise<{ token: string; userId: string }> {
  const g = await t.guest(name);
  return { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
}

async function setOverwrites(id: string, overwrites: unknown[]): Promise<void> {
  await t.server.store.database.db.updateTable('guild_channels').set({ permission_overwrites: JSON.stringify(overwrites) }).where('id', '=', id).execute();
}

async function gateway(token: string, intents: number): Promise<RawGateway> {
  const gw = await RawGateway.open(t.server);
  gw.send({ op: 2, d: { token, intents, properties: { os: 'linux', browser: 'test', device: 'test' } } });
  await gw.next((f) => f.t === 'READY');
  return gw;
}

afterAll(async () => {
  await dropTestSchemas();
});

/** The whole suite on SQLite and on PostgreSQL (DESIGN.md convention 5). */
describe.each(databaseConfigs())('messages on $name', ({ config }) => {
  beforeAll(async () => {
    // Budgets off: this suite checks behaviour at test speed (the budgets are declared per route; securityRateLimits covers them).
    t = await startTestServer({ rateLimits: false, database: config() });
    owner = await userToken('Owner');
    member = await userToken('Member');
    outsider = await userToken('Outsider');
    const s = guildServicesFor(t.server.store, undefined as never);
    const guild = await s.guilds.createGuild(owner.userId, { name: 'Message Guild' });
    guildId = guild.id;
    await s.members.join(guildId, member.userId);
    const channels = await t.server.store.guilds.channels(guildId);
    channelId = channels.find((c) => c.type === 0)!.id;
    hiddenId = (await t.server.store.guilds.createChannel(t.server.store.database.db, guildId, { type: 0, name: 'hidden' })).id;
    // The member cannot view `hidden`.
    await setOverwrites(hiddenId, [{ id: member.userId, type: 1, allow: '0', deny: Permission.ViewChannel.toString() }]);
    await s.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages | Permission.ReadMessageHistory | Permission.AddReactions);
    botUserId = (await t.server.store.applications.get(t.app.id))!.bot_user_id;
  });
  afterAll(async () => {
    await t.close();
    cleanupTempDirs();
  });

  describe('create, read, history', () => {
    it('creates a message with the public shape and reads it back', async () => {
      const r = await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { content: `hello <@${owner.userId}>`, nonce: 'abc' } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ channel_id: channelId, type: 0, content: `hello <@${owner.userId}>`, nonce: 'abc', pinned: false, tts: false, edited_timestamp: null, embeds: [], attachments: [], components: [], author: { id: member.userId } });
      expect(r.body.mentions.map((u: { id: string }) => u.id)).toEqual([owner.userId]);
      expect(new Date(r.body.timestamp).getTime()).toBeGreaterThan(Date.now() - 60_000);
      const got = await t.req('GET', `/channels/${channelId}/messages/${r.body.id}`, as(owner));
      expect(got.body).toMatchObject({ id: r.body.id, content: r.body.content });
    });

    it('refuses bad input and unknown IDs with the public codes, writing nothing', async () => {
      const before = await repo().count(channelId);
      const long = await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { content: 'x'.repeat(2001) } });
      expect(long.status).toBe(400);
      expect(long.body.code).toBe(50035);
      expect(long.body.errors.content._errors[0].code).toBeTruthy();
      expect((await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { content: '   ' } })).body.code).toBe(50006);
      expect((await t.req('POST', `/channels/123/messages`, { ...as(member), body: { content: 'hi' } })).body.code).toBe(10003);
      expect((await t.req('POST', `/channels/${channelId}/messages`, { ...as(outsider), body: { content: 'hi' } })).body.code).toBe(50001);
      expect((await t.req('POST', `/channels/${hiddenId}/messages`, { ...as(member), body: { content: 'hi' } })).body.code).toBe(50001);
      expect((await t.req('GET', `/channels/${channelId}/messages/999`, as(member))).body.code).toBe(10008);
      const tooManyFields = await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { embeds: [{ title: 'x', fields: Array.from({ length: 26 }, (_, i) => ({ name: `f${i}`, value: 'v' })) }] } });
      expect(tooManyFields.status).toBe(400);
      expect(tooManyFields.body.errors.embeds['0'].fields).toBeDefined();
      // A member denied SEND_MESSAGES in the channel: 50013.
      await setOverwrites(channelId, [{ id: member.userId, type: 1, allow: '0', deny: Permission.SendMessages.toString() }]);
      const denied = await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { content: 'hi' } });
      expect([denied.status, denied.body.code]).toEqual([403, 50013]);
      await setOverwrites(channelId, []);
      expect(await repo().count(channelId)).toBe(before);
    });

    it('pages history with before, after, around and limit (newest first)', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push((await t.req('POST', `/channels/${hiddenId}/messages`, { ...as(owner), body: { content: `h${i}` } })).body.id);
      const contents = (r: { body: { content: string }[] }) => r.body.map((m) => m.content);
      expect(contents(await t.req('GET', `/channels/${hiddenId}/messages?limit=2`, as(owner)))).toEqual(['h5', 'h4']);
      expect(contents(await t.req('GET', `/channels/${hiddenId}/messages?before=${ids[3]}&limit=2`, as(owner)))).toEqual(['h2', 'h1']);
      expect(contents(await t.req('GET', `/channels/${hiddenId}/messages?after=${ids[3]}`, as(owner)))).toEqual(['h5', 'h4']);
      expect(contents(await t.req('GET', `/channels/${hiddenId}/messages?around=${ids[3]}&limit=3`, as(owner)))).toEqual(['h4', 'h3', 'h2']);
      expect((await t.req('GET', `/channels/${hiddenId}/messages?limit=101`, as(owner))).body.code).toBe(50035);
      expect((await t.req('GET', `/channels/${hiddenId}/messages`, as(member))).body.code).toBe(50001);
    });
  });

  describe('nonces, replies, forwards', () => {
    it('enforce_nonce: the same nonce from the same author returns the earlier message, even concurrently', async () => {
      const body = { content: 'once', nonce: 'n-1', enforce_nonce: true };
      const first = await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body });
      const again = await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body });
      expect(again.body.id).toBe(first.body.id);
      const racing = await Promise.all(Array.from({ length: 4 }, () => t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { ...body, nonce: 'n-2' } })));
      expect(new Set(racing.map((r) => r.body.id)).size).toBe(1);
      // Another author, or no enforce_nonce: separate messages.
      const other = await t.req('POST', `/channels/${channelId}/messages`, { ...as(owner), body });
      expect(other.body.id).not.toBe(first.body.id);
      const loose = await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { content: 'twice', nonce: 'n-1' } });
      expect(loose.body.id).not.toBe(first.body.id);
    });

    it('nonces and flags are taken exactly: an integer past 2^53 is refused (it arrives rounded), large ones as strings stay distinct, flags past 32 bits are refused', async () => {
      const post = (raw: string) => t.req('POST', `/channels/${channelId}/messages`, { ...as(member), raw });
      // 2^53 + 1 and 2^53 + 2 parse to one double: taken as numbers, the second would be the first.
      const big = await post('{"content":"big","nonce":9007199254740993,"enforce_nonce":true}');
      expect([big.status, big.body.errors?.nonce?._errors[0].code]).toEqual([400, 'NUMBER_TYPE_MAX']);
      const one = await post('{"content":"one","nonce":"9007199254740993","enforce_nonce":true}');
      const two = await post('{"content":"two","nonce":"9007199254740994","enforce_nonce":true}');
      expect([one.status, two.status]).toEqual([200, 200]);
      expect(two.body.id).not.toBe(one.body.id);
      expect(two.body.content).toBe('two');
      // 2^32 + 4 is SUPPRESS_EMBEDS in its low 32 bits: refused whole, not truncated to them.
      const wide = await post(`{"content":"wide","flags":${2 ** 32 + 4}}`);
      expect([wide.status, wide.body.errors?.flags?._errors[0].code]).toEqual([400, 'MESSAGE_FLAGS_INVALID']);
      expect((await post('{"content":"narrow","flags":4}')).body.flags).toBe(4);
    });

    it('replies carry message_reference and referenced_message; an unknown target is refused unless fail_if_not_exists is false', async () => {
      const target = (await t.req('POST', `/channels/${channelId}/messages`, { ...as(owner), body: { content: 'question' } })).body;
      const reply = await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { content: 'answer', message_reference: { message_id: target.id } } });
      expect(reply.body).toMatchObject({ type: 19, message_reference: { type: 0, message_id: target.id, channel_id: channelId, guild_id: guildId }, referenced_message: { id: target.id, content: 'question' } });
      expect(reply.body.mentions.map((u: { id: string }) => u.id)).toEqual([owner.userId]);
      const quiet = await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { content: 'a', message_reference: { message_id: target.id }, allowed_mentions: { replied_user: false } } });
      expect(quiet.body.mentions).toEqual([]);
      const unknown = await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { content: 'a', message_reference: { message_id: '999' } } });
      expect([unknown.status, unknown.body.code]).toEqual([400, 50035]);
      const loose = await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { content: 'a', message_reference: { message_id: '999', fail_if_not_exists: false } } });
      expect(loose.body.type).toBe(0);
      expect(loose.body.message_reference).toBeUndefined();
      // Deleting the target leaves referenced_message null.
      await t.req('DELETE', `/channels/${channelId}/messages/${target.id}`, as(owner));
      expect((await t.req('GET', `/channels/${channelId}/messages/${reply.body.id}`, as(member))).body.referenced_message).toBeNull();
    });

    it('forwards: a message_snapshots entry without guild; 160014 when the content is unreadable', async () => {
      const source = (await t.req('POST', `/channels/${hiddenId}/messages`, { ...as(owner), body: { content: 'secret plans' } })).body;
      const fwd = await t.req('POST', `/channels/${channelId}/messages`, { ...as(owner), body: { message_reference: { type: 1, message_id: source.id, channel_id: hiddenId } } });
      expect(fwd.status).toBe(200);
      expect(fwd.body).toMatchObject({ content: '', message_reference: { type: 1, message_id: source.id, channel_id: hiddenId, guild_id: guildId } });
      expect(fwd.body.flags & (1 << 14)).toBe(1 << 14);
      expect(fwd.body.message_snapshots).toHaveLength(1);
      const snap = fwd.body.message_snapshots[0].message;
      expect(snap).toMatchObject({ content: 'secret plans', type: 0 });
      expect(snap.guild).toBeUndefined();
      expect(snap.guild_id).toBeUndefined();
      expect(snap.author).toBeUndefined();
      // The member cannot view the source channel: 160014, nothing written.
      const count = await repo().count(channelId);
      const refused = await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { message_reference: { type: 1, message_id: source.id, channel_id: hiddenId } } });
      expect([refused.status, refused.body.code, refused.body.message]).toEqual([403, 160014, 'You cannot forward a message whose content you cannot read']);
      // The bot lacks MESSAGE_CONTENT: someone else's message is unreadable to it.
      const botRefused = await t.req('POST', `/channels/${channelId}/messages`, { ...bot(), body: { message_reference: { type: 1, message_id: source.id, channel_id: hiddenId } } });
      expect(botRefused.body.code).toBe(160014);
      expect(await repo().count(channelId)).toBe(count);
      expect((await t.req('POST', `/channels/${channelId}/messages`, { ...as(owner), body: { message_reference: { type: 1, message_id: '999', channel_id: hiddenId } } })).body.code).toBe(10008);
    });
  });

  describe('edit, delete, bulk delete, reactions, slowmode, pins', () => {
    it('edits only one\'s own messages; deletes others\' only with MANAGE_MESSAGES', async () => {
      const m = (await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { content: 'draft' } })).body;
      const edited = await t.req('PATCH', `/channels/${channelId}/messages/${m.id}`, { ...as(member), body: { content: 'final' } });
      expect(edited.body).toMatchObject({ id: m.id, content: 'final' });
      expect(edited.body.edited_timestamp).not.toBeNull();
      expect((await t.req('PATCH', `/channels/${channelId}/messages/${m.id}`, { ...as(owner), body: { content: 'hijack' } })).body.code).toBe(50005);
      const mine = (await t.req('POST', `/channels/${channelId}/messages`, { ...as(owner), body: { content: 'owner says' } })).body;
      expect((await t.req('DELETE', `/channels/${channelId}/messages/${mine.id}`, as(member))).body.code).toBe(50013);
      expect((await t.req('DELETE', `/channels/${channelId}/messages/${m.id}`, as(owner))).status).toBe(204);
      expect((await t.req('GET', `/channels/${channelId}/messages/${m.id}`, as(owner))).body.code).toBe(10008);
    });

    it('bulk deletes 2 to 100 recent messages with MANAGE_MESSAGES; older than 14 days refuses the whole request', async () => {
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { content: `bulk ${i}` } })).body.id);
      expect((await t.req('POST', `/channels/${channelId}/messages/bulk-delete`, { ...as(member), body: { messages: ids } })).body.code).toBe(50013);
      expect((await t.req('POST', `/channels/${channelId}/messages/bulk-delete`, { ...as(owner), body: { messages: [ids[0]] } })).body.code).toBe(50035);
      const old = ((BigInt(Date.now() - 15 * 24 * 3600_000 - 1420070400000) << 22n)).toString();
      expect((await t.req('POST', `/channels/${channelId}/messages/bulk-delete`, { ...as(owner), body: { messages: [ids[0], old] } })).body.code).toBe(50034);
      expect((await t.req('GET', `/channels/${channelId}/messages/${ids[0]}`, as(owner))).status).toBe(200);
      expect((await t.req('POST', `/channels/${channelId}/messages/bulk-delete`, { ...as(owner), body: { messages: ids } })).status).toBe(204);
      for (const id of ids) expect((await t.req('GET', `/channels/${channelId}/messages/${id}`, as(owner))).body.code).toBe(10008);
    });

    it('reactions: add, count with me, list users, remove; unknown emoji 10014', async () => {
      const m = (await t.req('POST', `/channels/${channelId}/messages`, { ...as(owner), body: { content: 'react to me' } })).body;
      const e = encodeURIComponent('👍');
      expect((await t.req('PUT', `/channels/${channelId}/messages/${m.id}/reactions/${e}/@me`, as(member))).status).toBe(204);
      expect((await t.req('PUT', `/channels/${channelId}/messages/${m.id}/reactions/${e}/@me`, as(owner))).status).toBe(204);
      const got = await t.req('GET', `/channels/${channelId}/messages/${m.id}`, as(member));
      expect(got.body.reactions).toEqual([{ count: 2, count_details: { burst: 0, normal: 2 }, me: true, me_burst: false, burst_colors: [], emoji: { id: null, name: '👍' } }]);
      const users = await t.req('GET', `/channels/${channelId}/messages/${m.id}/reactions/${e}`, as(member));
      expect(users.body.map((u: { id: string }) => u.id).sort()).toEqual([owner.userId, member.userId].sort());
      expect((await t.req('PUT', `/channels/${channelId}/messages/${m.id}/reactions/notanemoji/@me`, as(member))).body.code).toBe(10014);
      expect((await t.req('PUT', `/channels/${channelId}/messages/${m.id}/reactions/x:123/@me`, as(member))).body.code).toBe(10014);
      // Someone else's reaction: MANAGE_MESSAGES.
      expect((await t.req('DELETE', `/channels/${channelId}/messages/${m.id}/reactions/${e}/${owner.userId}`, as(member))).body.code).toBe(50013);
      expect((await t.req('DELETE', `/channels/${channelId}/messages/${m.id}/reactions/${e}/@me`, as(member))).status).toBe(204);
      expect((await t.req('GET', `/channels/${channelId}/messages/${m.id}`, as(member))).body.reactions[0]).toMatchObject({ count: 1, me: false });
      expect((await t.req('DELETE', `/channels/${channelId}/messages/${m.id}/reactions`, as(owner))).status).toBe(204);
      expect((await t.req('GET', `/channels/${channelId}/messages/${m.id}`, as(member))).body.reactions).toBeUndefined();
    });

    it('slowmode: a second message within rate_limit_per_user is refused; BYPASS_SLOWMODE lifts it', async () => {
      const slow = (await t.server.store.guilds.createChannel(t.server.store.database.db, guildId, { type: 0, name: 'slow', rate_limit_per_user: 60 })).id;
      expect((await t.req('POST', `/channels/${slow}/messages`, { ...as(member), body: { content: 'one' } })).status).toBe(200);
      const second = await t.req('POST', `/channels/${slow}/messages`, { ...as(member), body: { content: 'two' } });
      expect(second.status).toBe(429);
      expect(second.body.retry_after).toBeGreaterThan(50);
      // MANAGE_MESSAGES alone no longer bypasses it (2026 permission split); BYPASS_SLOWMODE does.
      await setOverwrites(slow, [{ id: member.userId, type: 1, allow: Permission.ManageMessages.toString(), deny: '0' }]);
      expect((await t.req('POST', `/channels/${slow}/messages`, { ...as(member), body: { content: 'two' } })).status).toBe(429);
      await setOverwrites(slow, [{ id: member.userId, type: 1, allow: Permission.BypassSlowmode.toString(), deny: '0' }]);
      expect((await t.req('POST', `/channels/${slow}/messages`, { ...as(member), body: { content: 'two' } })).status).toBe(200);
    });

    it('pins: PIN_MESSAGES on the new routes, paginated Get Channel Pins, the deprecated routes still answer', async () => {
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { content: `pin ${i}` } })).body.id);
      // MANAGE_MESSAGES without PIN_MESSAGES: refused.
      await setOverwrites(channelId, [{ id: member.userId, type: 1, allow: Permission.ManageMessages.toString(), deny: '0' }]);
      expect((await t.req('PUT', `/channels/${channelId}/messages/pins/${ids[0]}`, as(member))).body.code).toBe(50013);
      await setOverwrites(channelId, [{ id: member.userId, type: 1, allow: Permission.PinMessages.toString(), deny: '0' }]);
      for (const id of ids) {
        expect((await t.req('PUT', `/channels/${channelId}/messages/pins/${id}`, as(member))).status).toBe(204);
        await new Promise((r) => setTimeout(r, 5));
      }
      const page1 = await t.req('GET', `/channels/${channelId}/messages/pins?limit=2`, as(member));
      expect(page1.body.has_more).toBe(true);
      expect(page1.body.items.map((i: { message: { content: string } }) => i.message.content)).toEqual(['pin 2', 'pin 1']);
      expect(page1.body.items[0].message.pinned).toBe(true);
      const page2 = await t.req('GET', `/channels/${channelId}/messages/pins?limit=2&before=${encodeURIComponent(page1.body.items[1].pinned_at)}`, as(member));
      expect(page2.body).toMatchObject({ has_more: false, items: [{ message: { id: ids[0] } }] });
      expect((await t.req('GET', `/channels/${channelId}/pins`, as(member))).body.map((m: { id: string }) => m.id)).toEqual([...ids].reverse());
      expect((await t.req('DELETE', `/channels/${channelId}/pins/${ids[1]}`, as(member))).status).toBe(204);
      expect((await t.req('DELETE', `/channels/${channelId}/messages/pins/${ids[2]}`, as(member))).status).toBe(204);
      expect((await t.req('GET', `/channels/${channelId}/pins`, as(member))).body.map((m: { id: string }) => m.id)).toEqual([ids[0]]);
      expect((await t.req('PUT', `/channels/${channelId}/messages/pins/999`, as(member))).body.code).toBe(10008);
      await setOverwrites(channelId, []);
    });
  });

  describe('Gateway dispatch', () => {
    it('reaches sessions by intents and VIEW_CHANNEL; bots without MESSAGE_CONTENT get empty content unless mentioned', async () => {
      const all = MessageIntent.Guilds | MessageIntent.GuildMessages | MessageIntent.GuildMessageReactions | MessageIntent.GuildMessageTyping;
      const ownerGw = await gateway(owner.token, all);
      const memberGw = await gateway(member.token, all);
      const noIntent = await gateway(owner.token, MessageIntent.Guilds);
      const botGw = await gateway(t.app.botToken, all);
      try {
        const m = (await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { content: 'to everyone' } })).body;
        const created = (await ownerGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === m.id)).d;
        expect(created).toMatchObject({ guild_id: guildId, channel_id: channelId, content: 'to everyone', author: { id: member.userId }, member: { roles: [] } });
        expect((await botGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === m.id)).d).toMatchObject({ content: '', embeds: [], components: [], attachments: [] });
        const mention = (await t.req('POST', `/channels/${channelId}/messages`, { ...as(member), body: { content: `hey <@${botUserId}>` } })).body;
        expect((await botGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === mention.id)).d.content).toBe(`hey <@${botUserId}>`);

        // A message in the hidden channel reaches the owner, not the member.
        const secret = (await t.req('POST', `/channels/${hiddenId}/messages`, { ...as(owner), body: { content: 'hidden' } })).body;
        await ownerGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === secret.id);

        await t.req('PATCH', `/channels/${channelId}/messages/${m.id}`, { ...as(member), body: { content: 'edited' } });
        expect((await ownerGw.next((f) => f.t === 'MESSAGE_UPDATE' && f.d.id === m.id)).d.content).toBe('edited');
        await t.req('PUT', `/channels/${channelId}/messages/${m.id}/reactions/${encodeURIComponent('🎉')}/@me`, as(owner));
        expect((await memberGw.next((f) => f.t === 'MESSAGE_REACTION_ADD' && f.d.message_id === m.id)).d).toMatchObject({ user_id: owner.userId, emoji: { id: null, name: '🎉' }, message_author_id: member.userId, guild_id: guildId });
        await t.req('DELETE', `/channels/${channelId}/messages/${m.id}/reactions/${encodeURIComponent('🎉')}/@me`, as(owner));
        await memberGw.next((f) => f.t === 'MESSAGE_REACTION_REMOVE' && f.d.message_id === m.id);
        expect((await t.req('POST', `/channels/${channelId}/typing`, as(member))).status).toBe(204);
        expect((await ownerGw.next((f) => f.t === 'TYPING_START')).d).toMatchObject({ channel_id: channelId, user_id: member.userId, guild_id: guildId });
        await t.req('PUT', `/channels/${channelId}/messages/pins/${m.id}`, as(owner));
        expect((await memberGw.next((f) => f.t === 'CHANNEL_PINS_UPDATE')).d).toMatchObject({ channel_id: channelId, guild_id: guildId });
        await t.req('DELETE', `/channels/${channelId}/messages/${m.id}`, as(member));
        expect((await ownerGw.next((f) => f.t === 'MESSAGE_DELETE' && f.d.id === m.id)).d).toEqual({ id: m.id, channel_id: channelId, guild_id: guildId });
        const a = (await t.req('POST', `/channels/${channelId}/messages`, { ...as(owner), body: { content: 'a' } })).body.id;
        const b = (await t.req('POST', `/channels/${channelId}/messages`, { ...as(owner), body: { content: 'b' } })).body.id;
        await t.req('POST', `/channels/${channelId}/messages/bulk-delete`, { ...as(owner), body: { messages: [a, b] } });
        expect((await memberGw.next((f) => f.t === 'MESSAGE_DELETE_BULK')).d).toMatchObject({ ids: expect.arrayContaining([a, b]), channel_id: channelId, guild_id: guildId });

        // Let every dispatch land, then check what must not have arrived.
        await new Promise((r) => setTimeout(r, 200));
        expect(memberGw.frames.some((f) => f.t === 'MESSAGE_CREATE' && f.d.id === secret.id)).toBe(false);
        expect(memberGw.frames.some((f) => f.t === 'TYPING_START' && f.d.user_id === member.userId)).toBe(true);
        expect(noIntent.frames.some((f) => typeof f.t === 'string' && (f.t.startsWith('MESSAGE_') || f.t === 'TYPING_START'))).toBe(false);
        // The same message reached the owner with its content: the bot's copy was emptied per session.
        expect(ownerGw.frames.find((f) => f.t === 'MESSAGE_CREATE' && f.d.id === m.id).d.content).toBe('to everyone');
      } finally {
        for (const g of [ownerGw, memberGw, noIntent, botGw]) g.terminate();
      }
    });
  });
});
