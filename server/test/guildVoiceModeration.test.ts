import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { RawGateway, cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor, type GuildServices } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * Guild voice moderation (issue 10) over the public routes: Modify Guild Member `mute`
 * (MUTE_MEMBERS), `deaf` (DEAFEN_MEMBERS) and `channel_id` (MOVE_MEMBERS; null disconnects) act on
 * a member in voice (else 400/40032), are announced with VOICE_STATE_UPDATE and reach the relay;
 * a move hands the member's session a new VOICE_SERVER_UPDATE and closes the old voice socket
 * (4014). `user_limit` keeps a full channel closed unless the joiner holds MOVE_MEMBERS. Refusals
 * write nothing.
 */
const GUILDS = 1 << 0;
const GUILD_VOICE_STATES = 1 << 7;

let t: TestServer;
let s: GuildServices;
type U = { token: string; userId: string };
let owner: U;
let mod: U;
let plain: U;
let idle: U;
let guildId: string;
let voiceId: string;
let textId: string;
const sockets: RawGateway[] = [];
const voices: WebSocket[] = [];

async function open(token: string, intents = GUILDS | GUILD_VOICE_STATES): Promise<{ gw: RawGateway; sessionId: string }> {
  const gw = await RawGateway.open(t.server);
  sockets.push(gw);
  gw.send({ op: 2, d: { token, intents, properties: { os: 'linux', browser: 'test', device: 'test' } } });
  const ready = (await gw.next((f) => f.t === 'READY')).d;
  return { gw, sessionId: ready.session_id };
}

/** Op 4 into `channelId`; resolves with the VOICE_SERVER_UPDATE. */
async function join(gw: RawGateway, channelId: string): Promise<any> {
  gw.frames.length = 0;
  gw.send({ op: 4, d: { guild_id: guildId, channel_id: channelId, self_mute: false, self_deaf: false } });
  return (await gw.next((f) => f.t === 'VOICE_SERVER_UPDATE')).d;
}

/** A voice gateway socket identified with `server` (VOICE_SERVER_UPDATE); resolves once Ready (op 2) came. */
async function voiceConnect(server: any, u: U, sessionId: string): Promise<{ ws: WebSocket; closed: Promise<number> }> {
  const ws = new WebSocket(`ws://${server.endpoint}?v=8`);
  voices.push(ws);
  const frames: any[] = [];
  ws.on('message', (d, binary) => !binary && frames.push(JSON.parse(d.toString())));
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  await new Promise((r) => ws.once('open', r));
  ws.send(JSON.stringify({ op: 0, d: { server_id: guildId, user_id: u.userId, session_id: sessionId, token: server.token, max_dave_protocol_version: 1 } }));
  await expect.poll(() => frames.find((f) => f.op === 2)?.d.ssrc, { timeout: 10_000 }).toBeGreaterThan(0);
  return { ws, closed };
}

const patchMember = (by: U, target: U, body: unknown) => t.req('PATCH', `/guilds/${guildId}/members/${target.userId}`, { token: by.token, body });
const voiceState = async (u: U) => (await t.req('GET', `/guilds/${guildId}/voice-states/${u.userId}`, { token: owner.token })).body;
const memberRow = async (u: U) => (await t.server.store.guildMembers.get(guildId, u.userId))!.member;

