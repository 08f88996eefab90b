import { Agent } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Eris from 'eris';
import { startClientLibWorld, startTlsFront, waitFor, type ClientLibWorld } from './clientLibFixture.ts';

/**
 * eris 0.18, unmodified, as a bot in a guild.
 *
 * How it is pointed at us: eris's REST always speaks HTTPS to `rest.domain` (no scheme or port
 * option), so the server is reached through a TLS front (startTlsFront, bytes piped unchanged,
 * as behind a load balancer), with `rest.domain` = 127.0.0.1, `rest.baseURL` = `/api/v10`, and
 * its documented `rest.agent` option an HTTPS agent that trusts the front's development
 * certificate and whose default port is the front's (a request without a port goes to its
 * agent's default port). The Gateway URL is the one our GET /gateway/bot answers, used as is.
 * No other setting and no patch.
 */
let w: ClientLibWorld;
let front: Awaited<ReturnType<typeof startTlsFront>>;
let client: Eris.Client;
const packets: { t: string; d: any }[] = [];
const errors: unknown[] = [];
const ids: { bot?: string; channel?: string; joiner?: string } = {};

function packet(t: string, pred: (d: any) => boolean = () => true): Promise<any> {
  return waitFor(t, () => packets.find((p) => p.t === t && pred(p.d))?.d);
}

beforeAll(async () => {
  w = await startClientLibWorld();
  front = await startTlsFront(w);
  const agent = Object.assign(new Agent({ ca: front.ca, keepAlive: true }), { defaultPort: front.port });
  client = new Eris.Client(`Bot ${w.botToken}`, {
    intents: ['guilds', 'guildMembers', 'guildMessages', 'guildMessageReactions', 'guildInvites'],
    rest: { domain: '127.0.0.1', baseURL: '/api/v10', agent },
    // The getREST* reads are refused without it (a documented eris option, not a host setting).
    restMode: true,
  });
  client.on('rawWS', (p: { t?: string; d: unknown }) => {
    if (p.t) packets.push({ t: p.t, d: p.d });
  });
  client.on('error', (e: unknown) => errors.push(e));
  // A library warns when what we send is not what it expects (an unknown shape, a clock skew).
  client.on('warn', (m: unknown) => errors.push(m));
});
afterAll(async () => {
  client?.disconnect({ reconnect: false });
  await front?.close();
  await w?.close();
});

