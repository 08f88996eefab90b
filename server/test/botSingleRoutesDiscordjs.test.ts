import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelType, Client, Events, GatewayIntentBits, MessageFlags, type NewsChannel } from 'discord.js';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * discord.js v14, unmodified (pointed at us only through `rest.api`), on the single routes:
 * users.fetch (Get User), fetchVoiceRegions, guild.members.add with a `guilds.join` token (and
 * again, when discord.js reads the 204 as "already a member"), Message#crosspost in an
 * announcement channel, and removing its own reaction (the `/@me` route).
 */
let t: TestServer;
let client: Client;
let guildId: string;
let ownerId: string;

beforeAll(async () => {
  t = await startTestServer();
  const owner = await t.guest('Owner');
  ownerId = owner.userId;
  const services = guildServicesFor(t.server.store, undefined as never);
  guildId = (await services.guilds.createGuild(owner.userId, { name: 'Single routes by discord.js' })).id;
  await services.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages | Permission.ReadMessageHistory | Permission.AddReactions | Permission.ManageChannels | Permission.CreateInstantInvite);
  client = new Client({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.GuildMessageReactions], rest: { api: `${t.server.url}/api` } });
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(t.app.botToken);
  await ready;
});
afterAll(async () => {
  await client.destroy();
  await t.close();
  cleanupTempDirs();
});

describe('discord.js on the single routes', () => {
  it('fetches a user and the voice regions', async () => {
    const user = await client.users.fetch(ownerId, { force: true });
    expect([user.id, user.globalName, user.bot, user.flags?.bitfield]).toEqual([ownerId, 'Owner', false, 0]);
    const regions = await client.fetchVoiceRegions();
    expect([...regions.keys()]).toEqual(['automatic']);
    expect(regions.get('automatic')?.optimal).toBe(true);
  });

  it('adds a member with guild.members.add and a guilds.join token; a second add finds the member', async () => {
    const joiner = await t.guest('Joiner');
    const accessToken = await t.server.store.tokens.issue(joiner.userId, t.app.id, ['identify', 'guilds.join'], 3600);
    const guild = client.guilds.cache.get(guildId)!;
    const member = await guild.members.add(joiner.userId, { accessToken });
    expect(member?.id).toBe(joiner.userId);
    // Ours answers 204 the second time; discord.js then fetches the member.
    const again = await guild.members.add(joiner.userId, { accessToken, force: true });
    expect(again?.id).toBe(joiner.userId);
  });

  it('crossposts its message in an announcement channel and removes its own reaction', async () => {
    const guild = client.guilds.cache.get(guildId)!;
    const news = (await guild.channels.create({ name: 'announcements', type: ChannelType.GuildAnnouncement })) as NewsChannel;
    expect(news.type).toBe(ChannelType.GuildAnnouncement);
    const message = await news.send('Patch 1.1 is out');
    const published = await message.crosspost();
    expect(published.flags.has(MessageFlags.Crossposted)).toBe(true);

    const reaction = await message.react('👍');
    await expect.poll(async () => (await reaction.users.fetch()).has(client.user!.id)).toBe(true);
    await reaction.users.remove();
    await expect.poll(async () => (await t.req('GET', `/channels/${news.id}/messages/${message.id}/reactions/${encodeURIComponent('👍')}`, { token: t.app.botToken, bot: true })).body).toEqual([]);
  });
});