beforeAll(async () => {
  t = await startTestServer({ rateLimits: false });
  s = guildServicesFor(t.server.store, undefined as never);
  const issue = async (name: string) => {
    const g = await t.guest(name);
    return { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
  };
  owner = await issue('Owner');
  mod = await issue('Moderator');
  plain = await issue('Plain');
  idle = await issue('Idle');
  guildId = (await s.guilds.createGuild(owner.userId, { name: 'Voice Moderation' })).id;
  const channels = await t.server.store.guilds.channels(guildId);
  voiceId = channels.find((c) => c.type === 2)!.id;
  textId = channels.find((c) => c.type === 0)!.id;
  for (const u of [mod, plain, idle]) await s.members.join(guildId, u.userId);
});

afterAll(async () => {
  for (const v of voices) v.terminate();
  for (const g of sockets) g.terminate();
  await t.close();
  cleanupTempDirs();
});

describe('server mute and deafen', () => {
  it('need MUTE_MEMBERS / DEAFEN_MEMBERS and a member in voice; take effect at once, are announced and held on rejoin', async () => {
    const watcher = await open(owner.token);
    const p = await open(plain.token);
    await join(p.gw, voiceId);

    // Refusals, nothing written: no permission (50013), not in voice (40032), bad input (50035).
    const noPerm = await patchMember(mod, plain, { mute: true });
    expect([noPerm.status, noPerm.body.code]).toEqual([403, 50013]);
    const notInVoice = await patchMember(owner, idle, { mute: true });
    expect([notInVoice.status, notInVoice.body.code]).toEqual([400, 40032]);
    expect((await patchMember(owner, idle, { deaf: true })).body.code).toBe(40032);
    expect((await patchMember(owner, plain, { mute: 'yes' })).body.code).toBe(50035);
    expect((await memberRow(idle)).mute).toBe(0);
    expect((await memberRow(plain)).mute).toBe(0);

    // A moderator role with MUTE_MEMBERS and DEAFEN_MEMBERS.
    const role = await s.guilds.createRole(owner.userId, guildId, { name: 'Mods', permissions: (Permission.MuteMembers | Permission.DeafenMembers | Permission.MoveMembers).toString() });
    await s.members.addRole(owner.userId, guildId, mod.userId, role.id);

    watcher.gw.frames.length = 0;
    const muted = await patchMember(mod, plain, { mute: true });
    expect(muted.status).toBe(200);
    expect(muted.body).toMatchObject({ mute: true, deaf: false, user: { id: plain.userId } });
    expect((await watcher.gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === plain.userId && f.d.mute === true)).d.channel_id).toBe(voiceId);
    expect((await p.gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.mute === true)).d.user_id).toBe(plain.userId);
    expect(await voiceState(plain)).toMatchObject({ mute: true, deaf: false, self_mute: false });
    // The relay drops what a server-muted member sends.
    expect(t.server.voice.states.canSpeak(voiceId, plain.userId)).toBe(false);

    await patchMember(mod, plain, { deaf: true });
    expect(await voiceState(plain)).toMatchObject({ mute: true, deaf: true });
    expect(t.server.voice.states.isDeaf(voiceId, plain.userId)).toBe(true);

    // Held on the member: leave and join again, still muted and deafened.
    p.gw.send({ op: 4, d: { guild_id: guildId, channel_id: null, self_mute: false, self_deaf: false } });
    await expect.poll(async () => (await voiceState(plain)).code).toBe(10065);
    await join(p.gw, voiceId);
    expect(await voiceState(plain)).toMatchObject({ mute: true, deaf: true });
    expect((await t.req('GET', `/guilds/${guildId}/members/${plain.userId}`, { token: owner.token })).body).toMatchObject({ mute: true, deaf: true });

    await patchMember(mod, plain, { mute: false, deaf: false });
    expect(await voiceState(plain)).toMatchObject({ mute: false, deaf: false });
    expect(t.server.voice.states.canSpeak(voiceId, plain.userId)).toBe(true);
    expect(t.server.voice.states.isDeaf(voiceId, plain.userId)).toBe(false);
    p.gw.send({ op: 4, d: { guild_id: guildId, channel_id: null, self_mute: false, self_deaf: false } });
    await expect.poll(async () => (await voiceState(plain)).code).toBe(10065);
  });
});

