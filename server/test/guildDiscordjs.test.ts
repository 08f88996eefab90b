import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelType, Client, Events, GatewayIntentBits, GatewayRateLimitError, type Guild } from 'discord.js';
import { RawGateway, cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Intent } from '../src/guilds/GuildGateway.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * Issue 10's Done-means: discord.js v14, unmodified, as a bot installed in a guild. It receives
 * GUILD_CREATE with the channels, roles and members it may see; guild.members.fetch() (op 8)
 * resolves and a second all-members fetch within 30 s is RATE_LIMITED; it creates a channel, a
 * role and an invite and edits its own member's bio; each reaches another session (the guild
 * owner's, on a raw socket) as the public event.
 */
let t: TestServer;
let client: Client;
let ownerGw: RawGateway;
let guildId: string;
let ownerId: string;

beforeAll(async () => {
  t = await startTestServer();
  const owner = await t.guest('Owner');
  ownerId = owner.userId;
  const ownerToken = await t.server.store.tokens.issue(owner.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600);
  const services = guildServicesFor(t.server.store, undefined as never);
  const guild = await services.guilds.createGuild(owner.userId, { name: 'Compat Guild' });
  guildId = guild.id;
  // The bot may manage channels, roles and invites; its application enabled GUILD_MEMBERS (under 10,000 users).
  await services.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages | Permission.ManageChannels | Permission.ManageRoles | Permission.CreateInstantInvite | Permission.ChangeNickname);
  await t.server.store.database.db.updateTable('applications').set({ flags: 1 << 15 }).where('id', '=', t.app.id).execute();
  await t.server.store.database.db.updateTable('applications').set({ flags_new: String(1 << 15) } as never).where('id', '=', t.app.id).execute().catch(() => {});

  ownerGw = await RawGateway.open(t.server);
  ownerGw.send({ op: 2, d: { token: ownerToken, intents: Intent.Guilds | Intent.GuildMembers | Intent.GuildInvites, properties: { os: 'linux', browser: 'test', device: 'test' } } });
  await ownerGw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guildId);

  client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers, GatewayIntentBits.GuildInvites],
    rest: { api: `${t.server.url}/api` },
  });
});
afterAll(async () => {
  await client.destroy();
  ownerGw.terminate();
  await t.close();
  cleanupTempDirs();
});

describe('discord.js bot in a guild', () => {
  let guild: Guild;

  it('becomes ready with the guild from GUILD_CREATE: channels, roles and members', async () => {
    const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
    await client.login(t.app.botToken);
    await ready;
    guild = client.guilds.cache.get(guildId)!;
    expect(guild).toBeDefined();
    expect(guild.name).toBe('Compat Guild');
    expect(guild.ownerId).toBe(ownerId);
    expect(guild.channels.cache.map((c) => c.name)).toEqual(expect.arrayContaining(['general', 'General', 'Text Channels', 'Voice Channels']));
    expect(guild.channels.cache.find((c) => c.name === 'General')?.type).toBe(ChannelType.GuildVoice);
    expect(guild.roles.everyone.id).toBe(guildId);
    const botRole = guild.roles.cache.find((r) => r.managed);
    expect(botRole?.tags?.botId).toBe(client.user!.id);
    expect(guild.members.cache.has(client.user!.id)).toBe(true);
    expect(guild.members.me?.permissions.has('ManageChannels')).toBe(true);
  });

  it('fetches all members with op 8, and a second all-members fetch within 30 s is RATE_LIMITED', async () => {
    const members = await guild.members.fetch();
    expect([...members.keys()].sort()).toEqual([ownerId, client.user!.id].sort());
    const second = await guild.members.fetch().catch((e: unknown) => e);
    expect(second).toBeInstanceOf(GatewayRateLimitError);
    expect((second as GatewayRateLimitError).data.retry_after).toBeGreaterThan(0);
  });

  it('creates a channel, a role and an invite, and edits its own bio; the owner\'s session hears each', async () => {
    const channel = await guild.channels.create({ name: 'bot-made', type: ChannelType.GuildText, topic: 'made by discord.js' });
    expect(channel.id).toMatch(/^\d+$/);
    await ownerGw.next((f) => f.t === 'CHANNEL_CREATE' && f.d.id === channel.id && f.d.name === 'bot-made');

    const role = await guild.roles.create({ name: 'Bot Role', color: 0x00ff00, permissions: ['SendMessages'] });
    expect(role.permissions.has('SendMessages')).toBe(true);
    const roleEvent = (await ownerGw.next((f) => f.t === 'GUILD_ROLE_CREATE' && f.d.role.id === role.id)).d;
    expect(roleEvent).toMatchObject({ guild_id: guildId, role: { name: 'Bot Role', color: 0x00ff00, permissions: Permission.SendMessages.toString() } });

    const invite = await channel.createInvite({ maxAge: 600, maxUses: 5 });
    expect(invite.code).toMatch(/^[A-Za-z0-9]+$/);
    expect(invite.maxUses).toBe(5);
    await ownerGw.next((f) => f.t === 'INVITE_CREATE' && f.d.code === invite.code && f.d.channel_id === channel.id);

    const me = await guild.members.editMe({ bio: 'I am a bot' });
    expect(me.id).toBe(client.user!.id);
    const update = (await ownerGw.next((f) => f.t === 'GUILD_MEMBER_UPDATE' && f.d.user.id === client.user!.id && f.d.bio === 'I am a bot')).d;
    expect(update.guild_id).toBe(guildId);

    // discord.js itself hears the changes it made (its cache is fed by our dispatches).
    await expect.poll(() => guild.channels.cache.has(channel.id)).toBe(true);
    await expect.poll(() => guild.roles.cache.has(role.id)).toBe(true);
  });
});
