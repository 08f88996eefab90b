import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, ChannelTypes, ApplicationCommandTypes, ActivityTypes, type CommandInteraction, type Member, type TextChannel } from 'oceanic.js';
import { startClientLibWorld, waitFor, type ClientLibWorld } from './clientLibFixture.ts';

/**
 * oceanic.js, unmodified, as a bot in a guild.
 *
 * How it is pointed at us: its documented `rest.baseURL` option is our `/api/v10` root; the
 * Gateway URL is the one our GET /gateway/bot answers (oceanic appends `?v=10&encoding=json`).
 * No other setting and no patch.
 */
let w: ClientLibWorld;
let client: Client;
const packets: { t: string; d: any }[] = [];
const errors: unknown[] = [];
const ids: { bot?: string; joiner?: string } = {};
let channel: TextChannel;

function packet(t: string, pred: (d: any) => boolean = () => true): Promise<any> {
  return waitFor(t, () => packets.find((p) => p.t === t && pred(p.d))?.d);
}

beforeAll(async () => {
  w = await startClientLibWorld();
  client = new Client({
    auth: `Bot ${w.botToken}`,
    rest: { baseURL: w.restVersioned },
    gateway: { intents: ['GUILDS', 'GUILD_MEMBERS', 'GUILD_MESSAGES', 'GUILD_MESSAGE_REACTIONS', 'GUILD_INVITES'] },
  });
  client.on('packet', (p) => packets.push({ t: p.t, d: p.d }));
  client.on('error', (e) => errors.push(e));
  // A library warns when what we send is not what it expects (an unknown shape, a clock skew).
  client.on('warn', (m: unknown) => errors.push(m));
});
afterAll(async () => {
  client?.disconnect(false);
  await w?.close();
});

