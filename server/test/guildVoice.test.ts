import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { RawGateway, cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor, type GuildServices } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * Guild voice at the wire (issue 10): op 4 with guild_id and channel_id, the permission checks
 * (VIEW_CHANNEL, CONNECT, SPEAK), VOICE_STATE_UPDATE to members who can view the channel and whose
 * session has GUILD_VOICE_STATES, VOICE_SERVER_UPDATE with guild_id, the voice gateway's Identify
 * with server_id = the guild, Get (Current) User Voice State over REST with its errors, and
 * GUILD_CREATE's voice_states for a session that connects while others are in voice.
 */
const GUILDS = 1 << 0;
const GUILD_VOICE_STATES = 1 << 7;

let t: TestServer;
let s: GuildServices;
let owner: { token: string; userId: string };
let member: { token: string; userId: string };
let outsider: { token: string; userId: string };
let guildId: string;
let voiceId: string;
let textId: string;
const sockets: RawGateway[] = [];

async function open(token: string, intents: number): Promise<{ gw: RawGateway; sessionId: string }> {
  const gw = await RawGateway.open(t.server);
  sockets.push(gw);
  gw.send({ op: 2, d: { token, intents, properties: { os: 'linux', browser: 'test', device: 'test' } } });
  const ready = (await gw.next((f) => f.t === 'READY')).d;
  return { gw, sessionId: ready.session_id };
}

const rest = (path: string, token: string) => t.req('GET', path, { token });

