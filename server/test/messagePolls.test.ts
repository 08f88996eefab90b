import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { MessageIntent } from '../src/messages/messageGateway.ts';
import { channelMessageRepo } from '../src/storage/ChannelMessageRepo.ts';

/**
 * Polls kept with channel messages (migration 0019): a poll created with Create Message, and
 * one added to a deferred interaction response, are read back from channel history and Get
 * Channel Message in the public Poll shape; the public poll limits answer 50035 at their path
 * and write nothing; SEND_POLLS is needed in a guild channel. Votes (the client's route) count in
 * `results.answer_counts` with `me_voted`, send MESSAGE_POLL_VOTE_ADD/REMOVE, list with Get Answer
 * Voters; End Poll (author only) finalizes the results. SQLite and PostgreSQL.
 */
let t: TestServer;
let owner: { token: string; userId: string };
let member: { token: string; userId: string };
let guildId: string;
let channelId: string;
let userGw: RawGateway;
let bot: RawGateway;

const repo = () => channelMessageRepo(t.server.store.database.db, t.server.store.ids);
const poll = (extra: Record<string, unknown> = {}) => ({ question: { text: 'Lunch?' }, answers: [{ poll_media: { text: 'Pizza', emoji: { name: '🍕' } } }, { poll_media: { text: 'Salad' } }], duration: 2, allow_multiselect: true, ...extra });
const at = (tree: any, path: (string | number)[]) => path.reduce((n, k) => n?.[k], tree)?._errors?.[0]?.code;