describe('moving members', () => {
  it('moves with MOVE_MEMBERS: new channel announced, a VOICE_SERVER_UPDATE for the session, the old voice socket closed; null disconnects', async () => {
    const second = await s.guilds.createChannel(owner.userId, guildId, { name: 'Second', type: 2 });
    const hidden = await s.guilds.createChannel(owner.userId, guildId, { name: 'Staff', type: 2, permission_overwrites: [{ id: guildId, type: 0, allow: '0', deny: Permission.ViewChannel.toString() }] });
    const p = await open(plain.token);
    const server = await join(p.gw, voiceId);
    const first = await voiceConnect(server, plain, p.sessionId);

    // Refusals first: nothing moves.
    const refusals: [U, U, unknown, number, number][] = [
      [plain, plain, { channel_id: second.id }, 403, 50013], // no MOVE_MEMBERS
      [owner, idle, { channel_id: second.id }, 400, 40032], // not in voice
      [owner, plain, { channel_id: textId }, 400, 50035], // not a voice channel
      [owner, plain, { channel_id: '123456789012345678' }, 400, 50035], // no such channel
      [owner, plain, { channel_id: 'abc' }, 400, 50035],
      [owner, plain, { channel_id: hidden.id }, 403, 50013], // the member cannot view it
    ];
    for (const [by, target, body, status, code] of refusals) {
      const r = await patchMember(by, target, body);
      expect([r.status, r.body.code], JSON.stringify(body)).toEqual([status, code]);
    }
    expect((await voiceState(plain)).channel_id).toBe(voiceId);

    p.gw.frames.length = 0;
    const moved = await patchMember(mod, plain, { channel_id: second.id });
    expect(moved.status).toBe(200);
    expect((await p.gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.channel_id === second.id)).d).toMatchObject({ user_id: plain.userId, session_id: p.sessionId, guild_id: guildId });
    const again = (await p.gw.next((f) => f.t === 'VOICE_SERVER_UPDATE')).d;
    expect(again).toMatchObject({ guild_id: guildId, endpoint: server.endpoint });
    expect(again.token).not.toBe(server.token);
    expect(await first.closed).toBe(4014);
    expect((await voiceState(plain)).channel_id).toBe(second.id);
    // The new token opens the voice connection in the new channel.
    await voiceConnect(again, plain, p.sessionId);

    // Disconnect: channel_id null.
    p.gw.frames.length = 0;
    expect((await patchMember(mod, plain, { channel_id: null })).status).toBe(200);
    expect((await p.gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === plain.userId)).d.channel_id).toBeNull();
    expect((await voiceState(plain)).code).toBe(10065);
  });
});

describe('user_limit', () => {
  it('keeps a full voice channel closed (50013) unless the joiner holds MOVE_MEMBERS; moves ignore it', async () => {
    const bad = await t.req('POST', `/guilds/${guildId}/channels`, { token: owner.token, body: { name: 'Too many', type: 2, user_limit: 100 } });
    expect([bad.status, bad.body.code]).toEqual([400, 50035]);
    const small = await t.req('POST', `/guilds/${guildId}/channels`, { token: owner.token, body: { name: 'Duo', type: 2, user_limit: 1 } });
    expect(small.body.user_limit).toBe(1);
    const i = await open(idle.token);
    await join(i.gw, small.body.id);

    const p = await open(plain.token);
    p.gw.send({ op: 4, d: { guild_id: guildId, channel_id: small.body.id, self_mute: false, self_deaf: false } });
    expect((await p.gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.error_code !== undefined)).d).toMatchObject({ channel_id: null, error_code: 50013 });
    expect(p.gw.frames.some((f) => f.t === 'VOICE_SERVER_UPDATE')).toBe(false);
    expect((await voiceState(plain)).code).toBe(10065);

    // MOVE_MEMBERS (the moderator's role) gets in anyway.
    const m = await open(mod.token);
    await join(m.gw, small.body.id);
    expect((await voiceState(mod)).channel_id).toBe(small.body.id);

    // A move into the full channel is not stopped by the limit.
    await join(p.gw, voiceId);
    expect((await patchMember(owner, plain, { channel_id: small.body.id })).status).toBe(200);
    expect((await voiceState(plain)).channel_id).toBe(small.body.id);

    // Raising the limit opens it (PATCH /channels keeps 0-99).
    expect((await t.req('PATCH', `/channels/${small.body.id}`, { token: owner.token, body: { user_limit: 0 } })).body.user_limit).toBe(0);
  });
});
