import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, GatewayDispatchEvents, GatewayIntentBits, PresenceUpdateStatus, ActivityType, InteractionType, type APIInteraction } from '@discordjs/core';
import { REST } from '@discordjs/rest';
import { WebSocketManager } from '@discordjs/ws';
import { startClientLibWorld, waitFor, type ClientLibWorld } from './clientLibFixture.ts';

/**
 * The lower-level discord.js stack, unmodified: @discordjs/rest (REST), @discordjs/ws (Gateway)
 * and @discordjs/core (typed API and events) as a bot in a guild.
 *
 * How it is pointed at us: REST's documented `api` option is our `/api` root (it adds `/v10`);
 * the Gateway URL is the one our GET /gateway/bot answers, which @discordjs/ws asks for through
 * that same REST client. No other setting and no patch.
 */
let w: ClientLibWorld;
let rest: REST;
let gateway: WebSocketManager;
let client: Client;
const events: { t: string; d: any }[] = [];
const ids: { bot?: string; channel?: string; message?: string; invite?: string; joiner?: string } = {};

function seen(t: string, pred: (d: any) => boolean = () => true): Promise<any> {
  return waitFor(t, () => events.find((e) => e.t === t && pred(e.d))?.d);
}

beforeAll(async () => {
  w = await startClientLibWorld();
  rest = new REST({ version: '10', api: w.restBase }).setToken(w.botToken);
  gateway = new WebSocketManager({
    token: w.botToken,
    intents: GatewayIntentBits.Guilds | GatewayIntentBits.GuildMembers | GatewayIntentBits.GuildMessages | GatewayIntentBits.GuildMessageReactions | GatewayIntentBits.GuildInvites,
    rest,
  });
  client = new Client({ rest, gateway });
  // Every dispatch, as the library hands it to its listeners (one listener per event name).
  const on = client.on.bind(client) as unknown as (t: string, listener: (p: { data: unknown }) => void) => void;
  for (const t of Object.values(GatewayDispatchEvents)) on(t, ({ data }) => events.push({ t, d: data }));
});
afterAll(async () => {
  await gateway?.destroy();
  await w?.close();
});