async function userToken(name: string): Promise<{ token: string; userId: string }> {
  const g = await t.guest(name);
  return { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
}

/** The public Poll object: question, answers with IDs 1…n, expiry, allow_multiselect, layout_type, results. */
function expectPublicPoll(p: any, hours: number): void {
  expect(p).toMatchObject({
    question: { text: 'Lunch?' },
    answers: [{ answer_id: 1, poll_media: { text: 'Pizza', emoji: { name: '🍕' } } }, { answer_id: 2, poll_media: { text: 'Salad' } }],
    allow_multiselect: true,
    layout_type: 1,
    results: { is_finalized: false, answer_counts: [] },
  });
  expect(Math.abs(Date.parse(p.expiry) - Date.now() - hours * 3600_000)).toBeLessThan(120_000);
}

afterAll(async () => {
  await dropTestSchemas();
});

describe.each(databaseConfigs())('message polls on $name', ({ config }) => {
  beforeAll(async () => {
    t = await startTestServer({ rateLimits: false, database: config() });
    owner = await userToken('Owner');
    member = await userToken('Member');
    const s = guildServicesFor(t.server.store, undefined as never);
    guildId = (await s.guilds.createGuild(owner.userId, { name: 'Polls' })).id;
    await s.members.join(guildId, member.userId);
    channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
    await s.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages | Permission.ReadMessageHistory);
    userGw = await RawGateway.open(t.server);
    userGw.send({ op: 2, d: { token: owner.token, intents: MessageIntent.Guilds | MessageIntent.GuildMessages | MessageIntent.GuildMessagePolls, properties: { os: 'linux', browser: 'test', device: 'test' } } });
    await userGw.next((f) => f.t === 'READY');
    bot = await RawGateway.open(t.server);
    await bot.identify(t.app.botToken);
  });
  afterAll(async () => {
    userGw?.terminate();
    bot?.terminate();
    await t.close();
    cleanupTempDirs();
  });

  it('Create Message with a poll: the answer, MESSAGE_CREATE, history and Get Message carry it', async () => {
    const r = await t.req('POST', `/channels/${channelId}/messages`, { token: member.token, body: { poll: poll() } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.content).toBe('');
    expectPublicPoll(r.body.poll, 2);
    const ev = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === r.body.id);
    expectPublicPoll(ev.d.poll, 2);
    const one = await t.req('GET', `/channels/${channelId}/messages/${r.body.id}`, { token: owner.token });
    expectPublicPoll(one.body.poll, 2);
    const history = await t.req('GET', `/channels/${channelId}/messages?limit=10`, { token: owner.token });
    expectPublicPoll(history.body.find((m: any) => m.id === r.body.id).poll, 2);
    // A plain message has no poll field; the default duration is 24 hours.
    const plain = await t.req('POST', `/channels/${channelId}/messages`, { token: member.token, body: { content: 'no poll' } });
    expect(plain.body).not.toHaveProperty('poll');
    const day = await t.req('POST', `/channels/${channelId}/messages`, { token: member.token, body: { content: 'vote', poll: poll({ duration: undefined }) } });
    expectPublicPoll(day.body.poll, 24);
    expect(day.body.content).toBe('vote');
  });

  it('refuses polls past the public limits with 50035 at their path, and without SEND_POLLS, writing nothing', async () => {
    const before = await repo().count(channelId);
    const answers = (n: number) => Array.from({ length: n }, (_, i) => ({ poll_media: { text: `A${i}` } }));
    const cases: [unknown, (string | number)[]][] = [
      [poll({ question: { text: 'q'.repeat(301) } }), ['poll', 'question', 'text']],
      [poll({ question: undefined }), ['poll', 'question', 'text']],
      [poll({ answers: answers(11) }), ['poll', 'answers']],
      [poll({ answers: [] }), ['poll', 'answers']],
      [poll({ answers: [{ poll_media: { text: 'x'.repeat(56) } }] }), ['poll', 'answers', 0, 'poll_media', 'text']],
      [poll({ answers: [{ poll_media: { text: 'ok', emoji: { name: 5 } } }] }), ['poll', 'answers', 0, 'poll_media', 'emoji']],
      [poll({ duration: 769 }), ['poll', 'duration']],
      [poll({ duration: 0 }), ['poll', 'duration']],
      [poll({ layout_type: 2 }), ['poll', 'layout_type']],
      ['not a poll', ['poll']],
    ];
    for (const [p, path] of cases) {
      const r = await t.req('POST', `/channels/${channelId}/messages`, { token: member.token, body: { poll: p } });
      expect([r.status, r.body.code], JSON.stringify(p)).toEqual([400, 50035]);
      expect(at(r.body.errors, path), JSON.stringify(r.body.errors)).toBeTruthy();
    }
    // A forward carries no poll of its own.
    const fwd = await t.req('POST', `/channels/${channelId}/messages`, { token: member.token, body: { poll: poll(), message_reference: { type: 1, message_id: '1', channel_id: channelId } } });
    expect(fwd.body.code).toBe(50035);
    // SEND_POLLS denied in the channel: 50013 (a plain message still goes through).
    await t.server.store.database.db.updateTable('guild_channels').set({ permission_overwrites: JSON.stringify([{ id: member.userId, type: 1, allow: '0', deny: Permission.SendPolls.toString() }]) }).where('id', '=', channelId).execute();
    const denied = await t.req('POST', `/channels/${channelId}/messages`, { token: member.token, body: { poll: poll() } });
    expect([denied.status, denied.body.code]).toEqual([403, 50013]);
    await t.server.store.database.db.updateTable('guild_channels').set({ permission_overwrites: '[]' }).where('id', '=', channelId).execute();
    expect(await repo().count(channelId)).toBe(before);
  });

  it('a poll added to a deferred interaction response is kept with the channel message', async () => {
    const cmd = (await t.req('POST', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true, body: { name: 'vote', description: 'Vote' } })).body.id;
    // Only the web app (the first-party application) invokes interactions.
    const web = await t.server.store.tokens.issue(owner.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600);
    const inv = await t.req('POST', '/interactions', { token: web, body: { type: 2, channel_id: channelId, data: { id: cmd } } });
    expect(inv.status, JSON.stringify(inv.body)).toBe(200);
    const i = (await bot.next((f) => f.t === 'INTERACTION_CREATE' && f.d.id === inv.body.id)).d;
    const cb = await fetch(`${t.api}/interactions/${i.id}/${i.token}/callback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 5 }) });
    expect(cb.status).toBe(204);
    const edit = await fetch(`${t.api}/webhooks/${t.app.id}/${i.token}/messages/@original`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: 'Vote now', poll: poll() }) });
    const edited = await edit.json();
    expect(edit.status, JSON.stringify(edited)).toBe(200);
    expectPublicPoll(edited.poll, 2);
    const history = await t.req('GET', `/channels/${channelId}/messages?limit=5`, { token: member.token });
    const m = history.body.find((x: any) => x.id === edited.id);
    expect(m.content).toBe('Vote now');
    expectPublicPoll(m.poll, 2);
    expectPublicPoll((await t.req('GET', `/channels/${channelId}/messages/${edited.id}`, { token: member.token })).body.poll, 2);
    // The token's route reads the same poll (and a second poll is still refused).
    const orig = await (await fetch(`${t.api}/webhooks/${t.app.id}/${i.token}/messages/@original`)).json();
    expectPublicPoll(orig.poll, 2);
    const again = await fetch(`${t.api}/webhooks/${t.app.id}/${i.token}/messages/@original`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ poll: poll() }) });
    expect((await again.json()).errors.poll._errors[0].code).toBe('POLL_EDIT_NOT_ALLOWED');
  });

  it('votes: counted with me_voted, MESSAGE_POLL_VOTE_ADD/REMOVE, Get Answer Voters; End Poll by its author finalizes', async () => {
    const m = (await t.req('POST', `/channels/${channelId}/messages`, { token: member.token, body: { content: 'vote!', poll: poll() } })).body;
    const vote = (who: { token: string }, ids: unknown[], id = m.id) => t.req('PUT', `/channels/${channelId}/polls/${id}/answers/@me`, { token: who.token, body: { answer_ids: ids } });
    expect((await vote(member, [1])).status).toBe(204);
    expect((await userGw.next((f) => f.t === 'MESSAGE_POLL_VOTE_ADD' && f.d.message_id === m.id)).d).toMatchObject({ user_id: member.userId, channel_id: channelId, guild_id: guildId, answer_id: 1 });
    expect((await vote(member, ['1', '2'])).status).toBe(204);
    expect((await userGw.next((f) => f.t === 'MESSAGE_POLL_VOTE_ADD' && f.d.message_id === m.id && f.d.answer_id === 2)).d.user_id).toBe(member.userId);
    expect((await vote(owner, [2])).status).toBe(204);
    expect((await vote(member, [2])).status).toBe(204);
    expect((await userGw.next((f) => f.t === 'MESSAGE_POLL_VOTE_REMOVE' && f.d.message_id === m.id)).d).toMatchObject({ user_id: member.userId, answer_id: 1 });
    const seen = async (who: { token: string }) => (await t.req('GET', `/channels/${channelId}/messages/${m.id}`, { token: who.token })).body.poll.results;
    expect(await seen(member)).toEqual({ is_finalized: false, answer_counts: [{ id: 2, count: 2, me_voted: true }] });
    expect((await t.req('GET', `/channels/${channelId}/messages?limit=5`, { token: owner.token })).body.find((x: any) => x.id === m.id).poll.results.answer_counts).toEqual([{ id: 2, count: 2, me_voted: true }]);
    const voters = await t.req('GET', `/channels/${channelId}/polls/${m.id}/answers/2`, { token: owner.token });
    expect(voters.status).toBe(200);
    expect(voters.body.users.map((u: any) => u.id).sort()).toEqual([owner.userId, member.userId].sort());
    expect((await t.req('GET', `/channels/${channelId}/polls/${m.id}/answers/2?limit=1`, { token: owner.token })).body.users).toHaveLength(1);
    expect((await t.req('GET', `/channels/${channelId}/polls/${m.id}/answers/1`, { token: owner.token })).body.users).toEqual([]);
    // Refusals: an unknown answer, two answers on a single-answer poll, a bot, a message without a poll.
    expect(at((await vote(member, [3])).body.errors, ['answer_ids', 0])).toBe('BASE_TYPE_CHOICES');
    const single = (await t.req('POST', `/channels/${channelId}/messages`, { token: member.token, body: { poll: poll({ allow_multiselect: false }) } })).body;
    expect((await vote(member, [1, 2], single.id)).body.code).toBe(50035);
    expect((await t.req('PUT', `/channels/${channelId}/polls/${m.id}/answers/@me`, { token: t.app.botToken, bot: true, body: { answer_ids: [1] } })).body.code).toBe(20001);
    const plain = (await t.req('POST', `/channels/${channelId}/messages`, { token: member.token, body: { content: 'plain' } })).body;
    expect((await t.req('POST', `/channels/${channelId}/polls/${plain.id}/expire`, { token: member.token })).body.code).toBe(520006);
    // End Poll: not by someone else (50005); by its author: final results, MESSAGE_UPDATE; then no more votes.
    expect((await t.req('POST', `/channels/${channelId}/polls/${m.id}/expire`, { token: owner.token })).body.code).toBe(50005);
    const ended = await t.req('POST', `/channels/${channelId}/polls/${m.id}/expire`, { token: member.token });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
    expect(ended.body.poll.results).toEqual({ is_finalized: true, answer_counts: [{ id: 2, count: 2, me_voted: true }] });
    expect((await userGw.next((f) => f.t === 'MESSAGE_UPDATE' && f.d.id === m.id)).d.poll.results.is_finalized).toBe(true);
    expect((await vote(owner, [1])).body.code).toBe(520001);
    expect((await t.req('POST', `/channels/${channelId}/polls/${m.id}/expire`, { token: member.token })).body.code).toBe(520001);
    expect((await seen(owner)).answer_counts).toEqual([{ id: 2, count: 2, me_voted: true }]);
  });
});
