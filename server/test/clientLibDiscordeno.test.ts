import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBot, createDesiredPropertiesObject, Intents, ChannelTypes, InteractionResponseTypes, ActivityTypes } from '@discordeno/bot';
import { startClientLibWorld, waitFor, type ClientLibWorld } from './clientLibFixture.ts';

/**
 * discordeno (@discordeno/bot 21), unmodified, as a bot in a guild.
 *
 * How it is pointed at us: its documented `rest.proxy.baseUrl` option (the REST root for a
 * server other than discord.com; discordeno adds `/v10`) is our `/api` root, and `applicationId`
 * is given because our bot user and application have different IDs. The Gateway URL is the one
 * our GET /gateway/bot answers (discordeno's start() asks for it). No other setting and no patch.
 */
let w: ClientLibWorld;
let bot: ReturnType<typeof makeBot>;
const raw: { t: string; d: any }[] = [];
const ids: { bot?: string; channel?: string; joiner?: string } = {};
let readyPayload: any;
const interactions: any[] = [];
const joined: { member: any; user: any }[] = [];

function makeBot(world: ClientLibWorld) {
  return createBot({
    token: world.botToken,
    applicationId: world.appId,
    intents: Intents.Guilds | Intents.GuildMembers | Intents.GuildMessages | Intents.GuildMessageReactions | Intents.GuildInvites,
    // Every property kept: the test reads what the server sent, not a trimmed subset.
    desiredProperties: createDesiredPropertiesObject({}, true),
    rest: { token: world.botToken, applicationId: world.appId, proxy: { baseUrl: world.restBase } },
    gateway: { token: world.botToken, cache: { requestMembers: { enabled: true } } },
    events: {
      raw: (data) => {
        if (data.t) raw.push({ t: data.t, d: data.d });
      },
      ready: (payload) => {
        readyPayload = payload;
      },
      interactionCreate: (interaction) => {
        interactions.push(interaction);
      },
      guildMemberAdd: (member, user) => {
        joined.push({ member, user });
      },
    },
  });
}

function dispatch(t: string, pred: (d: any) => boolean = () => true): Promise<any> {
  return waitFor(t, () => raw.find((p) => p.t === t && pred(p.d))?.d);
}

beforeAll(async () => {
  w = await startClientLibWorld();
  bot = makeBot(w);
});
afterAll(async () => {
  await bot?.shutdown().catch(() => {});
  await w?.close();
});

