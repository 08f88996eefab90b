import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import type { ChannelMessagesTable } from '../src/storage/ChannelMessageRepo.ts';

/**
 * Search Guild Messages (issue 11) on SQLite FTS5 and PostgreSQL tsvector: 100,000 messages
 * written straight into the table (as if they predated the index), so the first search starts
 * the guild's backfill and answers 202 / 110000 until it is done; then the filters, sorting,
 * paging and permissions against counts computed from the generator, and live indexing of
 * messages created, edited and deleted through the API.
 */
const N = 100_000;
let t: TestServer;
let owner: { token: string; userId: string };
let member: { token: string; userId: string };
let outsider: { token: string; userId: string };
let guildId: string;
let openId: string;
let hiddenId: string;

const as = (who: { token: string }) => ({ token: who.token });

/** The generator: what message i holds. */
const gen = (i: number) => ({
  channel: i % 5 === 0 ? 'hidden' : 'open',
  author: i % 2 === 0 ? 'owner' : 'member',
  content: `${i % 10_000 === 0 ? 'needle ' : ''}word${i % 100} filler text number ${i}${i % 1000 === 7 ? ' see https://example.com/x' : ''}`,
  image: i % 250 === 3,
  mentionsOwner: i % 400 === 1,
});
const count = (pred: (i: number) => boolean) => {
  let n = 0;
  for (let i = 0; i < N; i++) if (pred(i)) n++;
  return n;
};

