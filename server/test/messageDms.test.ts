import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * Messages in DMs and group DMs of full accounts (issue 11), SQLite and PostgreSQL: Create DM and
 * Create Group DM on `POST /users/@me/channels`, CHANNEL_CREATE, the channel message routes in
 * them (create, reply, edit, delete, pins, reactions, typing), MESSAGE_CREATE to the participants
 * only, with content for a bot without the MESSAGE_CONTENT intent (DMs are exempt), who may write
 * to whom (50007), and the game DMs of the same pair untouched.
 */
let t: TestServer;
type Who = { token: string; userId: string };
let ada: Who;
let bo: Who;
let cy: Who;
let stranger: Who;
let botUserId: string;
let guildChannelId: string;

const DIRECT_MESSAGES = 1 << 12;
const DIRECT_MESSAGE_TYPING = 1 << 14;
const GUILD_MESSAGES = 1 << 9;

async function userToken(name: string): Promise<Who> {
  const g = await t.guest(name);
  // The web app's token (first-party): third-party Bearer tokens get no DMs (messageDmsThirdParty.test.ts).
  return { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
}

async function befriend(a: string, b: string): Promise<void> {
  const db = t.server.store.database.db;
  for (const [x, y] of [[a, b], [b, a]]) await t.server.store.relationships.set(db, { user_id: x!, other_id: y!, application_id: '0', type: 1, is_spam: 0, since: Date.now() });
}

async function gateway(token: string, intents: number, bot = false): Promise<RawGateway> {
  const gw = await RawGateway.open(t.server);
  gw.send({ op: 2, d: { token: bot ? `Bot ${token}` : token, intents, properties: { os: 'linux', browser: 'test', device: 'test' } } });
  await gw.next((f) => f.t === 'READY');
  return gw;
}

const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterAll(async () => {
  await dropTestSchemas();
});

describe.each(databaseConfigs())('DMs and group DMs on $name', ({ config }) => {
  const gws: RawGateway[] = [];
  beforeAll(async () => {
    t = await startTestServer({ rateLimits: false, database: config() });
    ada = await userToken('Ada');
    bo = await userToken('Bo');
    cy = await userToken('Cy');
    stranger = await userToken('Stranger');
    // Ada and Bo share a guild (with the bot in it); Ada and Cy are friends; the stranger shares nothing.
    const s = guildServicesFor(t.server.store, undefined as never);
    const guild = await s.guilds.createGuild(ada.userId, { name: 'Shared' });
    await s.members.join(guild.id, bo.userId);
    await s.installBot(guild.id, t.app.id, Permission.ViewChannel | Permission.SendMessages);
    botUserId = (await t.server.store.applications.get(t.app.id))!.bot_user_id;
    guildChannelId = (await t.server.store.guilds.channels(guild.id)).find((c) => c.type === 0)!.id;
    await befriend(ada.userId, cy.userId);
  });
  afterAll(async () => {
    for (const g of gws.splice(0)) g.terminate();
    await t.close();
    cleanupTempDirs();
  });

  it('opens one DM channel per pair (type 1), announces it to the opener, and messages flow both ways live', async () => {
    const adaGw = await gateway(ada.token, DIRECT_MESSAGES | DIRECT_MESSAGE_TYPING);
    const boGw = await gateway(bo.token, DIRECT_MESSAGES);
    // A session without DIRECT_MESSAGES hears nothing of DMs.
    const boGuildOnly = await gateway(bo.token, GUILD_MESSAGES);
    gws.push(adaGw, boGw, boGuildOnly);

    const open = await t.req('POST', '/users/@me/channels', { token: ada.token, body: { recipient_id: bo.userId } });
    expect(open.status).toBe(200);
    expect(open.body).toMatchObject({ type: 1, last_message_id: null, recipients: [{ id: bo.userId }] });
    expect(open.body.recipients).toHaveLength(1);
    const dmId = open.body.id as string;
    const created = await adaGw.next((f) => f.t === 'CHANNEL_CREATE' && f.d.id === dmId);
    expect(created.d).toMatchObject({ type: 1, recipients: [{ id: bo.userId }] });
    // The other side opening gets the same channel.
    const again = await t.req('POST', '/users/@me/channels', { token: bo.token, body: { recipient_id: ada.userId } });
    expect(again.body).toMatchObject({ id: dmId, recipients: [{ id: ada.userId }] });

    const sent = await t.req('POST', `/channels/${dmId}/messages`, { token: ada.token, body: { content: 'hi Bo' } });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ channel_id: dmId, content: 'hi Bo', author: { id: ada.userId } });
    expect(sent.body.guild_id).toBeUndefined();
    const live = await boGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === sent.body.id);
    // The first message brought the channel to Bo first.
    const boCreate = boGw.frames.findIndex((f) => f.t === 'CHANNEL_CREATE' && f.d.id === dmId);
    expect(boCreate).toBeGreaterThanOrEqual(0);
    expect(boCreate).toBeLessThan(boGw.frames.findIndex((f) => f.t === 'MESSAGE_CREATE' && f.d.id === sent.body.id));
    expect(boGw.frames[boCreate].d.recipients.map((u: { id: string }) => u.id)).toEqual([ada.userId]);
    expect(live.d).toMatchObject({ channel_id: dmId, content: 'hi Bo', author: { id: ada.userId } });
    expect(live.d.guild_id).toBeUndefined();
    expect(live.d.member).toBeUndefined();
    expect(live.d.channel_type).toBe(1);
    await adaGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === sent.body.id);

    // A reply, an edit, a pin, a reaction and typing, all with the guild-channel code.
    const reply = await t.req('POST', `/channels/${dmId}/messages`, { token: bo.token, body: { content: 'hello', message_reference: { message_id: sent.body.id } } });
    expect(reply.body).toMatchObject({ type: 19, referenced_message: { id: sent.body.id }, message_reference: { message_id: sent.body.id, channel_id: dmId } });
    expect(reply.body.message_reference.guild_id).toBeUndefined();
    expect(reply.body.mentions.map((u: { id: string }) => u.id)).toEqual([ada.userId]);
    const edited = await t.req('PATCH', `/channels/${dmId}/messages/${sent.body.id}`, { token: ada.token, body: { content: 'hi Bo!' } });
    expect(edited.body).toMatchObject({ content: 'hi Bo!' });
    await boGw.next((f) => f.t === 'MESSAGE_UPDATE' && f.d.id === sent.body.id && f.d.content === 'hi Bo!');
    expect((await t.req('PATCH', `/channels/${dmId}/messages/${sent.body.id}`, { token: bo.token, body: { content: 'no' } })).body.code).toBe(50005);
    expect((await t.req('PUT', `/channels/${dmId}/messages/pins/${sent.body.id}`, { token: bo.token })).status).toBe(204);
    const pins = await t.req('GET', `/channels/${dmId}/messages/pins`, { token: ada.token });
    expect(pins.body.items.map((p: { message: { id: string } }) => p.message.id)).toEqual([sent.body.id]);
    await adaGw.next((f) => f.t === 'CHANNEL_PINS_UPDATE' && f.d.channel_id === dmId);
    expect((await t.req('PUT', `/channels/${dmId}/messages/${sent.body.id}/reactions/${encodeURIComponent('👍')}/@me`, { token: bo.token })).status).toBe(204);
    expect((await t.req('POST', `/channels/${dmId}/typing`, { token: bo.token })).status).toBe(204);
    const typing = await adaGw.next((f) => f.t === 'TYPING_START' && f.d.channel_id === dmId);
    expect(typing.d.user_id).toBe(bo.userId);
    expect(typing.d.guild_id).toBeUndefined();
    const history = await t.req('GET', `/channels/${dmId}/messages`, { token: bo.token });
    expect(history.body.map((m: { id: string }) => m.id)).toEqual([reply.body.id, sent.body.id]);
    // Nobody deletes the other's message (no MANAGE_MESSAGES in a DM); one's own goes.
    expect((await t.req('DELETE', `/channels/${dmId}/messages/${sent.body.id}`, { token: bo.token })).body.code).toBe(50013);
    expect((await t.req('DELETE', `/channels/${dmId}/messages/${reply.body.id}`, { token: bo.token })).status).toBe(204);
    await adaGw.next((f) => f.t === 'MESSAGE_DELETE' && f.d.id === reply.body.id && f.d.guild_id === undefined);

    // Outsiders cannot read or write it.
    expect((await t.req('GET', `/channels/${dmId}/messages`, { token: stranger.token })).body.code).toBe(50001);
    expect((await t.req('POST', `/channels/${dmId}/messages`, { token: stranger.token, body: { content: 'x' } })).body.code).toBe(50001);
    // The channel list of each side.
    const list = await t.req('GET', '/users/@me/channels', { token: bo.token });
    expect(list.body.find((c: { id: string }) => c.id === dmId)).toMatchObject({ type: 1, last_message_id: sent.body.id, recipients: [{ id: ada.userId }] });

    await quiet(200);
    expect(boGuildOnly.dispatches().filter((f) => f.d?.channel_id === dmId || f.d?.id === dmId)).toEqual([]);
  });

  it('a bot without the MESSAGE_CONTENT intent gets DM content over the Gateway and REST', async () => {
    const botGw = await gateway(t.app.botToken, DIRECT_MESSAGES, true);
    gws.push(botGw);
    const open = await t.req('POST', '/users/@me/channels', { token: t.app.botToken, bot: true, body: { recipient_id: ada.userId } });
    expect(open.status).toBe(200);
    const dmId = open.body.id as string;
    const m = await t.req('POST', `/channels/${dmId}/messages`, { token: ada.token, body: { content: 'secret plan' } });
    expect(m.status).toBe(200);
    const live = await botGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === m.body.id);
    expect(live.d.content).toBe('secret plan');
    const read = await t.req('GET', `/channels/${dmId}/messages`, { token: t.app.botToken, bot: true });
    expect(read.body[0].content).toBe('secret plan');
    // The bot may write to a user it shares a guild with.
    expect((await t.req('POST', `/channels/${dmId}/messages`, { token: t.app.botToken, bot: true, body: { content: 'noted' } })).status).toBe(200);
    // And forward the user's DM into the guild (readable without the intent, so no 160014).
    const fwd = await t.req('POST', `/channels/${guildChannelId}/messages`, { token: t.app.botToken, bot: true, body: { message_reference: { type: 1, message_id: m.body.id, channel_id: dmId } } });
    expect(fwd.status).toBe(200);
    expect(fwd.body.message_snapshots[0].message.content).toBe('secret plan');
    expect(fwd.body.message_reference.guild_id).toBeUndefined();
    expect(botUserId).toBeTruthy();
  });

  it('refuses to deliver where the users share no guild and are not friends, or one blocks the other (50007, nothing stored)', async () => {
    const open = await t.req('POST', '/users/@me/channels', { token: stranger.token, body: { recipient_id: ada.userId } });
    expect(open.status).toBe(200);
    const r = await t.req('POST', `/channels/${open.body.id}/messages`, { token: stranger.token, body: { content: 'hey' } });
    expect([r.status, r.body.code]).toEqual([403, 50007]);
    expect((await t.req('GET', `/channels/${open.body.id}/messages`, { token: ada.token })).body).toEqual([]);
    expect((await t.req('POST', '/users/@me/channels', { token: ada.token, body: { recipient_id: '123' } })).body.code).toBe(10013);
    expect((await t.req('POST', '/users/@me/channels', { token: ada.token, body: { recipient_id: ada.userId } })).body.code).toBe(10013);
    expect((await t.req('POST', '/users/@me/channels', { token: ada.token, body: {} })).body.code).toBe(50035);
    // A block ends it even between guild co-members.
    const db = t.server.store.database.db;
    await t.server.store.relationships.set(db, { user_id: bo.userId, other_id: ada.userId, application_id: '0', type: 2, is_spam: 0, since: Date.now() });
    const dm = await t.req('POST', '/users/@me/channels', { token: ada.token, body: { recipient_id: bo.userId } });
    expect((await t.req('POST', `/channels/${dm.body.id}/messages`, { token: ada.token, body: { content: 'still?' } })).body.code).toBe(50007);
    await t.server.store.relationships.remove(db, bo.userId, ada.userId, '0');
  });

  it('group DMs (type 3): a user with friends, an application with gdm.join access tokens; messages reach every participant', async () => {
    const cyGw = await gateway(cy.token, DIRECT_MESSAGES);
    gws.push(cyGw);
    // Not friends with the stranger: refused; with Cy: created.
    expect((await t.req('POST', '/users/@me/channels', { token: ada.token, body: { recipients: [stranger.userId] } })).body.code).toBe(50007);
    const g = await t.req('POST', '/users/@me/channels', { token: ada.token, body: { recipients: [cy.userId], name: 'Plans' } });
    expect(g.status).toBe(200);
    expect(g.body).toMatchObject({ type: 3, name: 'Plans', owner_id: ada.userId, recipients: [{ id: cy.userId }] });
    await cyGw.next((f) => f.t === 'CHANNEL_CREATE' && f.d.id === g.body.id && f.d.recipients.some((u: { id: string }) => u.id === ada.userId));
    const m = await t.req('POST', `/channels/${g.body.id}/messages`, { token: cy.token, body: { content: `hi <@${ada.userId}> <@${stranger.userId}>` } });
    expect(m.status).toBe(200);
    // Only participants count as mentions.
    expect(m.body.mentions.map((u: { id: string }) => u.id)).toEqual([ada.userId]);
    expect((await cyGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === m.body.id)).d.channel_type).toBe(3);
    expect((await t.req('GET', `/channels/${g.body.id}/messages`, { token: stranger.token })).body.code).toBe(50001);

    // The public Create Group DM: access tokens with gdm.join of this application.
    const bt = await t.server.store.tokens.issue(bo.userId, t.app.id, ['identify', 'gdm.join'], 3600);
    const ct = await t.server.store.tokens.issue(cy.userId, t.app.id, ['identify', 'gdm.join'], 3600);
    const noScope = await t.server.store.tokens.issue(ada.userId, t.app.id, ['identify'], 3600);
    const bad = await t.req('POST', '/users/@me/channels', { token: t.app.botToken, bot: true, body: { access_tokens: [bt, noScope] } });
    expect(bad.body.code).toBe(50035);
    expect(bad.body.errors.access_tokens['1']).toBeDefined();
    const byApp = await t.req('POST', '/users/@me/channels', { token: t.app.botToken, bot: true, body: { access_tokens: [bt, ct], nicks: { [bo.userId]: 'Captain' } } });
    expect(byApp.status).toBe(200);
    expect(byApp.body).toMatchObject({ type: 3, application_id: t.app.id, nicks: [{ id: bo.userId, nick: 'Captain' }] });
    expect(byApp.body.recipients.map((u: { id: string }) => u.id).sort()).toEqual([bo.userId, cy.userId].sort());
    // Too many: 10 users at most.
    const many = await Promise.all(Array.from({ length: 10 }, (_, i) => userToken(`F${i}`)));
    for (const f of many) await befriend(ada.userId, f.userId);
    expect((await t.req('POST', '/users/@me/channels', { token: ada.token, body: { recipients: many.slice(0, 9).map((f) => f.userId) } })).status).toBe(200);
    expect((await t.req('POST', '/users/@me/channels', { token: ada.token, body: { recipients: many.map((f) => f.userId) } })).body.code).toBe(50035);
  });

  it('group DM upkeep: Get/Modify Channel, add and remove recipients, leave (owner passes on); a DM closes without losing anything', async () => {
    const adaGw = await gateway(ada.token, DIRECT_MESSAGES);
    const boGw = await gateway(bo.token, DIRECT_MESSAGES);
    gws.push(adaGw, boGw);
    await befriend(ada.userId, bo.userId);
    const g = (await t.req('POST', '/users/@me/channels', { token: ada.token, body: { recipients: [cy.userId] } })).body;
    expect((await t.req('GET', `/channels/${g.id}`, { token: cy.token })).body).toMatchObject({ id: g.id, type: 3, owner_id: ada.userId });
    expect((await t.req('GET', `/channels/${g.id}`, { token: stranger.token })).body.code).toBe(50001);
    const renamed = await t.req('PATCH', `/channels/${g.id}`, { token: cy.token, body: { name: 'Weekend' } });
    expect(renamed.body).toMatchObject({ name: 'Weekend' });
    await adaGw.next((f) => f.t === 'CHANNEL_UPDATE' && f.d.id === g.id && f.d.name === 'Weekend');
    // Ada adds her friend Bo; Cy (not Bo's... nor the stranger's friend) cannot add the stranger.
    const addBo = await t.req('PUT', `/channels/${g.id}/recipients/${bo.userId}`, { token: ada.token });
    expect(addBo.status, JSON.stringify(addBo.body)).toBe(204);
    await boGw.next((f) => f.t === 'CHANNEL_CREATE' && f.d.id === g.id);
    const added = await adaGw.next((f) => f.t === 'CHANNEL_RECIPIENT_ADD' && f.d.channel_id === g.id);
    expect(added.d.user.id).toBe(bo.userId);
    expect((await t.req('PUT', `/channels/${g.id}/recipients/${stranger.userId}`, { token: cy.token })).body.code).toBe(50007);
    // Only the owner removes others.
    expect((await t.req('DELETE', `/channels/${g.id}/recipients/${ada.userId}`, { token: bo.token })).body.code).toBe(50013);
    expect((await t.req('DELETE', `/channels/${g.id}/recipients/${bo.userId}`, { token: ada.token })).status).toBe(204);
    await boGw.next((f) => f.t === 'CHANNEL_DELETE' && f.d.id === g.id);
    expect((await t.req('GET', `/channels/${g.id}/messages`, { token: bo.token })).body.code).toBe(50001);
    // The owner leaves: Cy owns it now.
    expect((await t.req('DELETE', `/channels/${g.id}`, { token: ada.token })).status).toBe(200);
    expect((await t.req('GET', `/channels/${g.id}`, { token: cy.token })).body).toMatchObject({ owner_id: cy.userId, recipients: [] });
    // Closing a DM keeps the channel and its history.
    const dm = (await t.req('POST', '/users/@me/channels', { token: ada.token, body: { recipient_id: cy.userId } })).body;
    await t.req('POST', `/channels/${dm.id}/messages`, { token: ada.token, body: { content: 'still here' } });
    expect((await t.req('DELETE', `/channels/${dm.id}`, { token: ada.token })).body).toMatchObject({ id: dm.id, type: 1 });
    expect((await t.req('GET', `/channels/${dm.id}/messages`, { token: cy.token })).body.map((m: { content: string }) => m.content)).toEqual(['still here']);
    expect((await t.req('PATCH', `/channels/${dm.id}`, { token: ada.token, body: { name: 'x' } })).body.code).toBe(50035);
  });

  it('leaves the game DMs of the same pair as they were (their own routes and table)', async () => {
    const r = await t.req('POST', `/users/${bo.userId}/messages`, { token: (await t.guest('x')).token, body: { content: 'game dm' } });
    // A fresh guest may not write to Bo (no relationship), the game DM rule: 50007 — the game DM code path still runs.
    expect(r.body.code).toBe(50007);
  });
});
