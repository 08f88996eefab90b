import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { CAPABILITY_CHANNEL_OBFUSCATION, Intent } from '../src/guilds/GuildGateway.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * The guild side of the Gateway over real sockets: READY's unavailable guilds then GUILD_CREATE,
 * privileged intents (4014), dispatch filtering by intents and permissions, channel obfuscation,
 * op 8 (chunks, RATE_LIMITED) and op 43.
 */
let t: TestServer;
type U = { userId: string; token: string };
let owner: U;
let alice: U;
const sockets: RawGateway[] = [];

async function user(name: string): Promise<U> {
  const g = await t.guest(name);
  return { userId: g.userId, token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600) };
}

async function connect(token: string, intents: number, capabilities = 0): Promise<{ gw: RawGateway; ready: any }> {
  const gw = await RawGateway.open(t.server);
  sockets.push(gw);
  gw.send({ op: 2, d: { token, intents, capabilities, properties: { os: 'linux', browser: 'test', device: 'test' } } });
  const ready = (await gw.next((f) => f.t === 'READY')).d;
  return { gw, ready };
}

async function setAppFlags(flags: number): Promise<void> {
  const db = t.server.store.database.db;
  await db.updateTable('applications').set({ flags }).where('id', '=', t.app.id).execute();
  // Engineer B's flags column (all bits as a string), where that migration is present.
  await db.updateTable('applications').set({ flags_new: String(flags) } as never).where('id', '=', t.app.id).execute().catch(() => {});
}

const botUserId = async () => (await t.server.store.applications.get(t.app.id))!.bot_user_id;

beforeAll(async () => {
  t = await startTestServer({ rateLimits: false });
  owner = await user('Owner');
  alice = await user('Alice');
});
afterAll(async () => {
  for (const s of sockets) s.terminate();
  await t.close();
  cleanupTempDirs();
});

async function guildWithBot(permissions: bigint = Permission.ViewChannel | Permission.ManageChannels | Permission.SendMessages) {
  const g = (await t.req('POST', '/guilds', { token: owner.token, body: { name: 'GW' } })).body;
  const channels = (await t.req('GET', `/guilds/${g.id}/channels`, { token: owner.token })).body as any[];
  await guildServicesFor(t.server.store, undefined as never).installBot(g.id, t.app.id, permissions);
  return { guild: g, text: channels.find((c) => c.type === 0), voice: channels.find((c) => c.type === 2) };
}

describe('privileged intents', () => {
  it('refuses GUILD_MEMBERS, GUILD_PRESENCES and MESSAGE_CONTENT with 4014 unless the application enabled them', async () => {
    await setAppFlags(0);
    for (const intent of [Intent.GuildMembers, Intent.GuildPresences, Intent.MessageContent]) {
      const gw = await RawGateway.open(t.server);
      sockets.push(gw);
      gw.send({ op: 2, d: { token: t.app.botToken, intents: Intent.Guilds | intent, properties: { os: 'l', browser: 'b', device: 'd' } } });
      expect(await gw.closed()).toBe(4014);
      expect(gw.dispatches('READY')).toEqual([]);
    }
    // GATEWAY_GUILD_MEMBERS_LIMITED (1 << 15): an application under the threshold enabled it itself.
    await setAppFlags(1 << 15);
    const { ready } = await connect(t.app.botToken, Intent.Guilds | Intent.GuildMembers);
    expect(ready.user.bot).toBe(true);
    const gw = await RawGateway.open(t.server);
    sockets.push(gw);
    gw.send({ op: 2, d: { token: t.app.botToken, intents: Intent.GuildPresences, properties: { os: 'l', browser: 'b', device: 'd' } } });
    expect(await gw.closed()).toBe(4014);
  });
});