describe('@discordjs/core + rest + ws', () => {
  it('connects: READY with the bot user and application, then GUILD_CREATE for its guild', async () => {
    await gateway.connect();
    const ready = await seen(GatewayDispatchEvents.Ready);
    expect(ready.application.id).toBe(w.appId);
    expect(ready.guilds.map((g: { id: string }) => g.id)).toContain(w.guildId);
    ids.bot = ready.user.id;
    const guild = await seen(GatewayDispatchEvents.GuildCreate, (d) => d.id === w.guildId);
    expect(guild.name).toBe('Library Guild');
  });

  it('reads its guilds, the guild, its channels, roles and members', async () => {
    expect((await client.api.users.getGuilds()).map((g) => g.id)).toEqual([w.guildId]);
    const guild = await client.api.guilds.get(w.guildId);
    expect(guild.owner_id).toBe(w.owner.userId);
    const channels = await client.api.guilds.getChannels(w.guildId);
    expect(channels.map((c) => c.id)).toContain(w.channelId);
    const roles = await client.api.guilds.getRoles(w.guildId);
    expect(roles.map((r) => r.id)).toContain(w.guildId);
    expect(roles.some((r) => r.tags?.bot_id === ids.bot)).toBe(true);
    const members = await client.api.guilds.getMembers(w.guildId, { limit: 100 });
    expect(members.map((m) => m.user.id).sort()).toEqual([w.owner.userId, ids.bot!, w.observerUserId].sort());
  });

  it('creates a channel', async () => {
    const channel = await client.api.guilds.createChannel(w.guildId, { name: 'core-made', type: 0, topic: 'by @discordjs/core' });
    expect(channel).toMatchObject({ name: 'core-made', type: 0 });
    ids.channel = channel.id;
    await seen(GatewayDispatchEvents.ChannelCreate, (d) => d.id === channel.id);
  });

  it('sends, edits, pins, reacts to, replies to and deletes messages, and reads the history', async () => {
    const sent = await client.api.channels.createMessage(ids.channel!, { content: 'hello' });
    expect(sent.author.id).toBe(ids.bot);
    await seen(GatewayDispatchEvents.MessageCreate, (d) => d.id === sent.id);
    const edited = await client.api.channels.editMessage(ids.channel!, sent.id, { content: 'hello, edited' });
    expect(edited.content).toBe('hello, edited');
    expect(edited.edited_timestamp).not.toBeNull();
    await client.api.channels.pinMessage(ids.channel!, sent.id);
    const pins = await client.api.channels.getPins(ids.channel!);
    expect(pins.map((m) => m.id)).toContain(sent.id);
    await client.api.channels.addMessageReaction(ids.channel!, sent.id, '👍');
    await seen(GatewayDispatchEvents.MessageReactionAdd, (d) => d.message_id === sent.id && d.emoji.name === '👍');
    const reply = await client.api.channels.createMessage(ids.channel!, { content: 'a reply', message_reference: { message_id: sent.id } });
    expect(reply.message_reference?.message_id).toBe(sent.id);
    expect(reply.referenced_message?.id).toBe(sent.id);
    const history = await client.api.channels.getMessages(ids.channel!, { limit: 10 });
    expect(history.map((m) => m.id)).toEqual([reply.id, sent.id]);
    expect(history[1]!.reactions?.[0]).toMatchObject({ count: 1, me: true, emoji: { name: '👍' } });
    expect(history[1]!.pinned).toBe(true);
    await client.api.channels.deleteMessage(ids.channel!, reply.id);
    await seen(GatewayDispatchEvents.MessageDelete, (d) => d.id === reply.id);
    expect((await client.api.channels.getMessages(ids.channel!, { limit: 10 })).map((m) => m.id)).toEqual([sent.id]);
  });

  it('creates an invite, and sees GUILD_MEMBER_ADD when a person joins by it', async () => {
    const invite = await client.api.channels.createInvite(ids.channel!, { max_age: 600, max_uses: 5 });
    expect(invite.code).toMatch(/^[A-Za-z0-9]+$/);
    const joiner = await w.joinByInvite(invite.code);
    ids.joiner = joiner;
    const added = await seen(GatewayDispatchEvents.GuildMemberAdd, (d) => d.user.id === joiner);
    expect(added.guild_id).toBe(w.guildId);
  });

  it('registers a global and a guild command, and answers an interaction a person triggers', async () => {
    const global = await client.api.applicationCommands.createGlobalCommand(w.appId, { name: 'ping', description: 'Answers pong' });
    const local = await client.api.applicationCommands.createGuildCommand(w.appId, w.guildId, { name: 'local', description: 'Guild only' });
    expect(local.guild_id).toBe(w.guildId);
    expect((await client.api.applicationCommands.getGlobalCommands(w.appId)).map((c) => c.name)).toEqual(['ping']);
    expect((await client.api.applicationCommands.getGuildCommands(w.appId, w.guildId)).map((c) => c.name)).toEqual(['local']);

    client.once(GatewayDispatchEvents.InteractionCreate, async ({ data, api }: { data: APIInteraction; api: Client['api'] }) => {
      if (data.type === InteractionType.ApplicationCommand) await api.interactions.reply(data.id, data.token, { content: 'pong' });
    });
    const invoked = await w.invokeCommand(global);
    expect(invoked.status).toBe(200);
    const interaction = await seen(GatewayDispatchEvents.InteractionCreate, (d) => d.id === invoked.body.id);
    expect(interaction.data.name).toBe('ping');
    expect(interaction.member.user.id).toBe(w.owner.userId);
    const answer = await waitFor('the reply', () => events.find((e) => e.t === GatewayDispatchEvents.MessageCreate && e.d.interaction_metadata?.id === invoked.body.id)?.d);
    expect(answer.content).toBe('pong');
    expect((await client.api.interactions.getOriginalReply(w.appId, interaction.token)).content).toBe('pong');
  });

  it('requests guild members (op 8) and gets every member', async () => {
    const { members, notFound } = await client.requestGuildMembers({ guild_id: w.guildId, query: '', limit: 0 });
    expect(notFound).toEqual([]);
    expect(members.map((m) => m.user.id).sort()).toEqual([w.owner.userId, ids.bot!, w.observerUserId, ids.joiner!].sort());
  });

  it('sets a presence that the other bot in the guild sees', async () => {
    await client.updatePresence(0, { status: PresenceUpdateStatus.DoNotDisturb, activities: [{ name: 'with REST', type: ActivityType.Playing }], since: null, afk: false });
    const update = await w.observer.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === ids.bot && f.d.status === 'dnd');
    expect(update.d.guild_id).toBe(w.guildId);
    expect(update.d.activities[0]).toMatchObject({ name: 'with REST', type: 0 });
  });
});
