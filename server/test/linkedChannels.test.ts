import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, keepWebhookEvents, startTestServer, type TestServer, webToken } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { channelMessageRepo } from '../src/storage/ChannelMessageRepo.ts';
import { linkedChannelRepo } from '../src/storage/LinkedChannelRepo.ts';

/**
 * Linked channels over REST (issue 12), on SQLite and PostgreSQL: the linkability rules with
 * their documented codes and nothing written on a refusal, the lobby's `linked_channel`, the
 * mirror both ways with edits and deletes, bans, the webhook outbox, unlinking, the idle timeout,
 * and lobby channel invites (single use, one hour by the injected clock).
 */
let t: TestServer;
let now = Date.now();
const clock = { now: () => now };
/** A person: `token` is the game's (lobbies), `site` the web app's (the guild side). */
type Who = { token: string; userId: string; site: string };
let owner: Who; // guild owner, lobby member with CanLinkLobby
let player: Who; // lobby member without the flag, not in the guild
let web: Who; // guild member writing from the web app
let linker: Who; // lobby member with CanLinkLobby but no MANAGE_CHANNELS in the guild
let outsider: Who; // in the guild, not in the lobby
let guildId: string;
let textId: string;
let voiceId: string;
let nsfwId: string;
let lobbyId: string;
let lobby2Id: string;

const as = (w: Who) => ({ token: w.token });
const site = (w: Who) => ({ token: w.site });
const bot = () => ({ token: t.app.botToken, bot: true });
const links = () => linkedChannelRepo(t.server.store.database.db);
const channelMessages = () => channelMessageRepo(t.server.store.database.db, t.server.store.ids);

async function user(name: string): Promise<Who> {
  const g = await t.guest(name);
  return { token: await t.server.store.tokens.issue(g.userId, t.app.id, ['identify', 'guilds', 'sdk.social_layer'], 3600), userId: g.userId, site: await webToken(t, g.userId) };
}

async function outbox(type: string): Promise<any[]> {
  const rows = await t.server.store.database.db.selectFrom('webhook_events').selectAll().where('type', '=', type).where('application_id', '=', t.app.id).execute();
  return rows.map((r) => JSON.parse(r.data));
}

async function lobbyHistory(who: Who, id = lobbyId): Promise<any[]> {
  // Channel-to-lobby copies are queued after the channel request answers (security review P1).
  await t.server.drainLinkedChannels();
  const r = await t.req('GET', `/lobbies/${id}/messages?limit=50`, as(who));
  expect(r.status).toBe(200);
  return r.body;
}

afterAll(async () => {
  await dropTestSchemas();
});

