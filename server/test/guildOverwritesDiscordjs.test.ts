import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Events, GatewayIntentBits, OverwriteType, PermissionFlagsBits, type TextChannel } from 'discord.js';
import { RawGateway, cleanupTempDirs, startTestServer, webToken, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Intent } from '../src/guilds/GuildGateway.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * discord.js v14, unmodified (pointed at us only through `rest.api`), as a moderation bot:
 * channel.permissionOverwrites.edit/delete (PUT/DELETE /channels/{id}/permissions/{id}) and
 * guild.bans.bulkCreate (POST /guilds/{id}/bulk-ban). The owner's raw session hears each change.
 */
let t: TestServer;
let client: Client;
let ownerGw: RawGateway;
let guildId: string;
let textId: string;
let memberId: string;
const raiders: string[] = [];

beforeAll(async () => {
  t = await startTestServer();
  const owner = await t.guest('Owner');
  const services = guildServicesFor(t.server.store, undefined as never);
  guildId = (await services.guilds.createGuild(owner.userId, { name: 'Moderated by a bot' })).id;
  textId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
  memberId = (await t.guest('Member')).userId;
  await services.members.join(guildId, memberId);
  for (const name of ['Raider 1', 'Raider 2']) {
    const r = await t.guest(name);
    await services.members.join(guildId, r.userId);
    raiders.push(r.userId);
  }
  await services.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages | Permission.ManageRoles | Permission.BanMembers | Permission.ManageGuild);

  ownerGw = await RawGateway.open(t.server);
  await ownerGw.identify(await webToken(t, owner.userId), Intent.Guilds | Intent.GuildModeration);

  client = new Client({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildModeration], rest: { api: `${t.server.url}/api` } });
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(t.app.botToken);
  await ready;
});
afterAll(async () => {
  await client.destroy();
  ownerGw.terminate();
  await t.close();
  cleanupTempDirs();
});

describe('discord.js moderation bot', () => {
  it('edits and deletes a member overwrite with permissionOverwrites.edit / delete', async () => {
    const channel = client.channels.cache.get(textId) as TextChannel;
    expect(channel).toBeDefined();
    await channel.permissionOverwrites.edit(memberId, { ViewChannel: false, AddReactions: true }, { type: OverwriteType.Member, reason: 'time out' });
    const update = (await ownerGw.next((f) => f.t === 'CHANNEL_UPDATE' && f.d.id === textId && f.d.permission_overwrites.some((o: { id: string }) => o.id === memberId))).d;
    expect(update.permission_overwrites).toContainEqual({ id: memberId, type: 1, allow: String(Permission.AddReactions), deny: String(Permission.ViewChannel) });
    // discord.js's own cache is fed by our CHANNEL_UPDATE.
    await expect.poll(() => channel.permissionOverwrites.cache.get(memberId)?.deny.has(PermissionFlagsBits.ViewChannel)).toBe(true);

    await channel.permissionOverwrites.delete(memberId, 'time in');
    await ownerGw.next((f) => f.t === 'CHANNEL_UPDATE' && f.d.id === textId && !f.d.permission_overwrites.some((o: { id: string }) => o.id === memberId));
    await expect.poll(() => channel.permissionOverwrites.cache.has(memberId)).toBe(false);
  });

  it('bans two raiders with guild.bans.bulkCreate; the owner hears GUILD_BAN_ADD for each', async () => {
    const guild = client.guilds.cache.get(guildId)!;
    const result = await guild.bans.bulkCreate(raiders, { deleteMessageSeconds: 60, reason: 'raid' });
    expect(result).toEqual({ bannedUsers: raiders, failedUsers: [] });
    for (const id of raiders) await ownerGw.next((f) => f.t === 'GUILD_BAN_ADD' && f.d.user.id === id);
    // Banning them again fails for each: discord.js surfaces the 500000 error.
    await expect(guild.bans.bulkCreate(raiders)).rejects.toMatchObject({ code: 500000, status: 400 });
  });
});
