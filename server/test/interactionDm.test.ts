import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { MessageIntent } from '../src/messages/messageGateway.ts';

/**
 * Issue 13, commands outside guilds: in the app's bot DM (context 1, BOT_DM) a guild-installed
 * app's command runs with `authorizing_integration_owners` {"0": "0"}; in a DM between two people
 * (context 2, PRIVATE_CHANNEL) a user-installed app's command runs with {"1": user}; the
 * interaction has `user` and the DM `channel`, no guild or member; a command whose contexts leave
 * the place out is refused; the reply reaches the DM's participants and its history.
 */
let t: TestServer;
let bot: RawGateway;
let pocketBot: RawGateway;
let userGw: RawGateway;
let ada: { token: string; userId: string };
let bo: { token: string; userId: string };
let pocket: { id: string; botToken: string };
let botDm: string;
let peopleDm: string;
const cmds: Record<string, string> = {};
const DM_INTENTS = MessageIntent.Guilds | MessageIntent.GuildMessages | (1 << 12);

beforeAll(async () => {
  t = await startTestServer({ rateLimits: false });
  const a = await t.guest('Ada');
  const b = await t.guest('Bo');
  ada = { token: await t.server.store.tokens.issue(a.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: a.userId };
  bo = { token: await t.server.store.tokens.issue(b.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: b.userId };
  // One guild: Ada, Bo and the app's bot share it, so DMs between them are allowed.
  const services = guildServicesFor(t.server.store, undefined as never);
  const guildId = (await services.guilds.createGuild(ada.userId, { name: 'Meeting place' })).id;
  await t.server.store.guilds.transaction((tx) => t.server.store.guildMembers.add(tx, guildId, bo.userId));
  await services.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages);
  const botUser = (await t.server.store.applications.get(t.app.id))!.bot_user_id;

  // A user-installed app (not in any guild).
  pocket = await t.server.createApplication({ name: 'Pocket' });
  await t.server.store.oauth.grant(t.server.store.database.db, pocket.id, ada.userId, ['identify', 'applications.commands']);

  const create = async (appId: string, token: string, body: unknown) => (await t.req('POST', `/applications/${appId}/commands`, { token, bot: true, body })).body.id as string;
  cmds.botdm = await create(t.app.id, t.app.botToken, { name: 'botdm', description: 'In my DM', integration_types: [0], contexts: [0, 1] });
  cmds.guildonly = await create(t.app.id, t.app.botToken, { name: 'guildonly', description: 'Guilds only', integration_types: [0], contexts: [0] });
  cmds.pocket = await create(pocket.id, pocket.botToken, { name: 'pocket', description: 'Anywhere', integration_types: [1], contexts: [0, 1, 2] });

  botDm = (await t.req('POST', '/users/@me/channels', { token: ada.token, body: { recipient_id: botUser } })).body.id;
  peopleDm = (await t.req('POST', '/users/@me/channels', { token: ada.token, body: { recipient_id: bo.userId } })).body.id;
  expect(botDm).toBeTruthy();
  expect(peopleDm).toBeTruthy();

  bot = await RawGateway.open(t.server);
  await bot.identify(t.app.botToken);
  pocketBot = await RawGateway.open(t.server);
  await pocketBot.identify(pocket.botToken);
  userGw = await RawGateway.open(t.server);
  userGw.send({ op: 2, d: { token: bo.token, intents: DM_INTENTS, properties: { os: 'linux', browser: 'test', device: 'test' } } });
  await userGw.next((f) => f.t === 'READY');
});
afterAll(async () => {
  bot?.terminate();
  pocketBot?.terminate();
  userGw?.terminate();
  await t?.close();
  cleanupTempDirs();
});

const invoke = (channelId: string, command: string) => t.req('POST', '/interactions', { token: ada.token, body: { type: 2, channel_id: channelId, data: { id: command } } });
const callback = (i: any, body: unknown) => fetch(`${t.api}/interactions/${i.id}/${i.token}/callback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('commands in DMs', () => {
  it('the picker offers what fits each DM', async () => {
    const inBotDm = await t.req('GET', `/channels/${botDm}/application-command-index`, { token: ada.token });
    expect(inBotDm.body.application_commands.map((c: { name: string }) => c.name).sort()).toEqual(['botdm', 'pocket']);
    const inPeopleDm = await t.req('GET', `/channels/${peopleDm}/application-command-index`, { token: ada.token });
    expect(inPeopleDm.body.application_commands.map((c: { name: string }) => c.name)).toEqual(['pocket']);
  });

  it('BOT_DM: a guild-installed app\'s command, owners {"0": "0"}, user and channel, no guild', async () => {
    const r = await invoke(botDm, cmds.botdm!);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const i = (await bot.next((f) => f.t === 'INTERACTION_CREATE' && f.d.id === r.body.id)).d;
    expect(i).toMatchObject({ context: 1, authorizing_integration_owners: { 0: '0' }, channel_id: botDm, channel: { id: botDm, type: 1 }, user: { id: ada.userId } });
    expect(i).not.toHaveProperty('member');
    expect(i).not.toHaveProperty('guild_id');
    expect(typeof i.app_permissions).toBe('string');
    expect((await callback(i, { type: 4, data: { content: 'hello from the bot DM' } })).status).toBe(204);
    const history = await t.req('GET', `/channels/${botDm}/messages`, { token: ada.token });
    expect(history.body.find((m: { content: string }) => m.content === 'hello from the bot DM')?.interaction_metadata?.id).toBe(r.body.id);
  });

  it('PRIVATE_CHANNEL: a user-installed app in a DM between two people; Bo sees the reply', async () => {
    const r = await invoke(peopleDm, cmds.pocket!);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const i = (await pocketBot.next((f) => f.t === 'INTERACTION_CREATE' && f.d.id === r.body.id)).d;
    expect(i).toMatchObject({ context: 2, authorizing_integration_owners: { 1: ada.userId }, channel: { id: peopleDm, type: 1 }, user: { id: ada.userId } });
    expect((await callback(i, { type: 4, data: { content: 'pocket answer' } })).status).toBe(204);
    const seen = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'pocket answer');
    expect(seen.d).toMatchObject({ channel_id: peopleDm, interaction_metadata: { id: r.body.id, user: { id: ada.userId } } });
    expect(seen.d).not.toHaveProperty('guild_id');
  });

  it('a command whose contexts leave the place out, or an app that is not installed there, is refused', async () => {
    expect((await invoke(botDm, cmds.guildonly!)).status).toBe(403);
    // The guild-installed app's command in a DM between people: no installation authorizes it there.
    expect((await invoke(peopleDm, cmds.botdm!)).status).toBe(403);
  });
});