async function userToken(name: string): Promise<{ token: string; userId: string }> {
  const g = await t.guest(name);
  return { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
}

/** 100,000 rows in multi-row inserts inside one transaction (no index rows, no state row). */
async function bulkInsert(): Promise<string[]> {
  const db = t.server.store.database.db;
  const ids: string[] = [];
  const start = Date.now() - N;
  await db.transaction().execute(async (tx) => {
    const batch = t.server.store.database.dialect === 'postgres' ? 1000 : 500;
    for (let i0 = 0; i0 < N; i0 += batch) {
      const rows: ChannelMessagesTable[] = [];
      for (let i = i0; i < Math.min(N, i0 + batch); i++) {
        const g = gen(i);
        const at = start + i;
        const id = t.server.store.ids.next(at);
        ids.push(id);
        rows.push({
          id, channel_id: g.channel === 'hidden' ? hiddenId : openId, guild_id: guildId, author_id: g.author === 'owner' ? owner.userId : member.userId,
          application_id: null, type: 0, content: g.content, flags: 0, tts: 0, nonce: null, mention_everyone: 0,
          mentions: JSON.stringify(g.mentionsOwner ? [owner.userId] : []), mention_roles: '[]', embeds: '[]', components: '[]',
          attachments: g.image ? JSON.stringify([{ id: `${id}`, filename: 'a.png', content_type: 'image/png', size: 1 }]) : '[]',
          message_reference: null, message_snapshots: null, interaction_metadata: null, pinned_at: null, edited_at: null, created_at: at,
        });
      }
      await tx.insertInto('channel_messages').values(rows).execute();
    }
  });
  return ids;
}

afterAll(async () => {
  await dropTestSchemas();
});

describe.each(databaseConfigs())('message search on $name', ({ config }) => {
  let ids: string[];
  const search = (who: { token: string; bot?: boolean }, q: string) => t.req('GET', `/guilds/${guildId}/messages/search?${q}`, who);

  beforeAll(async () => {
    t = await startTestServer({ rateLimits: false, database: config() });
    owner = await userToken('Owner');
    member = await userToken('Member');
    outsider = await userToken('Outsider');
    const s = guildServicesFor(t.server.store, undefined as never);
    guildId = (await s.guilds.createGuild(owner.userId, { name: 'Search Guild' })).id;
    await s.members.join(guildId, member.userId);
    openId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
    hiddenId = (await t.server.store.guilds.createChannel(t.server.store.database.db, guildId, { type: 0, name: 'hidden' })).id;
    await t.server.store.database.db.updateTable('guild_channels').set({ permission_overwrites: JSON.stringify([{ id: member.userId, type: 1, allow: '0', deny: Permission.ViewChannel.toString() }]) }).where('id', '=', hiddenId).execute();
    await s.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.ReadMessageHistory);
    ids = await bulkInsert();
  }, 240_000);
  afterAll(async () => {
    await t.close();
    cleanupTempDirs();
  });

  it('answers 202 with code 110000 and retry_after while the guild is indexed, then 200', async () => {
    const first = await search(as(owner), 'content=needle');
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ code: 110000, retry_after: expect.any(Number), documents_indexed: expect.any(Number) });
    const deadline = Date.now() + 180_000;
    let r = first;
    while (r.status === 202 && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 500));
      r = await search(as(owner), 'content=needle');
    }
    expect(r.status).toBe(200);
    const state = await t.server.store.database.db.selectFrom('message_search_guilds').selectAll().where('guild_id', '=', guildId).executeTakeFirstOrThrow();
    expect([state.state, Number(state.indexed)]).toEqual([1, N]);
  }, 200_000);

  it('finds by content, newest first, with the public result shape', async () => {
    const r = await search(as(owner), 'content=needle');
    expect(r.body.total_results).toBe(count((i) => i % 10_000 === 0));
    expect(r.body.doing_deep_historical_index).toBe(false);
    expect(r.body.threads).toEqual([]);
    const hits = r.body.messages.map((m: { id: string; content: string; hit: boolean }[]) => m[0]!);
    expect(hits.every((m: { content: string; hit: boolean }) => m.content.startsWith('needle ') && m.hit === true)).toBe(true);
    expect(hits.map((m: { id: string }) => m.id)).toEqual(ids.filter((_, i) => i % 10_000 === 0).reverse());
    expect(hits[0]).toMatchObject({ channel_id: expect.any(String), author: { id: expect.any(String) }, attachments: [], embeds: [] });
    // Two words must both appear; case and punctuation do not matter.
    const both = await search(as(owner), `content=${encodeURIComponent('NEEDLE, word0!')}`);
    expect(both.body.total_results).toBe(count((i) => i % 10_000 === 0 && i % 100 === 0));
  });

  it('filters by author, channel, mentions and has; members only see channels they can read', async () => {
    const q = (s: string) => search(as(owner), s).then((r) => r.body.total_results as number);
    expect(await q(`content=word42&author_id=${member.userId}`)).toBe(count((i) => i % 100 === 42 && i % 2 === 1));
    expect(await q(`content=word42&channel_id=${hiddenId}`)).toBe(count((i) => i % 100 === 42 && i % 5 === 0));
    expect(await q(`content=word3&has=image`)).toBe(count((i) => i % 100 === 3 && i % 250 === 3));
    expect(await q(`content=word3&has=-image`)).toBe(count((i) => i % 100 === 3 && i % 250 !== 3));
    expect(await q(`has=link`)).toBe(count((i) => i % 1000 === 7));
    expect(await q(`mentions=${owner.userId}&author_id=${owner.userId}&author_id=${member.userId}`)).toBe(count((i) => i % 400 === 1));
    // The member cannot read `hidden`: its messages are not searched, and naming it is 50001.
    expect((await search(as(member), 'content=word42')).body.total_results).toBe(count((i) => i % 100 === 42 && i % 5 !== 0));
    const denied = await search(as(member), `content=word42&channel_id=${hiddenId}`);
    expect([denied.status, denied.body.code]).toEqual([403, 50001]);
    // Seeing the channel is not enough: without READ_MESSAGE_HISTORY its messages stay out too.
    const overwrites = (deny: bigint) => t.server.store.database.db.updateTable('guild_channels').set({ permission_overwrites: JSON.stringify([{ id: member.userId, type: 1, allow: '0', deny: deny.toString() }]) }).where('id', '=', hiddenId).execute();
    await overwrites(Permission.ReadMessageHistory);
    expect((await search(as(member), 'content=word42')).body.total_results).toBe(count((i) => i % 100 === 42 && i % 5 !== 0));
    await overwrites(0n);
    expect((await search(as(member), 'content=word42')).body.total_results).toBe(count((i) => i % 100 === 42));
    await overwrites(Permission.ViewChannel);
  });

  it('sorts by timestamp either way or by relevance, and pages with limit, offset, min_id and max_id', async () => {
    const asc = await search(as(owner), 'content=needle&sort_order=asc&limit=3');
    expect(asc.body.messages.map((m: { id: string }[]) => m[0]!.id)).toEqual(ids.filter((_, i) => i % 10_000 === 0).slice(0, 3));
    const page2 = await search(as(owner), 'content=needle&limit=3&offset=3');
    expect(page2.body.messages.map((m: { id: string }[]) => m[0]!.id)).toEqual(ids.filter((_, i) => i % 10_000 === 0).reverse().slice(3, 6));
    const bounded = await search(as(owner), `content=needle&min_id=${ids[10_000]}&max_id=${ids[50_000]}`);
    expect(bounded.body.messages.map((m: { id: string }[]) => m[0]!.id)).toEqual([ids[40_000], ids[30_000], ids[20_000]]);
    const rel = await search(as(owner), 'content=needle+word0&sort_by=relevance&limit=25');
    expect(rel.status).toBe(200);
    expect(rel.body.messages.length).toBe(count((i) => i % 10_000 === 0));
  });

  it('indexes messages created, edited and deleted through the API at once', async () => {
    const created = await t.req('POST', `/channels/${openId}/messages`, { ...as(member), body: { content: 'a freshly written zebracorn' } });
    expect(created.status).toBe(200);
    const find = async (word: string) => (await search(as(owner), `content=${word}`)).body.messages.map((m: { id: string }[]) => m[0]!.id);
    expect(await find('zebracorn')).toEqual([created.body.id]);
    await t.req('PATCH', `/channels/${openId}/messages/${created.body.id}`, { ...as(member), body: { content: 'now about a unicornzebra' } });
    expect(await find('zebracorn')).toEqual([]);
    expect(await find('unicornzebra')).toEqual([created.body.id]);
    await t.req('DELETE', `/channels/${openId}/messages/${created.body.id}`, as(member));
    expect(await find('unicornzebra')).toEqual([]);
  });

  it('searches embed texts too, and has=embed finds them', async () => {
    const m = await t.req('POST', `/channels/${openId}/messages`, { ...as(owner), body: { content: 'patch notes', embeds: [{ title: 'Season two', fields: [{ name: 'Balance', value: 'the quokkablade is weaker' }] }] } });
    expect(m.status).toBe(200);
    const r = await search(as(owner), 'content=quokkablade&has=embed');
    expect(r.body.messages.map((x: { id: string }[]) => x[0]!.id)).toEqual([m.body.id]);
    expect((await search(as(owner), 'content=quokkablade&has=-embed')).body.total_results).toBe(0);
  });

  it('leaves a deleted channel\'s messages out', async () => {
    const doomed = await t.req('POST', `/guilds/${guildId}/channels`, { ...as(owner), body: { name: 'doomed' } });
    const m = await t.req('POST', `/channels/${doomed.body.id}/messages`, { ...as(owner), body: { content: 'ephemeralword here' } });
    expect((await search(as(owner), 'content=ephemeralword')).body.messages.map((x: { id: string }[]) => x[0]!.id)).toEqual([m.body.id]);
    expect((await t.req('DELETE', `/channels/${doomed.body.id}`, as(owner))).status).toBe(200);
    expect((await search(as(owner), 'content=ephemeralword')).body).toMatchObject({ total_results: 0, messages: [] });
  });

  it('refuses bad input, strangers and bots without the MESSAGE_CONTENT intent with the public codes', async () => {
    expect((await search(as(owner), 'content=x&limit=26')).body.code).toBe(50035);
    expect((await search(as(owner), 'has=nothing')).body.code).toBe(50035);
    expect((await search(as(owner), 'sort_by=size')).body.code).toBe(50035);
    expect((await search(as(owner), 'author_id=abc')).body.code).toBe(50035);
    const stranger = await search(as(outsider), 'content=needle');
    expect([stranger.status, stranger.body.code]).toEqual([403, 50001]);
    expect((await t.req('GET', '/guilds/123/messages/search?content=x', as(owner))).body.code).toBe(10004);
    const bot = await search({ token: t.app.botToken, bot: true }, 'content=needle');
    expect([bot.status, bot.body.code]).toEqual([403, 50001]);
    // With the intent enabled for the application (GATEWAY_MESSAGE_CONTENT_LIMITED, 1<<19) the bot may search.
    await t.server.store.database.db.updateTable('applications').set({ flags: 1 << 19, flags_new: String(1 << 19) } as never).where('id', '=', t.app.id).execute();
    const allowed = await search({ token: t.app.botToken, bot: true }, 'content=needle');
    expect([allowed.status, allowed.body.total_results]).toEqual([200, count((i) => i % 10_000 === 0)]);
  });
});