beforeAll(async () => {
  t = await startTestServer();
  s = guildServicesFor(t.server.store, undefined as never);
  const issue = async (name: string) => {
    const g = await t.guest(name);
    return { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
  };
  owner = await issue('Owner');
  member = await issue('Member');
  outsider = await issue('Outsider');
  const guild = await s.guilds.createGuild(owner.userId, { name: 'Voice Rules' });
  guildId = guild.id;
  const channels = await t.server.store.guilds.channels(guildId);
  voiceId = channels.find((c) => c.type === 2)!.id;
  textId = channels.find((c) => c.type === 0)!.id;
  await s.members.join(guildId, member.userId);
});

afterAll(async () => {
  for (const g of sockets) g.terminate();
  await t.close();
  cleanupTempDirs();
});

describe('guild voice', () => {
  it('joins with op 4: own VOICE_STATE_UPDATE, VOICE_SERVER_UPDATE with guild_id, state to GUILD_VOICE_STATES sessions only', async () => {
    const watcher = await open(member.token, GUILDS | GUILD_VOICE_STATES);
    const blind = await open(member.token, GUILDS);
    // The joiner asks for no intents at all: its own state still arrives.
    const { gw, sessionId } = await open(owner.token, 0);
    gw.send({ op: 4, d: { guild_id: guildId, channel_id: voiceId, self_mute: false, self_deaf: true } });

    const own = (await gw.next((f) => f.t === 'VOICE_STATE_UPDATE')).d;
    expect(own).toMatchObject({ guild_id: guildId, channel_id: voiceId, user_id: owner.userId, session_id: sessionId, self_deaf: true, self_mute: false, suppress: false, member: { user: { id: owner.userId } } });
    const server = (await gw.next((f) => f.t === 'VOICE_SERVER_UPDATE')).d;
    expect(server.guild_id).toBe(guildId);
    expect(server.endpoint).toBe(`${t.server.url.replace(/^http:\/\//, '')}/voice`);
    expect(typeof server.token).toBe('string');

    const seen = (await watcher.gw.next((f) => f.t === 'VOICE_STATE_UPDATE')).d;
    expect(seen).toMatchObject({ guild_id: guildId, channel_id: voiceId, user_id: owner.userId });
    // A later event reaches both member sessions; the one without GUILD_VOICE_STATES has no voice state by then.
    await s.guilds.modifyChannel(owner.userId, textId, { topic: 'sync point' });
    await blind.gw.next((f) => f.t === 'CHANNEL_UPDATE' && f.d.topic === 'sync point');
    expect(blind.gw.frames.some((f) => f.t === 'VOICE_STATE_UPDATE')).toBe(false);

    // The voice gateway accepts the token with server_id = the guild (as Discord clients send it).
    const voice = new WebSocket(`ws://${server.endpoint}?v=8`);
    const frames: any[] = [];
    voice.on('message', (d, binary) => !binary && frames.push(JSON.parse(d.toString())));
    await new Promise((r) => voice.once('open', r));
    voice.send(JSON.stringify({ op: 0, d: { server_id: guildId, user_id: owner.userId, session_id: sessionId, token: server.token, max_dave_protocol_version: 1 } }));
    await expect.poll(() => frames.find((f) => f.op === 2)?.d.ssrc, { timeout: 10_000 }).toBeGreaterThan(0);
    voice.close();

    // REST: the owner's state, a member's absence, a stranger's refusal, an unknown guild.
    const me = await rest(`/guilds/${guildId}/voice-states/@me`, owner.token);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ guild_id: guildId, channel_id: voiceId, user_id: owner.userId, self_deaf: true, request_to_speak_timestamp: null });
    expect(me.body.lobby_id).toBeUndefined();
    const byId = await rest(`/guilds/${guildId}/voice-states/${owner.userId}`, member.token);
    expect(byId.body).toMatchObject({ user_id: owner.userId, channel_id: voiceId });
    expect((await rest(`/guilds/${guildId}/voice-states/${member.userId}`, owner.token)).body.code).toBe(10065);
    expect((await rest(`/guilds/${guildId}/voice-states/@me`, outsider.token)).body.code).toBe(50001);
    expect((await rest('/guilds/123/voice-states/@me', owner.token)).body.code).toBe(10004);

    // Leaving: channel_id null, seen by the watcher; REST then says 10065.
    gw.send({ op: 4, d: { guild_id: guildId, channel_id: null, self_mute: false, self_deaf: false } });
    await watcher.gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === owner.userId && f.d.channel_id === null);
    expect((await rest(`/guilds/${guildId}/voice-states/@me`, owner.token)).body.code).toBe(10065);
  });

  it('refuses without CONNECT (50013), to non-members (50001) and for a text channel (10003); without SPEAK joins suppressed', async () => {
    const { gw } = await open(member.token, GUILDS | GUILD_VOICE_STATES);
    const refusal = async (guild: string, channel: string) => {
      gw.frames.length = 0;
      gw.send({ op: 4, d: { guild_id: guild, channel_id: channel, self_mute: false, self_deaf: false } });
      return (await gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.error_code !== undefined)).d;
    };
    expect(await refusal(guildId, textId)).toMatchObject({ channel_id: null, error_code: 10003 });

    await s.guilds.modifyChannel(owner.userId, voiceId, { permission_overwrites: [{ id: guildId, type: 0, allow: '0', deny: Permission.Connect.toString() }] });
    expect(await refusal(guildId, voiceId)).toMatchObject({ guild_id: guildId, channel_id: null, error_code: 50013 });
    expect(gw.frames.some((f) => f.t === 'VOICE_SERVER_UPDATE')).toBe(false);

    const stranger = await open(outsider.token, 0);
    stranger.gw.send({ op: 4, d: { guild_id: guildId, channel_id: voiceId, self_mute: false, self_deaf: false } });
    expect((await stranger.gw.next((f) => f.t === 'VOICE_STATE_UPDATE')).d).toMatchObject({ channel_id: null, error_code: 50001 });

    // CONNECT without SPEAK: in the channel, suppressed, and the relay will drop what it sends.
    await s.guilds.modifyChannel(owner.userId, voiceId, { permission_overwrites: [{ id: guildId, type: 0, allow: '0', deny: Permission.Speak.toString() }] });
    gw.frames.length = 0;
    gw.send({ op: 4, d: { guild_id: guildId, channel_id: voiceId, self_mute: false, self_deaf: false } });
    expect((await gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === member.userId)).d).toMatchObject({ channel_id: voiceId, suppress: true });
    await gw.next((f) => f.t === 'VOICE_SERVER_UPDATE');
    expect(t.server.voice.states.canSpeak(voiceId, member.userId)).toBe(false);
  });

  it('moves: joining another voice channel of the guild leaves the first', async () => {
    await s.guilds.modifyChannel(owner.userId, voiceId, { permission_overwrites: [] });
    const second = await s.guilds.createChannel(owner.userId, guildId, { name: 'Second', type: 2 });
    const { gw } = await open(owner.token, GUILD_VOICE_STATES);
    gw.send({ op: 4, d: { guild_id: guildId, channel_id: voiceId, self_mute: false, self_deaf: false } });
    await gw.next((f) => f.t === 'VOICE_SERVER_UPDATE');
    gw.send({ op: 4, d: { guild_id: guildId, channel_id: second.id, self_mute: false, self_deaf: false } });
    await gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === owner.userId && f.d.channel_id === second.id);
    expect(t.server.voice.states.state(voiceId, owner.userId)).toBeUndefined();
    expect(t.server.voice.states.guildVoiceState(guildId, owner.userId)?.channel_id).toBe(second.id);
  });

  it('rechecks a seat when the guild changes: SPEAK taken sets suppress, CONNECT taken or a kick ends it', async () => {
    const watcher = await open(owner.token, GUILD_VOICE_STATES);
    const { gw } = await open(member.token, 0);
    const join = async () => {
      gw.send({ op: 4, d: { guild_id: guildId, channel_id: voiceId, self_mute: false, self_deaf: false } });
      await watcher.gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === member.userId && f.d.channel_id === voiceId && f.d.suppress === false);
    };
    await join();
    const left = () => watcher.gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === member.userId && f.d.channel_id === null, 10_000);

    await s.guilds.modifyChannel(owner.userId, voiceId, { permission_overwrites: [{ id: guildId, type: 0, allow: '0', deny: Permission.Speak.toString() }] });
    await watcher.gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === member.userId && f.d.suppress === true, 10_000);
    expect(t.server.voice.states.canSpeak(voiceId, member.userId)).toBe(false);

    await s.guilds.modifyChannel(owner.userId, voiceId, { permission_overwrites: [{ id: guildId, type: 0, allow: '0', deny: Permission.Connect.toString() }] });
    await left();
    expect(t.server.voice.states.state(voiceId, member.userId)).toBeUndefined();

    await s.guilds.modifyChannel(owner.userId, voiceId, { permission_overwrites: [] });
    watcher.gw.frames.length = 0;
    await join();
    await s.members.kick(owner.userId, guildId, member.userId);
    await expect.poll(() => t.server.voice.states.state(voiceId, member.userId), { timeout: 10_000 }).toBeUndefined();
    await left();
  });

  it('GUILD_CREATE lists who is already in voice (voice_states) with GUILD_VOICE_STATES only, in channels the member can view', async () => {
    const g = await s.guilds.createGuild(owner.userId, { name: 'Already Talking' });
    const open2 = (await t.server.store.guilds.channels(g.id)).find((c) => c.type === 2)!.id;
    const hidden = await s.guilds.createChannel(owner.userId, g.id, { name: 'Private', type: 2 });
    await s.members.join(g.id, member.userId);
    await s.members.join(g.id, outsider.userId);
    // Only the member may not view the private voice channel.
    await s.guilds.modifyChannel(owner.userId, hidden.id, { permission_overwrites: [{ id: member.userId, type: 1, allow: '0', deny: Permission.ViewChannel.toString() }] });

    const talker = await open(owner.token, 0);
    talker.gw.send({ op: 4, d: { guild_id: g.id, channel_id: open2, self_mute: true, self_deaf: false } });
    await talker.gw.next((f) => f.t === 'VOICE_SERVER_UPDATE');
    const hider = await open(outsider.token, 0);
    hider.gw.send({ op: 4, d: { guild_id: g.id, channel_id: hidden.id, self_mute: false, self_deaf: false } });
    await hider.gw.next((f) => f.t === 'VOICE_SERVER_UPDATE');

    const guildCreate = async (token: string, intents: number) => {
      const { gw } = await open(token, intents);
      return (await gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === g.id)).d;
    };
    const seen = await guildCreate(member.token, GUILDS | GUILD_VOICE_STATES);
    expect(seen.voice_states).toHaveLength(1);
    expect(seen.voice_states[0]).toMatchObject({ user_id: owner.userId, channel_id: open2, session_id: talker.sessionId, self_mute: true, self_deaf: false, mute: false, deaf: false, self_video: false, suppress: false, request_to_speak_timestamp: null });
    expect(seen.voice_states[0].guild_id).toBeUndefined();
    expect(seen.voice_states[0].lobby_id).toBeUndefined();

    // The owner views both channels; without GUILD_VOICE_STATES the list is empty.
    const all = await guildCreate(owner.token, GUILDS | GUILD_VOICE_STATES);
    expect(all.voice_states.map((v: { user_id: string; channel_id: string }) => `${v.user_id}@${v.channel_id}`).sort()).toEqual([`${owner.userId}@${open2}`, `${outsider.userId}@${hidden.id}`].sort());
    expect((await guildCreate(member.token, GUILDS)).voice_states).toEqual([]);

    // Someone who left is no longer listed.
    talker.gw.send({ op: 4, d: { guild_id: g.id, channel_id: null, self_mute: false, self_deaf: false } });
    await expect.poll(() => t.server.voice.states.guildVoiceState(g.id, owner.userId), { timeout: 10_000 }).toBeUndefined();
    expect((await guildCreate(member.token, GUILDS | GUILD_VOICE_STATES)).voice_states).toEqual([]);
  });
});
