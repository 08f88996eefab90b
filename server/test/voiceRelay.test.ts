import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { RawVoiceClient } from './voiceHarness.ts';
import type { DaveDelivery } from '../src/voice/dave.ts';

/**
 * The voice gateway and media relay at the wire level. DAVE is not under test here: these calls
 * use a delivery service that sends nothing, so the relay's own rules (SSRC, replay, transport
 * AEAD, transports, resume, membership) are isolated. voiceE2ee.test.ts runs the real DAVE.
 */
const relayOnlyDave = async (): Promise<DaveDelivery> => ({
  externalSenderPayload: () => new Uint8Array([0]),
  memberConnected: () => [],
  keyPackage: () => [],
  commitWelcome: () => [],
  transitionReady: () => [],
  invalidCommitWelcome: () => [],
  memberDisconnected: () => [],
  tick: () => [],
});

let t: TestServer;
let lobbyId: string;
let a: { token: string; userId: string };
let b: { token: string; userId: string };
const clients: RawVoiceClient[] = [];

async function participant(guest: { token: string }, select: 'websocket' | 'udp' | 'webrtc' = 'websocket', flags?: { self_mute: boolean; self_deaf: boolean }): Promise<RawVoiceClient> {
  const c = await RawVoiceClient.request(t, guest.token, lobbyId, flags);
  clients.push(c);
  const ready = await c.connectVoice();
  if (select === 'websocket') await c.selectWebSocket();
  else if (select === 'webrtc') await c.selectWebRtc();
  else await c.selectUdp(ready);
  c.speaking();
  return c;
}

function leaveAll(): void {
  for (const c of clients.splice(0)) c.close();
}

beforeAll(async () => {
  t = await startTestServer({ daveFactory: relayOnlyDave, presenceGraceMs: 0, voiceResumeWindowMs: 5000 });
  a = await t.guest('A');
  b = await t.guest('B');
  lobbyId = (await t.req('PUT', '/lobbies', { token: a.token, body: { secret: 'voice-room' } })).body.id;
  await t.req('PUT', '/lobbies', { token: b.token, body: { secret: 'voice-room' } });
});
afterAll(async () => {
  leaveAll();
  await t.close();
  cleanupTempDirs();
});

describe('joining a lobby call', () => {
  it('gives members a voice token and tells every member who is in the call', async () => {
    const ca = await RawVoiceClient.request(t, a.token, lobbyId);
    clients.push(ca);
    const state = await ca.gateway.next((f) => f.t === 'VOICE_STATE_UPDATE');
    expect(state.d).toMatchObject({ lobby_id: lobbyId, channel_id: lobbyId, user_id: a.userId, self_mute: false, self_deaf: false });
    await ca.awaitServerUpdate();
    expect(ca.endpoint).toBe(`${t.server.url.replace('http://', '')}/voice`);
    const lobby = await t.req('GET', `/lobbies/${lobbyId}`, { token: b.token });
    expect(lobby.body.voice_states.map((s: any) => s.user_id)).toEqual([a.userId]);
    leaveAll();
  });

  it('refuses non-members: no voice token, a refusal voice state', async () => {
    const eve = await t.guest('Eve');
    const c = await RawVoiceClient.request(t, eve.token, lobbyId);
    clients.push(c);
    const refusal = await c.gateway.next((f) => f.t === 'VOICE_STATE_UPDATE');
    expect(refusal.d).toMatchObject({ channel_id: null, error_code: 50001, user_id: eve.userId });
    await new Promise((r) => setTimeout(r, 200));
    expect(c.gateway.dispatches('VOICE_SERVER_UPDATE')).toEqual([]);
    leaveAll();
  });

  it('closes an Identify without E2EE with 4017, and a bad or reused token with 4004', async () => {
    const c = await RawVoiceClient.request(t, a.token, lobbyId);
    clients.push(c);
    await c.awaitServerUpdate();
    const token = c.voiceToken;
    await c.openVoice({ max_dave_protocol_version: 0 });
    expect(await c.voiceClosed()).toBe(4017);

    c.voiceClose = null;
    c.voiceToken = 'not-the-token';
    await c.openVoice();
    expect(await c.voiceClosed()).toBe(4004);

    c.voiceClose = null;
    c.voiceToken = token;
    await c.connectVoice();
    c.voice.close(1000);
    await c.voiceClosed();
    c.voiceClose = null;
    await c.openVoice();
    expect(await c.voiceClosed()).toBe(4004);
    leaveAll();
  });

  it('closes an unknown protocol with 4012 and a deprecated mode with 4016', async () => {
    const c = await RawVoiceClient.request(t, a.token, lobbyId);
    clients.push(c);
    await c.connectVoice();
    c.sendVoice({ op: 1, d: { protocol: 'carrier-pigeon', data: { mode: 'aead_aes256_gcm_rtpsize' } } });
    expect(await c.voiceClosed()).toBe(4012);
    leaveAll();

    const d = await RawVoiceClient.request(t, a.token, lobbyId);
    clients.push(d);
    await d.connectVoice();
    d.sendVoice({ op: 1, d: { protocol: 'websocket', data: { mode: 'xsalsa20_poly1305' } } });
    expect(await d.voiceClosed()).toBe(4016);
    leaveAll();
  });
});

