import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, DiscordAPIError, Events, GatewayIntentBits, type Message, type TextChannel } from 'discord.js';
import { RawGateway, cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { MessageIntent } from '../src/messages/messageGateway.ts';

/**
 * Issue 11 with discord.js v14, unmodified: a bot in a guild receives a user's message as
 * messageCreate (with content only when its application has MESSAGE_CONTENT), replies, reacts,
 * edits, pins (fetching the pins page), sends with enforce_nonce twice and gets one message,
 * uploads a 9 MiB attachment and is refused an 11 MiB one, and deletes; each reaches the user's own Gateway session as the public event.
 */
let t: TestServer;
let reader: Client;
let blind: Client;
let userGw: RawGateway;
let guildId: string;
let channelId: string;
let user: { token: string; userId: string };

const BOT_PERMISSIONS = Permission.ViewChannel | Permission.SendMessages | Permission.ReadMessageHistory | Permission.AddReactions | Permission.PinMessages | Permission.ManageMessages;

function login(client: Client, token: string): Promise<void> {
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  return client.login(token).then(() => ready);
}

beforeAll(async () => {
  t = await startTestServer();
  const g = await t.guest('Player');
  user = { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
  const services = guildServicesFor(t.server.store, undefined as never);
  guildId = (await services.guilds.createGuild(user.userId, { name: 'Discord.js Messages' })).id;
  channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;

  // `reader`'s application enabled MESSAGE_CONTENT (the *_LIMITED flag, under 10,000 users); `blind`'s did not.
  await services.installBot(guildId, t.app.id, BOT_PERMISSIONS);
  const contentFlag = String(1 << 19);
  await t.server.store.database.db.updateTable('applications').set({ flags: 1 << 19 }).where('id', '=', t.app.id).execute();
  await t.server.store.database.db.updateTable('applications').set({ flags_new: contentFlag } as never).where('id', '=', t.app.id).execute().catch(() => {});
  const other = await t.server.createApplication({ name: 'Blind Bot' });
  await services.installBot(guildId, other.id, BOT_PERMISSIONS);

  userGw = await RawGateway.open(t.server);
  await userGw.identify(user.token, MessageIntent.Guilds | MessageIntent.GuildMessages | MessageIntent.GuildMessageReactions);

  const rest = { api: `${t.server.url}/api` };
  reader = new Client({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.GuildMessageReactions, GatewayIntentBits.MessageContent], rest });
  blind = new Client({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages], rest });
  await login(reader, t.app.botToken);
  await login(blind, other.botToken);
});
afterAll(async () => {
  await reader?.destroy();
  await blind?.destroy();
  userGw?.terminate();
  await t.close();
  cleanupTempDirs();
});