describe('discordeno', () => {
  it('connects: ready, then GUILD_CREATE for its guild', async () => {
    await bot.start();
    const ready = await waitFor('ready', () => readyPayload);
    ids.bot = ready.user.id.toString();
    expect(ready.applicationId.toString()).toBe(w.appId);
    expect(bot.id.toString()).toBe(ids.bot);
    const guild = await dispatch('GUILD_CREATE', (d) => d.id === w.guildId);
    expect(guild.name).toBe('Library Guild');
  });

  it('reads the guild, its channels, roles and members', async () => {
    const guild = await bot.helpers.getGuild(w.guildId);
    expect(guild.name).toBe('Library Guild');
    expect(guild.ownerId.toString()).toBe(w.owner.userId);
    const channels = await bot.helpers.getChannels(w.guildId);
    expect(channels.map((c) => c.id.toString())).toContain(w.channelId);
    const roles = await bot.helpers.getRoles(w.guildId);
    expect(roles.map((r) => r.id.toString())).toContain(w.guildId);
    expect(roles.some((r) => r.tags?.botId?.toString() === ids.bot)).toBe(true);
    const members = await bot.helpers.getMembers(w.guildId, { limit: 100 });
    expect(members.map((m) => m.id.toString()).sort()).toEqual([w.owner.userId, ids.bot!, w.observerUserId].sort());
  });

  it('creates a channel', async () => {
    const channel = await bot.helpers.createChannel(w.guildId, { name: 'deno-made', type: ChannelTypes.GuildText, topic: 'by discordeno' });
    expect(channel.name).toBe('deno-made');
    expect(channel.type).toBe(ChannelTypes.GuildText);
    ids.channel = channel.id.toString();
    await dispatch('CHANNEL_CREATE', (d) => d.id === ids.channel);
  });

  it('sends, edits, pins, reacts to, replies to and deletes messages, and reads the history', async () => {
    const channel = ids.channel!;
    const sent = await bot.helpers.sendMessage(channel, { content: 'hello' });
    expect(sent.author.id.toString()).toBe(ids.bot);
    const edited = await bot.helpers.editMessage(channel, sent.id, { content: 'hello, edited' });
    expect(edited.content).toBe('hello, edited');
    expect(edited.editedTimestamp).toBeGreaterThan(0);
    await bot.helpers.pinMessage(channel, sent.id);
    expect((await bot.helpers.getPinnedMessages(channel)).map((m) => m.id)).toContain(sent.id);
    await bot.helpers.addReaction(channel, sent.id, '👍');
    await dispatch('MESSAGE_REACTION_ADD', (d) => d.message_id === sent.id.toString());
    const reply = await bot.helpers.sendMessage(channel, { content: 'a reply', messageReference: { messageId: sent.id, failIfNotExists: true } });
    expect(reply.messageReference?.messageId).toBe(sent.id);
    const history = await bot.helpers.getMessages(channel, { limit: 10 });
    expect(history.map((m) => m.id)).toEqual([reply.id, sent.id]);
    expect(history[1]!.pinned).toBe(true);
    expect(history[1]!.reactions?.[0]).toMatchObject({ count: 1, me: true, emoji: { name: '👍' } });
    await bot.helpers.deleteMessage(channel, reply.id);
    await dispatch('MESSAGE_DELETE', (d) => d.id === reply.id.toString());
    expect((await bot.helpers.getMessages(channel, { limit: 10 })).map((m) => m.id)).toEqual([sent.id]);
  });

  it('creates an invite, and sees GUILD_MEMBER_ADD when a person joins by it', async () => {
    const invite = await bot.helpers.createInvite(ids.channel!, { maxAge: 600, maxUses: 5 });
    expect(invite.code).toMatch(/^[A-Za-z0-9]+$/);
    ids.joiner = await w.joinByInvite(invite.code);
    const added = await waitFor('guildMemberAdd', () => joined.find((j) => j.user.id.toString() === ids.joiner));
    expect(added.member.guildId.toString()).toBe(w.guildId);
  });

  it('registers a global and a guild command, and answers an interaction a person triggers', async () => {
    const global = await bot.helpers.createGlobalApplicationCommand({ name: 'ping', description: 'Answers pong' });
    const local = await bot.helpers.createGuildApplicationCommand({ name: 'local', description: 'Guild only' }, w.guildId);
    expect(local.guildId?.toString()).toBe(w.guildId);
    expect((await bot.helpers.getGlobalApplicationCommands()).map((c) => c.name)).toEqual(['ping']);
    expect((await bot.helpers.getGuildApplicationCommands(w.guildId)).map((c) => c.name)).toEqual(['local']);

    const invoked = await w.invokeCommand({ id: global.id.toString(), name: global.name });
    expect(invoked.status).toBe(200);
    const interaction = await waitFor('interactionCreate', () => interactions.find((i) => i.id.toString() === invoked.body.id));
    expect(interaction.data.name).toBe('ping');
    expect(interaction.user.id.toString()).toBe(w.owner.userId);
    await bot.helpers.sendInteractionResponse(interaction.id, interaction.token, { type: InteractionResponseTypes.ChannelMessageWithSource, data: { content: 'pong' } });
    expect((await bot.helpers.getOriginalInteractionResponse(interaction.token)).content).toBe('pong');
  });

  it('requests guild members (op 8) and gets every member', async () => {
    const members = await bot.gateway.requestMembers(w.guildId, { limit: 0, query: '' });
    expect(members.map((m) => m.user.id.toString()).sort()).toEqual([w.owner.userId, ids.bot!, w.observerUserId, ids.joiner!].sort());
  });

  it('sets a presence that the other bot in the guild sees', async () => {
    await bot.gateway.editBotStatus({ status: 'dnd', activities: [{ name: 'with dinosaurs', type: ActivityTypes.Playing }] });
    const update = await w.observer.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === ids.bot && f.d.status === 'dnd');
    expect(update.d.guild_id).toBe(w.guildId);
    expect(update.d.activities[0]).toMatchObject({ name: 'with dinosaurs', type: 0 });
  });
});