describe('eris', () => {
  it('connects: ready, with the guild in its cache', async () => {
    const ready = new Promise<void>((resolve) => client.once('ready', () => resolve()));
    await client.connect();
    await ready;
    expect(errors).toEqual([]);
    ids.bot = client.user.id;
    expect(client.application?.id).toBe(w.appId);
    const guild = await waitFor('the guild', () => client.guilds.get(w.guildId));
    expect(guild.name).toBe('Library Guild');
    expect(guild.ownerID).toBe(w.owner.userId);
  });

  it('reads its guilds, the guild, its channels, roles and members', async () => {
    expect((await client.getRESTGuilds()).map((g) => g.id)).toEqual([w.guildId]);
    const guild = await client.getRESTGuild(w.guildId);
    expect(guild.name).toBe('Library Guild');
    const channels = await client.getRESTGuildChannels(w.guildId);
    expect(channels.map((c) => c.id)).toContain(w.channelId);
    const roles = await client.getRESTGuildRoles(w.guildId);
    expect(roles.map((r) => r.id)).toContain(w.guildId);
    expect(roles.some((r) => r.tags?.bot_id === ids.bot)).toBe(true);
    const members = await client.getRESTGuildMembers(w.guildId, { limit: 100 });
    expect(members.map((m) => m.id).sort()).toEqual([w.owner.userId, ids.bot!, w.observerUserId].sort());
  });

  it('creates a channel', async () => {
    const channel = await client.createChannel(w.guildId, 'eris-made', 0, { topic: 'by eris' });
    expect(channel.name).toBe('eris-made');
    expect(channel.type).toBe(0);
    ids.channel = channel.id;
    await waitFor('the channel in the cache', () => client.getChannel(channel.id));
  });

  it('sends, edits, pins, reacts to, replies to and deletes messages, and reads the history', async () => {
    const channel = ids.channel!;
    const sent = await client.createMessage(channel, 'hello');
    expect(sent.author.id).toBe(ids.bot);
    const edited = await client.editMessage(channel, sent.id, 'hello, edited');
    expect(edited.content).toBe('hello, edited');
    expect(edited.editedTimestamp).toBeGreaterThan(0);
    await client.pinMessage(channel, sent.id);
    expect((await client.getPins(channel)).map((m) => m.id)).toContain(sent.id);
    await client.addMessageReaction(channel, sent.id, '👍');
    await packet('MESSAGE_REACTION_ADD', (d) => d.message_id === sent.id);
    const reply = await client.createMessage(channel, { content: 'a reply', messageReference: { messageID: sent.id } });
    expect(reply.messageReference?.messageID).toBe(sent.id);
    expect(reply.referencedMessage?.id).toBe(sent.id);
    const history = await client.getMessages(channel, { limit: 10 });
    expect(history.map((m) => m.id)).toEqual([reply.id, sent.id]);
    expect(history[1]!.pinned).toBe(true);
    expect(history[1]!.reactions['👍']).toMatchObject({ count: 1, me: true });
    await client.deleteMessage(channel, reply.id);
    await packet('MESSAGE_DELETE', (d) => d.id === reply.id);
    expect((await client.getMessages(channel, { limit: 10 })).map((m) => m.id)).toEqual([sent.id]);
    expect(errors).toEqual([]);
  });

  it('creates an invite, and sees GUILD_MEMBER_ADD when a person joins by it', async () => {
    const invite = await client.createChannelInvite(ids.channel!, { maxAge: 600, maxUses: 5 });
    expect(invite.code).toMatch(/^[A-Za-z0-9]+$/);
    const joined: Eris.Member[] = [];
    client.on('guildMemberAdd', (_guild: Eris.Guild, member: Eris.Member) => joined.push(member));
    ids.joiner = await w.joinByInvite(invite.code);
    const member = await waitFor('guildMemberAdd', () => joined.find((m) => m.id === ids.joiner));
    expect(member.guild.id).toBe(w.guildId);
  });

  it('registers a global and a guild command, and answers an interaction a person triggers', async () => {
    const global = await client.createCommand({ type: 1, name: 'ping', description: 'Answers pong' });
    const local = await client.createGuildCommand(w.guildId, { type: 1, name: 'local', description: 'Guild only' });
    expect(local.guild?.id).toBe(w.guildId);
    expect((await client.getCommands()).map((c) => c.name)).toEqual(['ping']);
    expect((await client.getGuildCommands(w.guildId)).map((c) => c.name)).toEqual(['local']);

    const answered = new Promise<Eris.CommandInteraction>((resolve, reject) => {
      client.once('interactionCreate', (i: Eris.Interaction) => {
        if (!(i instanceof Eris.CommandInteraction)) return reject(new Error(`unexpected interaction type ${i.type}`));
        i.createMessage('pong').then(() => resolve(i), reject);
      });
    });
    const invoked = await w.invokeCommand({ id: global.id, name: global.name });
    expect(invoked.status).toBe(200);
    const interaction = await answered;
    expect(interaction.data.name).toBe('ping');
    expect(interaction.member?.id).toBe(w.owner.userId);
    expect((await interaction.getOriginalMessage()).content).toBe('pong');
  });

  it('requests guild members (op 8) and gets every member', async () => {
    const members = await client.guilds.get(w.guildId)!.fetchMembers({ limit: 0, query: '' });
    expect(members.map((m) => m.id).sort()).toEqual([w.owner.userId, ids.bot!, w.observerUserId, ids.joiner!].sort());
  });

  it('sets a presence that the other bot in the guild sees', async () => {
    client.editStatus('dnd', { name: 'with eris', type: 0 });
    const update = await w.observer.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === ids.bot && f.d.status === 'dnd');
    expect(update.d.guild_id).toBe(w.guildId);
    expect(update.d.activities[0]).toMatchObject({ name: 'with eris', type: 0 });
    expect(errors).toEqual([]);
  });
});