describe('media relay', () => {
  it('relays a packet to the other participant, re-sealed with their key', async () => {
    const ca = await participant(a);
    const cb = await participant(b);
    // A learns of B (op 11) and sees B's speaking announcement before any of B's media.
    await ca.nextVoice((f) => f.op === 11 && f.d.user_ids.includes(b.userId));
    await ca.nextVoice((f) => f.op === 5 && f.d.user_id === b.userId && f.d.ssrc === cb.ssrc);
    const frame = Buffer.from('opus-frame-from-a');
    const wire = ca.sendFrame(frame);
    const got = await cb.nextPacket((p) => p.frame.equals(frame));
    expect(got.ssrc).toBe(ca.ssrc);
    expect(got.nonce).toBeGreaterThanOrEqual(2 ** 31);
    expect(got.raw.equals(wire)).toBe(false);
    expect(ca.received.length).toBe(0);
    leaveAll();
  });

  it('drops replayed, spoofed, tampered, truncated and oversized packets and keeps serving', async () => {
    const ca = await participant(a);
    const cb = await participant(b);
    const relay = t.server.voice.relayOf(lobbyId)!;
    const first = Buffer.from('frame-1');
    const wire = ca.sendFrame(first);
    await cb.nextPacket((p) => p.frame.equals(first));
    const dropped = relay.stats.dropped;

    ca.sendRaw(wire); // replay
    ca.sendFrame(Buffer.from('spoof'), { ssrc: cb.ssrc }); // someone else's SSRC
    const tampered = ca.sendFrame(Buffer.from('tampered'), { send: false });
    tampered[14] = tampered[14]! ^ 0x01;
    ca.sendRaw(tampered);
    ca.sendRaw(ca.sendFrame(Buffer.from('truncated'), { send: false }).subarray(0, 20));
    ca.sendRaw(Buffer.concat([ca.sendFrame(Buffer.from('big'), { send: false }), Buffer.alloc(1600)]));
    ca.sendFrame(Buffer.from('upper-half-nonce'), { nonce: 2 ** 31 + 5 });

    const after = Buffer.from('frame-after');
    ca.sendFrame(after);
    await cb.nextPacket((p) => p.frame.equals(after));
    expect(relay.stats.dropped - dropped).toBe(6);
    expect(cb.received.filter((p) => p.frame.equals(first)).length).toBe(1);
    expect(cb.received.some((p) => ['spoof', 'tampered', 'truncated', 'big', 'upper-half-nonce'].includes(p.frame.toString()))).toBe(false);
    leaveAll();
  });

  it('accepts reordering within the replay window but not packets older than it', async () => {
    const ca = await participant(a);
    const cb = await participant(b);
    const late = ca.sendFrame(Buffer.from('late'), { send: false, nonce: 10 });
    ca.sendFrame(Buffer.from('newer'), { nonce: 12 });
    ca.sendRaw(late);
    await cb.nextPacket((p) => p.frame.toString() === 'late');
    const ancient = ca.sendFrame(Buffer.from('ancient'), { send: false, nonce: 20 });
    ca.sendFrame(Buffer.from('jump'), { nonce: 200 });
    await cb.nextPacket((p) => p.frame.toString() === 'jump');
    ca.sendRaw(ancient);
    ca.sendFrame(Buffer.from('marker'), { nonce: 201 });
    await cb.nextPacket((p) => p.frame.toString() === 'marker');
    expect(cb.received.some((p) => p.frame.toString() === 'ancient')).toBe(false);
    leaveAll();
  });

  it('drops media of an SSRC that was never announced with op 5', async () => {
    const ca = await RawVoiceClient.request(t, a.token, lobbyId);
    clients.push(ca);
    await ca.connectVoice();
    await ca.selectWebSocket();
    const cb = await participant(b);
    ca.sendFrame(Buffer.from('unannounced'));
    ca.speaking();
    await new Promise((r) => setTimeout(r, 50));
    ca.sendFrame(Buffer.from('announced'));
    await cb.nextPacket((p) => p.frame.toString() === 'announced');
    expect(cb.received.some((p) => p.frame.toString() === 'unannounced')).toBe(false);
    leaveAll();
  });

  it('carries media over UDP after IP discovery, and ignores the same SSRC from another address', async () => {
    const ca = await participant(a, 'udp');
    const cb = await participant(b, 'websocket');
    const frame = Buffer.from('over-udp');
    ca.sendFrame(frame);
    await cb.nextPacket((p) => p.frame.equals(frame));
    // A different socket (another port) sending with A's SSRC and key is not A.
    const dgram = await import('node:dgram');
    const impostor = dgram.createSocket('udp4');
    const spoof = ca.sendFrame(Buffer.from('impostor'), { send: false });
    const ready = t.server.voice.udpAddress;
    await new Promise<void>((r) => impostor.send(spoof, ready.port, ready.address, () => r()));
    const marker = Buffer.from('after-impostor');
    ca.sendFrame(marker);
    await cb.nextPacket((p) => p.frame.equals(marker));
    expect(cb.received.some((p) => p.frame.toString() === 'impostor')).toBe(false);
    impostor.close();
    // And B's packets reach A over UDP.
    const back = Buffer.from('to-udp');
    cb.sendFrame(back);
    await ca.nextPacket((p) => p.frame.equals(back));
    leaveAll();
  });

  it('carries media over a WebRTC data channel (unordered, no retransmits) both ways', async () => {
    const ca = await participant(a, 'webrtc');
    const cb = await participant(b, 'udp', undefined);
    expect((await ca.nextVoice((f) => f.op === 4)).d.sdp).toMatch(/^v=0/);
    const frame = Buffer.from('over-webrtc');
    ca.sendFrame(frame);
    await cb.nextPacket((p) => p.frame.equals(frame));
    const back = Buffer.from('to-webrtc');
    cb.sendFrame(back);
    await ca.nextPacket((p) => p.frame.equals(back));
    leaveAll();
  });

  it('closes a Select Protocol with an invalid WebRTC offer with 4020', async () => {
    const c = await RawVoiceClient.request(t, a.token, lobbyId);
    clients.push(c);
    await c.connectVoice();
    c.sendVoice({ op: 1, d: { protocol: 'webrtc', data: { mode: 'aead_aes256_gcm_rtpsize', sdp: 'not sdp' } } });
    expect(await c.voiceClosed()).toBe(4020);
    leaveAll();
  });

  it('sends nothing to a participant who is self-deaf', async () => {
    const ca = await participant(a);
    const cb = await participant(b, 'websocket', { self_mute: false, self_deaf: true });
    ca.sendFrame(Buffer.from('unheard'));
    cb.sendFrame(Buffer.from('heard'));
    await ca.nextPacket((p) => p.frame.toString() === 'heard');
    await new Promise((r) => setTimeout(r, 100));
    expect(cb.received.length).toBe(0);
    // Undeafen through op 4 on the main Gateway: audio flows again without rejoining.
    cb.gateway.send({ op: 4, d: { guild_id: null, channel_id: lobbyId, self_mute: false, self_deaf: false } });
    await cb.gateway.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === b.userId && f.d.self_deaf === false);
    ca.sendFrame(Buffer.from('heard-now'));
    await cb.nextPacket((p) => p.frame.toString() === 'heard-now');
    leaveAll();
  });

  it('closes a sender that floods garbage with 4020', async () => {
    const ca = await participant(a);
    const cb = await participant(b);
    for (let i = 0; i < 60; i++) ca.sendRaw(Buffer.alloc(40, i));
    expect(await ca.voiceClosed()).toBe(4020);
    void cb;
    leaveAll();
  });
});