describe('READY and GUILD_CREATE', () => {
  it('lists guilds as unavailable in READY, then sends GUILD_CREATE with channels, roles and members', async () => {
    // GUILD_PRESENCES (enabled by GATEWAY_PRESENCE_LIMITED, 1 << 13) puts every member in GUILD_CREATE.
    await setAppFlags((1 << 15) | (1 << 13));
    const { guild, text } = await guildWithBot();
    const withoutPresences = await connect(t.app.botToken, Intent.Guilds | Intent.GuildMembers);
    const slim = (await withoutPresences.gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guild.id)).d;
    expect(slim.members.map((m: any) => m.user.id)).toEqual([await botUserId()]);
    const { gw, ready } = await connect(t.app.botToken, Intent.Guilds | Intent.GuildMembers | Intent.GuildPresences);
    expect(ready.guilds).toContainEqual({ id: guild.id, unavailable: true });
    const created = (await gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guild.id)).d;
    expect(created.s).toBeUndefined();
    expect(created.channels.map((c: any) => c.id)).toContain(text.id);
    expect(created.roles.map((r: any) => r.name)).toContain('@everyone');
    expect(created.members.map((m: any) => m.user.id).sort()).toEqual([owner.userId, await botUserId()].sort());
    expect(created).toMatchObject({ unavailable: false, member_count: 2, large: false });
    const readyIndex = gw.frames.findIndex((f) => f.t === 'READY');
    expect(gw.frames.findIndex((f) => f.t === 'GUILD_CREATE' && f.d.id === guild.id)).toBeGreaterThan(readyIndex);
  });

  it('a guild the user joins later arrives as GUILD_CREATE on the open session', async () => {
    const { gw } = await connect(alice.token, Intent.Guilds);
    const { guild, text } = await guildWithBot();
    const inv = await t.req('POST', `/channels/${text.id}/invites`, { token: owner.token, body: {} });
    await t.req('POST', `/invites/${inv.body.code}`, { token: alice.token });
    const created = (await gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guild.id)).d;
    // Without GUILD_PRESENCES the member list holds only oneself.
    expect(created.members.map((m: any) => m.user.id)).toEqual([alice.userId]);
  });
});

