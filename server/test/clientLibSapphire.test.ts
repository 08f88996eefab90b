import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityType, ChannelType, GatewayIntentBits, type ChatInputCommandInteraction, type GuildMember, type TextChannel } from 'discord.js';
import { Command, Events, LogLevel, SapphireClient } from '@sapphire/framework';
import { startClientLibWorld, waitFor, type ClientLibWorld } from './clientLibFixture.ts';

/**
 * The Sapphire command framework (@sapphire/framework 5, on discord.js 14), unmodified: its
 * commands register themselves as a global and a guild application command when the client is
 * ready, and its chat-input handler answers the interaction a person triggers.
 *
 * How it is pointed at us: Sapphire's client is a discord.js client, and discord.js's documented
 * `rest.api` option is our `/api` root (it adds `/v10`); the Gateway URL is the one our
 * GET /gateway/bot answers. No other setting and no patch.
 */
let w: ClientLibWorld;
let client: SapphireClient;
const errors: unknown[] = [];
const answered: ChatInputCommandInteraction[] = [];
let registered = false;
let guildIdForCommands = '';

class PingCommand extends Command {
  override registerApplicationCommands(registry: Command.Registry): void {
    registry.registerChatInputCommand((b) => b.setName('ping').setDescription('Answers pong'));
  }

  override async chatInputRun(interaction: ChatInputCommandInteraction): Promise<void> {
    await interaction.reply('pong');
    answered.push(interaction);
  }
}

class LocalCommand extends Command {
  override registerApplicationCommands(registry: Command.Registry): void {
    registry.registerChatInputCommand((b) => b.setName('local').setDescription('Guild only'), { guildIds: [guildIdForCommands] });
  }

  override async chatInputRun(interaction: ChatInputCommandInteraction): Promise<void> {
    await interaction.reply('here only');
  }
}

beforeAll(async () => {
  w = await startClientLibWorld();
  guildIdForCommands = w.guildId;
  client = new SapphireClient({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers, GatewayIntentBits.GuildMessages, GatewayIntentBits.GuildMessageReactions, GatewayIntentBits.GuildInvites],
    rest: { api: w.restBase },
    // Pieces are given here, not found on disk.
    baseUserDirectory: null,
    logger: { level: LogLevel.Warn },
  });
  client.stores.loadPiece({ store: 'commands', name: 'ping', piece: PingCommand });
  client.stores.loadPiece({ store: 'commands', name: 'local', piece: LocalCommand });
  client.on(Events.ApplicationCommandRegistriesRegistered, () => {
    registered = true;
  });
  for (const e of [Events.Error, Events.ChatInputCommandError, Events.ChatInputCommandDenied, Events.ListenerError, Events.CommandApplicationCommandRegistryError] as const) {
    client.on(e as never, (err: unknown) => errors.push(err));
  }
});
afterAll(async () => {
  await client?.destroy();
  await w?.close();
});

describe('Sapphire framework', () => {
  let channel: TextChannel;
  let joiner = '';

  it('connects: ready, with the guild in its cache', async () => {
    const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
    await client.login(w.botToken);
    await ready;
    expect(client.application?.id).toBe(w.appId);
    expect(client.guilds.cache.get(w.guildId)?.name).toBe('Library Guild');
  });

  it('reads its guilds, the guild, its channels, roles and members', async () => {
    expect([...(await client.guilds.fetch()).keys()]).toEqual([w.guildId]);
    const guild = await client.guilds.fetch({ guild: w.guildId, force: true });
    expect(guild.ownerId).toBe(w.owner.userId);
    expect([...(await guild.channels.fetch()).keys()]).toContain(w.channelId);
    const roles = await guild.roles.fetch();
    expect(roles.has(w.guildId)).toBe(true);
    expect(roles.some((r) => r.tags?.botId === client.user!.id)).toBe(true);
    const members = await guild.members.list({ limit: 100 });
    expect([...members.keys()].sort()).toEqual([w.owner.userId, client.user!.id, w.observerUserId].sort());
  });

  it('creates a channel', async () => {
    channel = await client.guilds.cache.get(w.guildId)!.channels.create({ name: 'sapphire-made', type: ChannelType.GuildText, topic: 'by Sapphire' });
    expect(channel.name).toBe('sapphire-made');
  });

  it('sends, edits, pins, reacts to, replies to and deletes messages, and reads the history', async () => {
    const sent = await channel.send('hello');
    expect(sent.author.id).toBe(client.user!.id);
    const edited = await sent.edit('hello, edited');
    expect(edited.content).toBe('hello, edited');
    expect(edited.editedTimestamp).not.toBeNull();
    await sent.pin();
    expect((await channel.messages.fetchPins()).items.map((p) => p.message.id)).toContain(sent.id);
    await sent.react('👍');
    const reply = await sent.reply('a reply');
    expect(reply.reference?.messageId).toBe(sent.id);
    const history = await channel.messages.fetch({ limit: 10, cache: false });
    expect([...history.keys()]).toEqual([reply.id, sent.id]);
    expect(history.get(sent.id)!.pinned).toBe(true);
    expect(history.get(sent.id)!.reactions.cache.get('👍')).toMatchObject({ count: 1, me: true });
    await reply.delete();
    expect([...(await channel.messages.fetch({ limit: 10, cache: false })).keys()]).toEqual([sent.id]);
  });

  it('creates an invite, and sees GUILD_MEMBER_ADD when a person joins by it', async () => {
    const invite = await channel.createInvite({ maxAge: 600, maxUses: 5 });
    expect(invite.code).toMatch(/^[A-Za-z0-9]+$/);
    const joined: GuildMember[] = [];
    client.on(Events.GuildMemberAdd, (m) => joined.push(m));
    joiner = await w.joinByInvite(invite.code);
    const member = await waitFor('guildMemberAdd', () => joined.find((m) => m.id === joiner));
    expect(member.guild.id).toBe(w.guildId);
  });

  it('registers its commands as a global and a guild command, and its handler answers an interaction a person triggers', async () => {
    await waitFor('the command registries', () => (registered ? true : undefined));
    const global = await client.application!.commands.fetch();
    expect(global.map((c) => c.name)).toEqual(['ping']);
    expect((await client.application!.commands.fetch({ guildId: w.guildId })).map((c) => c.name)).toEqual(['local']);

    const invoked = await w.invokeCommand({ id: global.first()!.id, name: 'ping' });
    expect(invoked.status).toBe(200);
    const interaction = await waitFor('the answered interaction', () => answered.find((i) => i.id === invoked.body.id));
    expect(interaction.user.id).toBe(w.owner.userId);
    expect((await interaction.fetchReply()).content).toBe('pong');
    expect(errors).toEqual([]);
  });

  it('requests guild members (op 8) and gets every member', async () => {
    const members = await client.guilds.cache.get(w.guildId)!.members.fetch();
    expect([...members.keys()].sort()).toEqual([w.owner.userId, client.user!.id, w.observerUserId, joiner].sort());
  });

  it('sets a presence that the other bot in the guild sees', async () => {
    client.user!.setPresence({ status: 'dnd', activities: [{ name: 'with gems', type: ActivityType.Playing }] });
    const update = await w.observer.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === client.user!.id && f.d.status === 'dnd');
    expect(update.d.guild_id).toBe(w.guildId);
    expect(update.d.activities[0]).toMatchObject({ name: 'with gems', type: 0 });
    expect(errors).toEqual([]);
  });
});