describe.each(databaseConfigs())('linked channels on $name', ({ config }) => {
  beforeAll(async () => {
    t = await startTestServer({ rateLimits: false, database: config(), linkedChannels: { clock } });
    await keepWebhookEvents(t);
    [owner, player, web, linker, outsider] = [await user('Owner'), await user('Player'), await user('Web'), await user('Linker'), await user('Outsider')];
    const s = guildServicesFor(t.server.store, undefined as never);
    guildId = (await s.guilds.createGuild(owner.userId, { name: 'Linked Guild' })).id;
    for (const w of [web, linker, outsider]) await s.members.join(guildId, w.userId);
    const channels = await t.server.store.guilds.channels(guildId);
    textId = channels.find((c) => c.type === 0)!.id;
    voiceId = channels.find((c) => c.type === 2)!.id;
    nsfwId = (await t.server.store.guilds.createChannel(t.server.store.database.db, guildId, { type: 0, name: 'adults', nsfw: 1 })).id;
    const created = await t.req('POST', '/lobbies', {
      ...bot(),
      body: { members: [{ id: owner.userId, flags: 1 }, { id: player.userId }, { id: linker.userId, flags: 1 }], idle_timeout_seconds: 5 },
    });
    expect(created.status).toBe(200);
    lobbyId = created.body.id;
    lobby2Id = (await t.req('POST', '/lobbies', { ...bot(), body: { members: [{ id: owner.userId, flags: 1 }] } })).body.id;
  });
  afterAll(async () => {
    await t.close();
    cleanupTempDirs();
  });

  it('refuses bad input with the documented codes and writes nothing', async () => {
    const link = (who: Who, channel_id: string, id = lobbyId) => t.req('PATCH', `/lobbies/${id}/channel-linking`, { ...as(who), body: { channel_id } });
    const cases: [string, Promise<{ status: number; body: any }>, number, number][] = [
      ['non-member of the lobby', link(outsider, textId), 403, 50001],
      ['member without CanLinkLobby', link(player, textId), 403, 50013],
      ['without MANAGE_CHANNELS', link(linker, textId), 403, 50013],
      ['a voice channel', link(owner, voiceId), 400, 50024],
      ['an NSFW channel', link(owner, nsfwId), 400, 50024],
      ['an unknown channel', link(owner, '1234567890123456789'), 404, 10003],
      ['an unknown lobby', link(owner, textId, '1234567890123456789'), 404, 10031],
      ['a lobby ID that is no snowflake', link(owner, textId, 'abc'), 404, 10031],
      ['a channel ID that is no snowflake', link(owner, 'abc'), 400, 50035],
      ['the bot token', t.req('PATCH', `/lobbies/${lobbyId}/channel-linking`, { ...bot(), body: { channel_id: textId } }), 403, 20001],
    ];
    for (const [name, p, status, code] of cases) {
      const r = await p;
      expect({ name, status: r.status, code: r.body?.code }).toEqual({ name, status, code });
    }
    expect(await links().ofLobby(lobbyId)).toBeUndefined();
    expect(await links().ofChannel(textId)).toBeUndefined();
    const l = await t.req('GET', `/lobbies/${lobbyId}`, as(owner));
    expect(l.body.linked_channel).toBeUndefined();
    // No invite without a link.
    expect((await t.req('POST', `/lobbies/${lobbyId}/members/@me/invites`, as(player))).body.code).toBe(10003);
  });

  it('lists the guild for the SDK with linkability', async () => {
    const guilds = await t.req('GET', '/users/@me/sdk/guilds', as(owner));
    expect(guilds.body).toEqual([{ id: guildId, name: 'Linked Guild' }]);
    const channels = await t.req('GET', `/users/@me/sdk/guilds/${guildId}/channels`, as(owner));
    expect(channels.status).toBe(200);
    const byId = new Map(channels.body.map((c: any) => [c.id, c]));
    expect(byId.get(textId)).toMatchObject({ type: 0, is_linkable: true, is_viewable_and_writeable_by_all_members: true, linked_lobby: null });
    expect(byId.get(voiceId)).toMatchObject({ is_linkable: false });
    expect(byId.get(nsfwId)).toMatchObject({ is_linkable: false });
    const positions = channels.body.map((c: any) => c.position);
    expect(positions).toEqual([...positions].sort((a: number, b: number) => a - b));
    // Without MANAGE_CHANNELS nothing is linkable for that user.
    const theirs = await t.req('GET', `/users/@me/sdk/guilds/${guildId}/channels`, as(linker));
    expect(theirs.body.every((c: any) => c.is_linkable === false)).toBe(true);
    expect((await t.req('GET', `/users/@me/sdk/guilds/${guildId}/channels`, as(player))).body.code).toBe(50001);
  });

  it('links, mirrors both ways with edits and deletes, and records the webhook events', async () => {
    const r = await t.req('PATCH', `/lobbies/${lobbyId}/channel-linking`, { ...as(owner), body: { channel_id: textId } });
    expect(r.status).toBe(200);
    expect(r.body.linked_channel).toEqual({ id: textId, name: 'general', guild_id: guildId, type: 0 });
    // One lobby per channel.
    const second = await t.req('PATCH', `/lobbies/${lobby2Id}/channel-linking`, { ...as(owner), body: { channel_id: textId } });
    expect(second.status).toBe(400);
    expect(second.body.errors.channel_id._errors[0].code).toBe('LOBBY_CHANNEL_ALREADY_LINKED');
    expect((await links().ofLobby(lobby2Id))).toBeUndefined();
    const listed = await t.req('GET', `/users/@me/sdk/guilds/${guildId}/channels`, as(owner));
    expect(listed.body.find((c: any) => c.id === textId)).toMatchObject({ is_linkable: false, linked_lobby: { application_id: t.app.id, lobby_id: lobbyId } });

    // Game -> channel: authored by the player, the application as the source.
    const sent = await t.req('POST', `/lobbies/${lobbyId}/messages`, { ...as(player), body: { content: 'hello from the game' } });
    expect(sent.status).toBe(200);
    expect(sent.body.linked_message).toMatchObject({ channel_id: textId, guild_id: guildId, origin: 'lobby' });
    const inChannel = await t.req('GET', `/channels/${textId}/messages`, site(web));
    expect(inChannel.body).toHaveLength(1);
    expect(inChannel.body[0]).toMatchObject({ id: sent.body.linked_message.id, content: 'hello from the game', author: { id: player.userId }, application_id: t.app.id });

    // Channel -> game, once; then edit and delete follow.
    const posted = await t.req('POST', `/channels/${textId}/messages`, { ...site(web), body: { content: 'hello from the web' } });
    expect(posted.status).toBe(200);
    let history = await lobbyHistory(player);
    expect(history.map((m) => m.content)).toEqual(['hello from the web', 'hello from the game']);
    const copy = history[0];
    expect(copy).toMatchObject({ author: { id: web.userId }, linked_message: { id: posted.body.id, origin: 'channel' } });
    expect((await t.req('GET', `/channels/${textId}/messages`, site(web))).body).toHaveLength(2);

    const edited = await t.req('PATCH', `/channels/${textId}/messages/${posted.body.id}`, { ...site(web), body: { content: 'edited on the web' } });
    expect(edited.status).toBe(200);
    history = await lobbyHistory(player);
    expect(history[0]).toMatchObject({ id: copy.id, content: 'edited on the web' });
    expect(history[0].edited_timestamp).toEqual(expect.any(String));

    // An embed-only message carries its additional content.
    const embed = await t.req('POST', `/channels/${textId}/messages`, { ...site(web), body: { embeds: [{ title: 'Score', description: '42' }] } });
    expect(embed.status).toBe(200);
    history = await lobbyHistory(player);
    expect(history[0]).toMatchObject({ content: '', additional_content: { type: 5, count: 1, title: 'Score' } });

    expect((await t.req('DELETE', `/channels/${textId}/messages/${posted.body.id}`, site(web))).status).toBe(204);
    history = await lobbyHistory(player);
    expect(history.find((m) => m.id === copy.id)).toBeUndefined();

    expect((await outbox('LOBBY_MESSAGE_CREATE')).map((d) => d.content)).toEqual(expect.arrayContaining(['hello from the game', 'hello from the web']));
    expect((await outbox('LOBBY_MESSAGE_UPDATE')).find((d) => d.id === copy.id)).toMatchObject({ content: 'edited on the web' });
    expect(await outbox('LOBBY_MESSAGE_DELETE')).toContainEqual({ id: copy.id, lobby_id: lobbyId });
  });

  it('keeps messages in order and mirrors each once', async () => {
    const before = (await t.req('GET', `/channels/${textId}/messages?limit=100`, site(web))).body.length;
    for (let i = 0; i < 5; i++) {
      await t.req('POST', `/lobbies/${lobbyId}/messages`, { ...as(player), body: { content: `g${i}` } });
      await t.req('POST', `/channels/${textId}/messages`, { ...site(web), body: { content: `w${i}` } });
      // The channel answer does not wait for the lobby copy; across origins order holds once it landed.
      await t.server.drainLinkedChannels();
    }
    const want = ['g0', 'w0', 'g1', 'w1', 'g2', 'w2', 'g3', 'w3', 'g4', 'w4'];
    const channel = (await t.req('GET', `/channels/${textId}/messages?limit=100`, site(web))).body;
    expect(channel.length - before).toBe(10);
    expect(channel.slice(0, 10).map((m: any) => m.content).reverse()).toEqual(want);
    const lobby = await lobbyHistory(player);
    expect(lobby.slice(0, 10).map((m) => m.content).reverse()).toEqual(want);
    // A burst of channel messages, not waited for one by one: the copies keep the channel's order.
    const burst = ['b0', 'b1', 'b2', 'b3', 'b4'];
    for (const content of burst) expect((await t.req('POST', `/channels/${textId}/messages`, { ...site(web), body: { content } })).status).toBe(200);
    expect((await lobbyHistory(player)).slice(0, 5).map((m) => m.content).reverse()).toEqual(burst);
  });

  it('answers a channel message without waiting for its lobby copy (security review P1)', async () => {
    // Hold the lobby copy's transaction: the channel request must still answer.
    const repo = t.server.store.lobbies;
    const original = repo.transaction.bind(repo);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let held = 0;
    repo.transaction = (async (fn: any) => {
      held++;
      await gate;
      return original(fn);
    }) as typeof repo.transaction;
    try {
      const posted = await t.req('POST', `/channels/${textId}/messages`, { ...site(web), body: { content: 'not waited for' } });
      expect(posted.status).toBe(200);
      const edited = await t.req('PATCH', `/channels/${textId}/messages/${posted.body.id}`, { ...site(web), body: { content: 'edited, not waited for' } });
      expect(edited.status).toBe(200);
      await expect.poll(() => held, { timeout: 10_000 }).toBeGreaterThan(0);
    } finally {
      open();
      repo.transaction = original;
    }
    const history = await lobbyHistory(player);
    expect(history[0]).toMatchObject({ content: 'edited, not waited for', linked_message: { origin: 'channel' } });
  });

  it('applies a guild ban: the banned player is not mirrored, the lobby still gets it', async () => {
    const s = guildServicesFor(t.server.store, undefined as never);
    await s.members.join(guildId, player.userId);
    const ban = await t.req('PUT', `/guilds/${guildId}/bans/${player.userId}`, { ...site(owner), body: {} });
    expect(ban.status).toBe(204);
    const sent = await t.req('POST', `/lobbies/${lobbyId}/messages`, { ...as(player), body: { content: 'banned words' } });
    expect(sent.status).toBe(200);
    expect(sent.body.linked_message).toBeUndefined();
    const channel = (await t.req('GET', `/channels/${textId}/messages?limit=5`, site(web))).body;
    expect(channel.map((m: any) => m.content)).not.toContain('banned words');
    expect((await lobbyHistory(owner))[0].content).toBe('banned words');
    // A banned user gets no lobby channel invite either.
    expect((await t.req('POST', `/lobbies/${lobbyId}/members/@me/invites`, as(player))).body.code).toBe(40007);
    await t.req('DELETE', `/guilds/${guildId}/bans/${player.userId}`, site(owner));
    await t.req('DELETE', `/guilds/${guildId}/members/${player.userId}`, site(owner));
  });

  it('applies the guild\'s AutoMod on both sides', async () => {
    const rule = await t.req('POST', `/guilds/${guildId}/auto-moderation/rules`, {
      ...site(owner),
      body: { name: 'no spoilers', event_type: 1, trigger_type: 1, trigger_metadata: { keyword_filter: ['spoiler'] }, actions: [{ type: 1 }], enabled: true },
    });
    expect(rule.status).toBe(200);
    // From the game: the lobby keeps it, the guild never sees it.
    const sent = await t.req('POST', `/lobbies/${lobbyId}/messages`, { ...as(player), body: { content: 'big spoiler ahead' } });
    expect(sent.status).toBe(200);
    expect(sent.body.linked_message).toBeUndefined();
    expect((await t.req('GET', `/channels/${textId}/messages?limit=5`, site(web))).body.map((m: any) => m.content)).not.toContain('big spoiler ahead');
    // From the web app: blocked (400/200000), so nothing reaches the lobby.
    const blocked = await t.req('POST', `/channels/${textId}/messages`, { ...site(web), body: { content: 'a spoiler from the web' } });
    expect(blocked.body.code).toBe(200000);
    expect((await lobbyHistory(player)).map((m) => m.content)).not.toContain('a spoiler from the web');
    await t.req('DELETE', `/guilds/${guildId}/auto-moderation/rules/${rule.body.id}`, site(owner));
  });

  it('does not time out while linked', async () => {
    await t.server.store.lobbies.setIdleSince(lobbyId, Date.now() - 60_000);
    expect(await t.server.sweepIdleLobbies()).toBe(0);
    expect(await t.server.store.lobbies.get(lobbyId)).toBeDefined();
  });

  it('makes single-use lobby channel invites valid one hour by the injected clock', async () => {
    now = Date.now();
    const mine = await t.req('POST', `/lobbies/${lobbyId}/members/@me/invites`, as(player));
    expect(mine.status).toBe(200);
    expect(new Date(mine.body.expires_at).getTime() - now).toBe(3600_000);
    // Only for them, and once.
    expect((await t.req('POST', `/invites/${mine.body.code}`, site(outsider))).body.code).toBe(10006);
    const accepted = await t.req('POST', `/invites/${mine.body.code}`, site(player));
    expect(accepted.status).toBe(200);
    expect(await t.server.store.guildMembers.isMember(guildId, player.userId)).toBe(true);
    expect((await t.req('GET', `/invites/${mine.body.code}`, as(player))).body.code).toBe(10006);
    await t.req('DELETE', `/guilds/${guildId}/members/${player.userId}`, site(owner));

    // Made 59 minutes ago: still good. Made 61 minutes ago: expired.
    now = Date.now() - 59 * 60_000;
    const fresh = await t.req('POST', `/lobbies/${lobbyId}/members/${player.userId}/invites`, bot());
    expect(fresh.status).toBe(200);
    now = Date.now() - 61 * 60_000;
    const stale = await t.req('POST', `/lobbies/${lobbyId}/members/${player.userId}/invites`, bot());
    expect((await t.req('POST', `/invites/${stale.body.code}`, site(player))).body.code).toBe(10006);
    expect(await t.server.store.guildMembers.isMember(guildId, player.userId)).toBe(false);
    expect((await t.req('POST', `/invites/${fresh.body.code}`, site(player))).status).toBe(200);
    // The bot's route refuses unknown users and non-members of the lobby.
    expect((await t.req('POST', `/lobbies/${lobbyId}/members/1234567890123456789/invites`, bot())).body.code).toBe(10013);
    expect((await t.req('POST', `/lobbies/${lobbyId}/members/${outsider.userId}/invites`, bot())).body.code).toBe(50001);
    now = Date.now();
  });

  it('any CanLinkLobby member may unlink; unlinking stops the mirror', async () => {
    expect((await t.req('PATCH', `/lobbies/${lobbyId}/channel-linking`, { ...as(player), body: {} })).body.code).toBe(50013);
    // The linker has no guild permission at all: unlinking needs none.
    const unlinkedAt = Date.now();
    const r = await t.req('PATCH', `/lobbies/${lobbyId}/channel-linking`, { ...as(linker) });
    expect(r.status).toBe(200);
    expect(r.body.linked_channel).toBeUndefined();
    // The idle clock ran on while linked (started 60 s ago above, with a 5 s timeout); unlinking
    // restarts it, so the lobby gets a whole timeout instead of going at the next sweep.
    expect(Number((await t.server.store.lobbies.get(lobbyId))!.idle_since)).toBeGreaterThanOrEqual(unlinkedAt);
    await t.server.sweepIdleLobbies();
    expect(await t.server.store.lobbies.get(lobbyId)).toBeDefined();
    const count = (await channelMessages().page(textId, { limit: 100 })).length;
    await t.req('POST', `/lobbies/${lobbyId}/messages`, { ...as(player), body: { content: 'after unlink' } });
    await t.req('POST', `/channels/${textId}/messages`, { ...site(web), body: { content: 'web after unlink' } });
    expect((await channelMessages().page(textId, { limit: 100 })).length).toBe(count + 1);
    expect((await lobbyHistory(player)).map((m) => m.content)).not.toContain('web after unlink');
    // Unlinked, the idle clock applies again; the second lobby may now link the channel.
    const l2 = await t.req('PATCH', `/lobbies/${lobby2Id}/channel-linking`, { ...as(owner), body: { channel_id: textId } });
    expect(l2.status).toBe(200);
    expect(l2.body.linked_channel.id).toBe(textId);
  });
});
