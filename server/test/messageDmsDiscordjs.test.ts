import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelType, Client, Events, GatewayIntentBits, Partials, type Message } from 'discord.js';
import { RawGateway, cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * DMs of full accounts with discord.js v14, unmodified (issue 11): a bot whose application has no
 * MESSAGE_CONTENT opens a DM with a user who shares its guild (`user.createDM()`), sends in it,
 * receives the user's DM as messageCreate with its content (DMs are exempt from the intent), and
 * replies; a DM that arrives first (no cached channel) reaches it with Partials.Channel, as the
 * public library expects. The user's own Gateway session gets each message.
 */
let t: TestServer;
let bot: Client;
let user: { token: string; userId: string };
let userGw: RawGateway;

function login(client: Client, token: string): Promise<void> {
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  return client.login(token).then(() => ready);
}

beforeAll(async () => {
  t = await startTestServer();
  const g = await t.guest('Player');
  user = { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
  const services = guildServicesFor(t.server.store, undefined as never);
  const guildId = (await services.guilds.createGuild(user.userId, { name: 'DM Guild' })).id;
  await services.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages);
  userGw = await RawGateway.open(t.server);
  userGw.send({ op: 2, d: { token: user.token, intents: 1 << 12, properties: { os: 'linux', browser: 'test', device: 'test' } } });
  await userGw.next((f) => f.t === 'READY');
  // No MessageContent intent: DMs still carry content.
  bot = new Client({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.DirectMessages], partials: [Partials.Channel], rest: { api: `${t.server.url}/api` } });
  await login(bot, t.app.botToken);
});
afterAll(async () => {
  await bot?.destroy();
  userGw?.terminate();
  await t.close();
  cleanupTempDirs();
});

describe('discord.js and DMs', () => {
  it('receives a DM sent first by the user (partial channel), with content and no MESSAGE_CONTENT intent, and answers it', async () => {
    const open = await t.req('POST', '/users/@me/channels', { token: user.token, body: { recipient_id: bot.user!.id } });
    expect(open.status).toBe(200);
    const heard = new Promise<Message>((resolve) => bot.on(Events.MessageCreate, (m) => m.author.id === user.userId && resolve(m)));
    const sent = await t.req('POST', `/channels/${open.body.id}/messages`, { token: user.token, body: { content: 'hello bot, secret word: owl' } });
    expect(sent.status).toBe(200);
    const m = await heard;
    expect(m.content).toBe('hello bot, secret word: owl');
    expect(m.guildId).toBeNull();
    expect(m.channel.type).toBe(ChannelType.DM);
    expect(m.channelId).toBe(open.body.id);
    const answer = await m.reply('owl received');
    expect(answer.content).toBe('owl received');
    const live = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === answer.id);
    expect(live.d).toMatchObject({ channel_id: open.body.id, content: 'owl received', type: 19, author: { id: bot.user!.id } });
  });

  it('opens a DM with users.createDM() and sends in it', async () => {
    const dm = await bot.users.createDM(user.userId);
    expect(dm.type).toBe(ChannelType.DM);
    expect(dm.recipientId).toBe(user.userId);
    const msg = await dm.send('from the bot');
    const live = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === msg.id);
    expect(live.d.content).toBe('from the bot');
    expect(live.d.guild_id).toBeUndefined();
    expect(live.d.channel_type).toBe(1);
    const history = await dm.messages.fetch({ limit: 10 });
    expect([...history.values()].map((x) => x.content)).toContain('hello bot, secret word: owl');
  });
});