describe('voice sessions', () => {
  /**
   * A's voice socket drops, B joins meanwhile, and A comes back on a new socket of `version` that
   * sends Resume: the new socket and the text frames it received.
   */
  async function resumedAfterB(version: number) {
    const ca = await participant(a);
    ca.voice.terminate();
    await ca.voiceClosed();
    const cb = await participant(b);
    const ws = new (await import('ws')).default(`ws://${ca.endpoint}?v=${version}`);
    const frames: any[] = [];
    ws.on('message', (d: Buffer, isBinary) => {
      if (!isBinary) frames.push(JSON.parse(d.toString()));
    });
    await new Promise((r) => ws.once('open', r));
    await expect.poll(() => frames.some((f) => f.op === 8 && f.d.v === version)).toBe(true);
    ws.send(JSON.stringify({ op: 7, d: { server_id: lobbyId, session_id: ca.sessionId, token: ca.voiceToken, seq_ack: -1 } }));
    return { ca, cb, ws, frames };
  }

  it('resumes after the voice socket drops, replaying missed messages', async () => {
    const { ca, cb, ws, frames } = await resumedAfterB(8);
    await expect.poll(() => frames.some((f) => f.op === 9)).toBe(true);
    await expect.poll(() => frames.some((f) => f.op === 11 && f.d.user_ids.includes(b.userId))).toBe(true);
    await expect.poll(() => frames.some((f) => f.op === 5 && f.d.user_id === b.userId)).toBe(true);
    // Media continues on the same media session.
    const frame = Buffer.from('after-resume');
    cb.sendFrame(frame);
    await ca.nextPacket((p) => p.frame.equals(frame));
    ws.close(1000);
    void cb;
    leaveAll();
  });

  it('on versions before 8 a resume takes up from now: nothing missed is replayed', async () => {
    const { cb, ws, frames } = await resumedAfterB(7);
    await expect.poll(() => frames.some((f) => f.op === 9)).toBe(true);
    // The heartbeat's ACK comes after anything the resume would have replayed, on the same socket.
    ws.send(JSON.stringify({ op: 3, d: { t: 7, seq_ack: -1 } }));
    await expect.poll(() => frames.some((f) => f.op === 6)).toBe(true);
    expect(frames.filter((f) => (f.op === 11 && f.d.user_ids.includes(b.userId)) || (f.op === 5 && f.d.user_id === b.userId))).toEqual([]);
    ws.close(1000);
    void cb;
    leaveAll();
  });

  it('refuses a resume of an unknown session with 4006', async () => {
    const c = await RawVoiceClient.request(t, a.token, lobbyId);
    clients.push(c);
    await c.awaitServerUpdate();
    const ws = new (await import('ws')).default(`ws://${c.endpoint}?v=8`);
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ op: 7, d: { server_id: lobbyId, session_id: 'nope', token: 'nope', seq_ack: 0 } }));
    expect(await closed).toBe(4006);
    leaveAll();
  });

  it('disconnects a participant who leaves the lobby (4014) and tells the others (op 13)', async () => {
    const ca = await participant(a);
    const cb = await participant(b);
    await t.req('DELETE', `/lobbies/${lobbyId}/members/@me`, { token: b.token });
    expect(await cb.voiceClosed()).toBe(4014);
    await ca.nextVoice((f) => f.op === 13 && f.d.user_id === b.userId);
    await t.req('PUT', '/lobbies', { token: b.token, body: { secret: 'voice-room' } });
    leaveAll();
  });

  it('leaves one call by lobby_id, and gives a new token when the voice seat is gone', async () => {
    const other = (await t.req('PUT', '/lobbies', { token: a.token, body: { secret: 'voice-room-2' } })).body.id as string;
    const c = await participant(a);
    c.gateway.send({ op: 4, d: { guild_id: null, channel_id: other, self_mute: false, self_deaf: false } });
    await c.gateway.next((f) => f.t === 'VOICE_SERVER_UPDATE' && f.d.lobby_id === other);
    // Leave only the second call: the first keeps its voice seat.
    c.gateway.send({ op: 4, d: { guild_id: null, channel_id: null, lobby_id: other, self_mute: false, self_deaf: false } });
    await c.gateway.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.lobby_id === other && f.d.channel_id === null);
    let lobby = await t.req('GET', `/lobbies/${lobbyId}`, { token: a.token });
    expect(lobby.body.voice_states.map((s: any) => s.user_id)).toEqual([a.userId]);

    // Same session, same call, seat still held: op 4 only updates flags, no new token.
    const before = c.gateway.dispatches('VOICE_SERVER_UPDATE').length;
    c.gateway.send({ op: 4, d: { guild_id: null, channel_id: lobbyId, self_mute: true, self_deaf: false } });
    await c.gateway.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.self_mute === true);
    expect(c.gateway.dispatches('VOICE_SERVER_UPDATE').length).toBe(before);

    // The voice seat ends (clean close), the main-Gateway state stays: op 4 again gets a new token.
    c.voice.close(1000);
    await c.voiceClosed();
    await expect.poll(() => t.server.voice.existingCall(lobbyId)?.sessions.has(a.userId) ?? false).toBe(false);
    c.gateway.send({ op: 4, d: { guild_id: null, channel_id: lobbyId, self_mute: false, self_deaf: false } });
    await expect.poll(() => c.gateway.dispatches('VOICE_SERVER_UPDATE').length).toBe(before + 1);
    const fresh = c.gateway.dispatches('VOICE_SERVER_UPDATE').at(-1);
    expect(fresh.d.lobby_id).toBe(lobbyId);
    expect(fresh.d.token).not.toBe(c.voiceToken);
    lobby = await t.req('GET', `/lobbies/${lobbyId}`, { token: a.token });
    expect(lobby.body.voice_states.map((s: any) => s.user_id)).toEqual([a.userId]);
    leaveAll();
  });

  it('answers heartbeats with the nonce and rejects payloads before Identify with 4003', async () => {
    const c = await RawVoiceClient.request(t, a.token, lobbyId);
    clients.push(c);
    await c.awaitServerUpdate();
    const ws = new (await import('ws')).default(`ws://${c.endpoint}?v=8`);
    const frames: any[] = [];
    ws.on('message', (d: Buffer) => frames.push(JSON.parse(d.toString())));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ op: 3, d: { t: 12345, seq_ack: -1 } }));
    await expect.poll(() => frames.find((f) => f.op === 6)?.d.t).toBe(12345);
    expect(frames.find((f) => f.op === 8).d.heartbeat_interval).toBeGreaterThan(0);
    ws.send(JSON.stringify({ op: 5, d: { speaking: 1, delay: 0, ssrc: 1 } }));
    expect(await closed).toBe(4003);
    leaveAll();
  });
});