describe('dispatch filtering', () => {
  it('delivers member events by intent, GUILD_MEMBER_UPDATE of oneself regardless, INVITE_CREATE by permission', async () => {
    await setAppFlags(1 << 15);
    const { guild, text } = await guildWithBot();
    const withMembers = await connect(t.app.botToken, Intent.Guilds | Intent.GuildMembers | Intent.GuildInvites);
    const ownerGw = await connect(owner.token, Intent.Guilds | Intent.GuildInvites);
    const inv = await t.req('POST', `/channels/${text.id}/invites`, { token: owner.token, body: {} });
    const aliceGw = await connect(alice.token, Intent.Guilds | Intent.GuildInvites);
    await t.req('POST', `/invites/${inv.body.code}`, { token: alice.token });
    const add = (await withMembers.gw.next((f) => f.t === 'GUILD_MEMBER_ADD' && f.d.guild_id === guild.id)).d;
    expect(add.user.id).toBe(alice.userId);
    // The bot holds MANAGE_CHANNELS: it hears of invites; so does the owner.
    await withMembers.gw.next((f) => f.t === 'INVITE_CREATE' && f.d.code === inv.body.code);
    await ownerGw.gw.next((f) => f.t === 'INVITE_CREATE' && f.d.code === inv.body.code);
    // Alice updates her member: the owner's session (no GUILD_MEMBERS) does not hear it; Alice's does.
    await t.req('PATCH', `/guilds/${guild.id}/members/@me`, { token: alice.token, body: { bio: 'hi' } });
    await aliceGw.gw.next((f) => f.t === 'GUILD_MEMBER_UPDATE' && f.d.user.id === alice.userId && f.d.bio === 'hi');
    await withMembers.gw.next((f) => f.t === 'GUILD_MEMBER_UPDATE' && f.d.bio === 'hi');
    // The member's banner travels on the Gateway's member object as its hash.
    const bannered = await t.req('PATCH', `/guilds/${guild.id}/members/@me`, { token: alice.token, body: { banner: 'data:image/png;base64,iVBORw0KGgo=' } });
    expect(bannered.body.banner).toMatch(/^[0-9a-f]{32}$/);
    await withMembers.gw.next((f) => f.t === 'GUILD_MEMBER_UPDATE' && f.d.user.id === alice.userId && f.d.banner === bannered.body.banner);
    // A later invite: Alice (no MANAGE_CHANNELS) never gets INVITE_CREATE.
    const inv2 = await t.req('POST', `/channels/${text.id}/invites`, { token: owner.token, body: {} });
    await ownerGw.gw.next((f) => f.t === 'INVITE_CREATE' && f.d.code === inv2.body.code);
    await t.req('PATCH', `/guilds/${guild.id}/members/@me`, { token: owner.token, body: { bio: 'sync' } });
    await aliceGw.gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guild.id);
    expect(ownerGw.gw.dispatches('GUILD_MEMBER_UPDATE').filter((f) => f.d.user.id === alice.userId)).toEqual([]);
    await ownerGw.gw.next((f) => f.t === 'GUILD_MEMBER_UPDATE' && f.d.bio === 'sync');
    expect(aliceGw.gw.dispatches('INVITE_CREATE')).toEqual([]);
    // Alice is kicked: GUILD_MEMBER_REMOVE (guild_id and the user) to the GUILD_MEMBERS session,
    // not to the owner's (without the intent); Alice's own session loses the guild.
    expect((await t.req('DELETE', `/guilds/${guild.id}/members/${alice.userId}`, { token: owner.token })).status).toBe(204);
    const removed = (await withMembers.gw.next((f) => f.t === 'GUILD_MEMBER_REMOVE' && f.d.guild_id === guild.id)).d;
    expect(removed).toMatchObject({ guild_id: guild.id, user: { id: alice.userId } });
    await aliceGw.gw.next((f) => f.t === 'GUILD_DELETE' && f.d.id === guild.id);
    expect(ownerGw.gw.dispatches('GUILD_MEMBER_REMOVE')).toEqual([]);
  });

  it('channel obfuscation: a channel the bot cannot view is ___hidden___ for sessions with capability 1<<15, absent for others', async () => {
    const { guild } = await guildWithBot(Permission.SendMessages);
    // The bot's role lacks VIEW_CHANNEL; @everyone is denied it on the new channel.
    const plain = await connect(t.app.botToken, Intent.Guilds);
    const obf = await connect(t.app.botToken, Intent.Guilds, CAPABILITY_CHANNEL_OBFUSCATION);
    await plain.gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guild.id);
    await obf.gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guild.id);
    const hidden = await t.req('POST', `/guilds/${guild.id}/channels`, {
      token: owner.token,
      body: { name: 'secret plans', topic: 'the plan', permission_overwrites: [{ id: guild.id, type: 0, deny: Permission.ViewChannel.toString() }] },
    });
    const d = (await obf.gw.next((f) => f.t === 'CHANNEL_CREATE' && f.d.id === hidden.body.id)).d;
    expect(d).toMatchObject({ name: '___hidden___', topic: null, permission_overwrites: [{ id: guild.id, type: 0, allow: '0', deny: Permission.ViewChannel.toString() }] });
    expect(d.flags & (1 << 17)).toBe(1 << 17);
    const visible = await t.req('POST', `/guilds/${guild.id}/channels`, { token: owner.token, body: { name: 'open' } });
    await plain.gw.next((f) => f.t === 'CHANNEL_CREATE' && f.d.id === visible.body.id);
    expect(plain.gw.dispatches('CHANNEL_CREATE').map((f) => f.d.id)).not.toContain(hidden.body.id);
    // Reconnecting: GUILD_CREATE carries the hidden channel only for the opted-in session.
    const again = await connect(t.app.botToken, Intent.Guilds, CAPABILITY_CHANNEL_OBFUSCATION);
    const gc = (await again.gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guild.id)).d;
    expect(gc.channels.find((c: any) => c.id === hidden.body.id)?.name).toBe('___hidden___');
    const againPlain = await connect(t.app.botToken, Intent.Guilds);
    const gc2 = (await againPlain.gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guild.id)).d;
    expect(gc2.channels.map((c: any) => c.id)).not.toContain(hidden.body.id);
  });
});

