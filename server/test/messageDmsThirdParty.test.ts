import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';

/**
 * Security review H3: a third-party application's Bearer token (here with `guilds`, the scope the
 * guild routes take) gets nothing of the user's DMs and group DMs: no list, no open, no history,
 * no sending, no reactions or typing, no Get/Modify/Close Channel, no recipients. Each answers
 * 403 / 50001 and writes nothing. The web app's (first-party) token and bots keep working.
 */
let t: TestServer;
type Who = { web: string; third: string; userId: string };

afterAll(async () => {
  await dropTestSchemas();
});

describe.each(databaseConfigs())('third-party Bearer tokens and DMs on $name', ({ config }) => {
  let ada: Who;
  let bo: Who;
  let cy: Who;
  let dmId: string;
  let groupId: string;

  async function user(name: string): Promise<Who> {
    const g = await t.guest(name);
    const first = (await t.server.store.applications.firstParty()).id;
    return {
      web: await t.server.store.tokens.issue(g.userId, first, ['identify', 'guilds'], 3600),
      third: await t.server.store.tokens.issue(g.userId, t.app.id, ['identify', 'guilds'], 3600),
      userId: g.userId,
    };
  }

  beforeAll(async () => {
    t = await startTestServer({ rateLimits: false, database: config() });
    ada = await user('Ada');
    bo = await user('Bo');
    cy = await user('Cy');
    const db = t.server.store.database.db;
    for (const [x, y] of [[ada, bo], [bo, ada], [ada, cy], [cy, ada]] as const) await t.server.store.relationships.set(db, { user_id: x.userId, other_id: y.userId, application_id: '0', type: 1, is_spam: 0, since: Date.now() });
    dmId = (await t.req('POST', '/users/@me/channels', { token: ada.web, body: { recipient_id: bo.userId } })).body.id;
    expect((await t.req('POST', `/channels/${dmId}/messages`, { token: ada.web, body: { content: 'hi Bo' } })).status).toBe(200);
    groupId = (await t.req('POST', '/users/@me/channels', { token: ada.web, body: { recipients: [bo.userId] } })).body.id;
  });
  afterAll(async () => {
    await t.close();
    cleanupTempDirs();
  });

  const refused = (r: { status: number; body: { code?: number } }) => {
    expect(r.status).toBe(403);
    expect(r.body.code).toBe(50001);
  };

  it('lists, opens and creates nothing', async () => {
    // Listing is what the privileged dm_channels.read grants; without it the scope is missing.
    const list0 = await t.req('GET', '/users/@me/channels', { token: ada.third });
    expect([list0.status, list0.body.code]).toEqual([403, 50026]);
    const db = t.server.store.database.db;
    const dmsBefore = (await db.selectFrom('dm_channels').select('id').execute()).length;
    const groupsBefore = (await db.selectFrom('group_dm_channels').select('id').execute()).length;
    refused(await t.req('POST', '/users/@me/channels', { token: cy.third, body: { recipient_id: bo.userId } }));
    refused(await t.req('POST', '/users/@me/channels', { token: ada.third, body: { recipients: [cy.userId] } }));
    expect((await db.selectFrom('dm_channels').select('id').execute()).length).toBe(dmsBefore);
    expect((await db.selectFrom('group_dm_channels').select('id').execute()).length).toBe(groupsBefore);
    // The web app's token lists them.
    const list = await t.req('GET', '/users/@me/channels', { token: ada.web });
    expect(list.status).toBe(200);
    expect(list.body.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining([dmId, groupId]));
  });

  it('reads, sends, reacts, types and pins nothing in a DM or group DM', async () => {
    const db = t.server.store.database.db;
    const count = async () => (await db.selectFrom('channel_messages').select('id').where('channel_id', 'in', [dmId, groupId]).execute()).length;
    const before = await count();
    const first = (await t.req('GET', `/channels/${dmId}/messages`, { token: ada.web })).body[0].id as string;
    for (const ch of [dmId, groupId]) {
      refused(await t.req('GET', `/channels/${ch}/messages`, { token: ada.third }));
      refused(await t.req('POST', `/channels/${ch}/messages`, { token: ada.third, body: { content: 'as Ada, by someone else' } }));
      refused(await t.req('POST', `/channels/${ch}/typing`, { token: ada.third }));
      // A channel read is what the rpc scope grants (the desktop companion); this token lacks it.
      expect((await t.req('GET', `/channels/${ch}`, { token: ada.third })).body.code).toBe(50026);
      refused(await t.req('PATCH', `/channels/${ch}`, { token: ada.third, body: { name: 'taken over' } }));
      refused(await t.req('DELETE', `/channels/${ch}`, { token: ada.third }));
    }
    refused(await t.req('GET', `/channels/${dmId}/messages/${first}`, { token: ada.third }));
    refused(await t.req('PUT', `/channels/${dmId}/messages/${first}/reactions/%F0%9F%91%8D/@me`, { token: ada.third }));
    refused(await t.req('PUT', `/channels/${dmId}/pins/${first}`, { token: ada.third }));
    expect(await count()).toBe(before);
    expect((await db.selectFrom('channel_message_reactions' as never).selectAll().where('message_id' as never, '=', first as never).execute()).length).toBe(0);
    expect((await t.req('GET', `/channels/${groupId}`, { token: ada.web })).body).toMatchObject({ name: null, recipients: [{ id: bo.userId }] });
  });

  it('touches no group DM recipients (the friends form); the gdm.join form still goes by the grants', async () => {
    refused(await t.req('PUT', `/channels/${groupId}/recipients/${cy.userId}`, { token: ada.third }));
    refused(await t.req('DELETE', `/channels/${groupId}/recipients/${bo.userId}`, { token: ada.third }));
    refused(await t.req('DELETE', `/channels/${groupId}/recipients/@me`, { token: ada.third }));
    const members = (await t.server.store.database.db.selectFrom('group_dm_recipients').select('user_id').where('channel_id', '=', groupId).execute()).map((r) => r.user_id).sort();
    expect(members).toEqual([ada.userId, bo.userId].sort());
    // The gdm.join form is the bot's (a game's user token does not reach the route at all); with
    // the users' grants the group is made.
    refused(await t.req('POST', '/users/@me/channels', { token: ada.third, body: { access_tokens: [cy.third] } }));
    expect((await t.req('POST', '/users/@me/channels', { token: t.app.botToken, bot: true, body: { access_tokens: [cy.third] } })).body.code).toBe(50035);
    const grant = await t.server.store.tokens.issue(cy.userId, t.app.id, ['gdm.join'], 3600);
    expect((await t.req('POST', '/users/@me/channels', { token: t.app.botToken, bot: true, body: { access_tokens: [grant] } })).status).toBe(200);
  });

  it('hears no DM events on the Gateway (the web app session does)', async () => {
    const open = async (token: string) => {
      const gw = await RawGateway.open(t.server);
      gw.send({ op: 2, d: { token, intents: 1 << 12, properties: { os: 'linux', browser: 'test', device: 'test' } } });
      await gw.next((f) => f.t === 'READY');
      return gw;
    };
    const third = await open(bo.third);
    const web = await open(bo.web);
    try {
      const sent = await t.req('POST', `/channels/${dmId}/messages`, { token: ada.web, body: { content: 'secret' } });
      await web.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === sent.body.id);
      await new Promise((r) => setTimeout(r, 300));
      expect(third.frames.some((f) => f.t === 'MESSAGE_CREATE' || f.t === 'CHANNEL_CREATE')).toBe(false);
    } finally {
      third.terminate();
      web.terminate();
    }
  });

  it('a bot still opens a DM with a user and sends in it', async () => {
    // Ada shares nothing with the bot: put both in a guild.
    const { guildServicesFor } = await import('../src/guilds/GuildServices.ts');
    const { Permission } = await import('../src/guilds/permissions.ts');
    const s = guildServicesFor(t.server.store, undefined as never);
    const guild = await s.guilds.createGuild(ada.userId, { name: 'With bot' });
    await s.installBot(guild.id, t.app.id, Permission.ViewChannel | Permission.SendMessages);
    const open = await t.req('POST', '/users/@me/channels', { token: t.app.botToken, bot: true, body: { recipient_id: ada.userId } });
    expect(open.status).toBe(200);
    expect((await t.req('POST', `/channels/${open.body.id}/messages`, { token: t.app.botToken, bot: true, body: { content: 'hello from the bot' } })).status).toBe(200);
  });
});