describe('discord.js bot and guild messages', () => {
  let incoming: Message;
  let reply: Message;

  it('receives a user\'s message as messageCreate, with content only with the MESSAGE_CONTENT intent', async () => {
    const heard = new Promise<Message>((resolve) => reader.on(Events.MessageCreate, (m) => m.author.id === user.userId && resolve(m)));
    const heardBlind = new Promise<Message>((resolve) => blind.on(Events.MessageCreate, (m) => m.author.id === user.userId && resolve(m)));
    const sent = await t.req('POST', `/channels/${channelId}/messages`, { token: user.token, body: { content: 'ping from a player' } });
    expect(sent.status).toBe(200);
    incoming = await heard;
    expect(incoming.id).toBe(sent.body.id);
    expect(incoming.content).toBe('ping from a player');
    expect(incoming.guildId).toBe(guildId);
    expect(incoming.member?.id).toBe(user.userId);
    const blindCopy = await heardBlind;
    expect(blindCopy.id).toBe(sent.body.id);
    expect(blindCopy.content).toBe('');
  });

  it('replies, reacts, edits; the user\'s session hears each', async () => {
    reply = await incoming.reply('pong');
    expect(reply.reference?.messageId).toBe(incoming.id);
    const created = (await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === reply.id)).d;
    expect(created).toMatchObject({ type: 19, content: 'pong', referenced_message: { id: incoming.id }, author: { id: reader.user!.id } });
    expect(created.mentions.map((u: { id: string }) => u.id)).toEqual([user.userId]);

    await incoming.react('👍');
    expect((await userGw.next((f) => f.t === 'MESSAGE_REACTION_ADD' && f.d.message_id === incoming.id)).d).toMatchObject({ user_id: reader.user!.id, emoji: { name: '👍' } });

    const edited = await reply.edit('pong, edited');
    expect(edited.editedTimestamp).not.toBeNull();
    expect((await userGw.next((f) => f.t === 'MESSAGE_UPDATE' && f.d.id === reply.id)).d.content).toBe('pong, edited');
  });

  it('pins through the new routes and fetches the pins page', async () => {
    await reply.pin();
    await userGw.next((f) => f.t === 'CHANNEL_PINS_UPDATE' && f.d.channel_id === channelId);
    const channel = (await reader.channels.fetch(channelId)) as TextChannel;
    const pins = await channel.messages.fetchPins();
    expect(pins.items.map((p) => p.message.id)).toEqual([reply.id]);
    expect(pins.hasMore).toBe(false);
    await reply.unpin();
    expect((await channel.messages.fetchPins()).items).toEqual([]);
  });

  it('sends with enforce_nonce twice and gets one message', async () => {
    const channel = (await reader.channels.fetch(channelId)) as TextChannel;
    const first = await channel.send({ content: 'exactly once', nonce: 'dup-1', enforceNonce: true });
    const second = await channel.send({ content: 'exactly once', nonce: 'dup-1', enforceNonce: true });
    expect(second.id).toBe(first.id);
    const history = await channel.messages.fetch({ limit: 50 });
    expect(history.filter((m) => m.content === 'exactly once').size).toBe(1);
  });

  it('sends a 26-field embed and gets the 50035 error with the field path; 25 fields are fine', async () => {
    const channel = (await reader.channels.fetch(channelId)) as TextChannel;
    const fields = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `field ${i}`, value: 'v' }));
    const ok = await channel.send({ embeds: [{ title: 'stats', fields: fields(25) }] });
    expect(ok.embeds[0]!.fields).toHaveLength(25);
    const refused = await channel.send({ embeds: [{ title: 'stats', fields: fields(26) }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DiscordAPIError);
    expect([(refused as DiscordAPIError).status, (refused as DiscordAPIError).code]).toEqual([400, 50035]);
    expect(JSON.stringify((refused as DiscordAPIError).rawError)).toContain('"fields"');
  });

  it('uploads a 9 MiB attachment and is refused an 11 MiB one (413, 40005)', async () => {
    const channel = (await reader.channels.fetch(channelId)) as TextChannel;
    const nine = Buffer.alloc(9 * 1024 * 1024, 1);
    const sent = await channel.send({ content: 'big file', files: [{ attachment: nine, name: 'nine.bin', description: 'nine MiB' }] });
    const att = sent.attachments.first()!;
    expect([att.name, att.size, att.description]).toEqual(['nine.bin', nine.length, 'nine MiB']);
    const fetched = await fetch(att.url);
    expect(fetched.status).toBe(200);
    expect((await fetched.arrayBuffer()).byteLength).toBe(nine.length);
    const refused = await channel.send({ files: [{ attachment: Buffer.alloc(11 * 1024 * 1024, 1), name: 'eleven.bin' }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DiscordAPIError);
    expect([(refused as DiscordAPIError).status, (refused as DiscordAPIError).code]).toEqual([413, 40005]);
    const spoiler = await channel.send({ files: [{ attachment: Buffer.from('boo'), name: 'SPOILER_ghost.txt' }] });
    expect(spoiler.attachments.first()!.spoiler).toBe(true);
  });

  it('deletes its reply; the user\'s session hears MESSAGE_DELETE', async () => {
    await reply.delete();
    expect((await userGw.next((f) => f.t === 'MESSAGE_DELETE' && f.d.id === reply.id)).d).toEqual({ id: reply.id, channel_id: channelId, guild_id: guildId });
    expect((await t.req('GET', `/channels/${channelId}/messages/${reply.id}`, { token: user.token })).body.code).toBe(10008);
  });
});