describe('op 8 and op 43', () => {
  it('answers Request Guild Members with chunks, rate-limits a second all-members request within 30 s', async () => {
    await setAppFlags(1 << 15);
    const { guild } = await guildWithBot();
    const { gw } = await connect(t.app.botToken, Intent.Guilds | Intent.GuildMembers);
    gw.send({ op: 8, d: { guild_id: guild.id, query: '', limit: 0, nonce: 'n1' } });
    const chunk = (await gw.next((f) => f.t === 'GUILD_MEMBERS_CHUNK' && f.d.nonce === 'n1')).d;
    expect(chunk).toMatchObject({ guild_id: guild.id, chunk_index: 0, chunk_count: 1 });
    expect(chunk.members.length).toBe(2);
    gw.send({ op: 8, d: { guild_id: guild.id, query: '', limit: 0, nonce: 'n2' } });
    const limited = (await gw.next((f) => f.t === 'RATE_LIMITED')).d;
    expect(limited).toMatchObject({ opcode: 8, meta: { guild_id: guild.id, nonce: 'n2' } });
    expect(limited.retry_after).toBeGreaterThan(0);
    expect(limited.retry_after).toBeLessThanOrEqual(30);
    expect(gw.dispatches('GUILD_MEMBERS_CHUNK').filter((f) => f.d.nonce === 'n2')).toEqual([]);
    // Queries and user_ids are not all-members requests: not limited.
    gw.send({ op: 8, d: { guild_id: guild.id, user_ids: [owner.userId, '123456789012345678'], nonce: 'n3' } });
    const byId = (await gw.next((f) => f.t === 'GUILD_MEMBERS_CHUNK' && f.d.nonce === 'n3')).d;
    expect(byId.members.map((m: any) => m.user.id)).toEqual([owner.userId]);
    expect(byId.not_found).toEqual(['123456789012345678']);
    gw.send({ op: 8, d: { guild_id: guild.id, query: 'app_', limit: 10, nonce: 'n4' } });
    const q = (await gw.next((f) => f.t === 'GUILD_MEMBERS_CHUNK' && f.d.nonce === 'n4')).d;
    expect(q.members.map((m: any) => m.user.id)).toEqual([await botUserId()]);
    gw.send({ op: 8, d: { guild_id: 'nope' } });
    expect(await gw.closed()).toBe(4001);
  });

  it('PUT voice-status needs SET_VOICE_CHANNEL_STATUS (and MANAGE_CHANNELS when not connected), dispatches VOICE_CHANNEL_STATUS_UPDATE, and op 43 reads it', async () => {
    const { guild, voice } = await guildWithBot(Permission.ViewChannel | Permission.SetVoiceChannelStatus);
    const { gw } = await connect(t.app.botToken, Intent.Guilds);
    const refused = await t.req('PUT', `/channels/${voice.id}/voice-status`, { token: t.app.botToken, bot: true, body: { status: 'boss fight' } });
    expect([refused.status, refused.body.code]).toEqual([403, 50013]);
    const ownerGw = await connect(owner.token, Intent.Guilds);
    const long = await t.req('PUT', `/channels/${voice.id}/voice-status`, { token: owner.token, body: { status: 'x'.repeat(501) } });
    expect([long.status, long.body.code]).toEqual([400, 50035]);
    expect((await t.req('PUT', `/channels/${voice.id}/voice-status`, { token: owner.token, body: { status: 'boss fight' } })).status).toBe(204);
    const ev = (await ownerGw.gw.next((f) => f.t === 'VOICE_CHANNEL_STATUS_UPDATE' && f.d.id === voice.id)).d;
    expect(ev).toEqual({ id: voice.id, guild_id: guild.id, status: 'boss fight' });
    await gw.next((f) => f.t === 'VOICE_CHANNEL_STATUS_UPDATE' && f.d.id === voice.id);
    gw.send({ op: 43, d: { guild_id: guild.id, fields: ['status'] } });
    expect((await gw.next((f) => f.t === 'CHANNEL_INFO')).d).toEqual({ guild_id: guild.id, channels: [{ id: voice.id, status: 'boss fight' }] });
  });

  it('answers Request Channel Info with status and voice_start_time of voice channels', async () => {
    const { guild, voice } = await guildWithBot();
    await t.server.store.guilds.updateChannel(t.server.store.database.db, voice.id, { status: 'raid night', voice_start_time: 1_700_000_000 });
    const { gw } = await connect(t.app.botToken, Intent.Guilds);
    gw.send({ op: 43, d: { guild_id: guild.id, fields: ['status', 'voice_start_time'] } });
    const info = (await gw.next((f) => f.t === 'CHANNEL_INFO')).d;
    expect(info).toEqual({ guild_id: guild.id, channels: [{ id: voice.id, status: 'raid night', voice_start_time: 1_700_000_000 }] });
  });
});