describe('oceanic.js', () => {
  it('connects: ready, with the guild in its cache', async () => {
    const ready = new Promise<void>((resolve) => client.once('ready', () => resolve()));
    await client.connect();
    await ready;
    expect(errors).toEqual([]);
    ids.bot = client.user.id;
    expect(client.application.id).toBe(w.appId);
    const guild = await waitFor('the guild', () => client.guilds.get(w.guildId));
    expect(guild.name).toBe('Library Guild');
    expect(guild.ownerID).toBe(w.owner.userId);
  });

  it('reads its guilds, the guild, its channels, roles and members', async () => {
    expect((await client.rest.oauth.getCurrentGuilds()).map((g) => g.id)).toEqual([w.guildId]);
    const guild = await client.rest.guilds.get(w.guildId);
    expect(guild.name).toBe('Library Guild');
    const channels = await client.rest.guilds.getChannels(w.guildId);
    expect(channels.map((c) => c.id)).toContain(w.channelId);
    const roles = await client.rest.guilds.getRoles(w.guildId);
    expect(roles.map((r) => r.id)).toContain(w.guildId);
    expect(roles.some((r) => r.tags.botID === ids.bot)).toBe(true);
    const members = await client.rest.guilds.getMembers(w.guildId, { limit: 100 });
    expect(members.map((m) => m.id).sort()).toEqual([w.owner.userId, ids.bot!, w.observerUserId].sort());
  });

  it('creates a channel', async () => {
    channel = await client.rest.guilds.createChannel(w.guildId, ChannelTypes.GUILD_TEXT, { name: 'oceanic-made', topic: 'by oceanic.js' });
    expect(channel.name).toBe('oceanic-made');
    expect(channel.type).toBe(ChannelTypes.GUILD_TEXT);
    await waitFor('the channel in the cache', () => client.getChannel(channel.id));
  });

  it('sends, edits, pins, reacts to, replies to and deletes messages, and reads the history', async () => {
    const sent = await client.rest.channels.createMessage(channel.id, { content: 'hello' });
    expect(sent.author.id).toBe(ids.bot);
    const edited = await client.rest.channels.editMessage(channel.id, sent.id, { content: 'hello, edited' });
    expect(edited.content).toBe('hello, edited');
    expect(edited.editedTimestamp).not.toBeNull();
    await client.rest.channels.pinMessage(channel.id, sent.id);
    expect((await client.rest.channels.getPinnedMessages(channel.id)).map((m) => m.id)).toContain(sent.id);
    await client.rest.channels.createReaction(channel.id, sent.id, '👍');
    await packet('MESSAGE_REACTION_ADD', (d) => d.message_id === sent.id);
    const reply = await client.rest.channels.createMessage(channel.id, { content: 'a reply', messageReference: { messageID: sent.id } });
    expect(reply.messageReference?.messageID).toBe(sent.id);
    expect(reply.referencedMessage?.id).toBe(sent.id);
    const history = await client.rest.channels.getMessages(channel.id, { limit: 10 });
    expect(history.map((m) => m.id)).toEqual([reply.id, sent.id]);
    expect(history[1]!.pinned).toBe(true);
    expect(history[1]!.reactions[0]).toMatchObject({ count: 1, me: true, emoji: { name: '👍' } });
    await client.rest.channels.deleteMessage(channel.id, reply.id);
    await packet('MESSAGE_DELETE', (d) => d.id === reply.id);
    expect((await client.rest.channels.getMessages(channel.id, { limit: 10 })).map((m) => m.id)).toEqual([sent.id]);
    expect(errors).toEqual([]);
  });

  it('creates an invite, and sees GUILD_MEMBER_ADD when a person joins by it', async () => {
    const invite = await client.rest.channels.createInvite(channel.id, { maxAge: 600, maxUses: 5 });
    expect(invite.code).toMatch(/^[A-Za-z0-9]+$/);
    const joined: Member[] = [];
    client.on('guildMemberAdd', (m) => joined.push(m));
    ids.joiner = await w.joinByInvite(invite.code);
    const member = await waitFor('guildMemberAdd', () => joined.find((m) => m.id === ids.joiner));
    expect(member.guildID).toBe(w.guildId);
  });

  it('registers a global and a guild command, and answers an interaction a person triggers', async () => {
    const global = await client.rest.applications.createGlobalCommand(w.appId, { type: ApplicationCommandTypes.CHAT_INPUT, name: 'ping', description: 'Answers pong' });
    const local = await client.rest.applications.createGuildCommand(w.appId, w.guildId, { type: ApplicationCommandTypes.CHAT_INPUT, name: 'local', description: 'Guild only' });
    expect(local.guildID).toBe(w.guildId);
    expect((await client.rest.applications.getGlobalCommands(w.appId)).map((c) => c.name)).toEqual(['ping']);
    expect((await client.rest.applications.getGuildCommands(w.appId, w.guildId)).map((c) => c.name)).toEqual(['local']);

    const answered = new Promise<CommandInteraction>((resolve, reject) => {
      client.once('interactionCreate', (i) => {
        if (!i.isCommandInteraction()) return reject(new Error(`unexpected interaction type ${i.type}`));
        i.createMessage({ content: 'pong' }).then(() => resolve(i), reject);
      });
    });
    const invoked = await w.invokeCommand(global);
    expect(invoked.status).toBe(200);
    const interaction = await answered;
    expect(interaction.data.name).toBe('ping');
    expect(interaction.user.id).toBe(w.owner.userId);
    expect((await interaction.getOriginal()).content).toBe('pong');
  });

  it('requests guild members (op 8) and gets every member', async () => {
    const members = await client.shards.get(0)!.requestGuildMembers(w.guildId, { limit: 0, query: '' });
    expect(members.map((m) => m.id).sort()).toEqual([w.owner.userId, ids.bot!, w.observerUserId, ids.joiner!].sort());
  });

  it('sets a presence that the other bot in the guild sees', async () => {
    await client.editStatus('dnd', [{ name: 'with oceans', type: ActivityTypes.GAME }]);
    const update = await w.observer.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === ids.bot && f.d.status === 'dnd');
    expect(update.d.guild_id).toBe(w.guildId);
    expect(update.d.activities[0]).toMatchObject({ name: 'with oceans', type: 0 });
    expect(errors).toEqual([]);
  });
});
