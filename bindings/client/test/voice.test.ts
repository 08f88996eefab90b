// Lobby calls end to end against the real server: two Node clients with audio callbacks,
// a tone through Opus, DAVE and the relay; the gates (PTT, mute, deafen), participant volume,
// a transport cut with automatic recovery, and what the relay can see (E2EE).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioModeType, CallError, CallStatus, ClientStatus } from '../src/index.ts';
import { connectGuest, sleep, waitFor, type Guest } from './helpers.ts';
import { rms, spectralPeak, tone } from './voiceAudio.ts';
import { callPair, startPeer, startVoiceServer, VoiceLab, type CallPeer } from './voiceHelpers.ts';

let env: Awaited<ReturnType<typeof startVoiceServer>>;
const guests: Guest[] = [];

beforeAll(async () => {
  env = await startVoiceServer();
});

afterAll(async () => {
  for (const g of guests) await g.client.destroy();
  await env?.close();
});

async function pair(transports?: Parameters<typeof callPair>[1], extra?: Parameters<typeof callPair>[2]) {
  const p = await callPair(env, transports, extra);
  guests.push(...p.guests);
  return p;
}

/** Pushes `seconds` of 440 Hz from `from` and waits until it has been sent. */
async function speak(from: CallPeer, seconds: number): Promise<void> {
  from.call.pushCapturedAudio(tone(440, seconds));
  await waitFor(() => from.call.getCapturedFramesQueued() === 0, 'the tone to be sent', seconds * 1000 + 3000);
  // Jitter buffer depth and the last packets in flight.
  await sleep(150);
}

describe('lobby calls', { timeout: 30_000 }, () => {
  it('a 440 Hz tone from one client arrives at the other as 440 Hz (udp)', async () => {
    const { alice, bob } = await pair(['udp']);
    expect(alice.call.voiceConnection?.transportKind).toBe('udp');
    expect(alice.call.getParticipants().sort()).toEqual([alice.guest.userId, bob.guest.userId].sort());
    alice.call.pushCapturedAudio(tone(440, 1));
    await waitFor(() => bob.recorder.framesOf(alice.guest.userId) >= 35, 'bob hears alice');
    const heard = bob.recorder.samplesOf(alice.guest.userId, 5);
    expect(Math.abs(spectralPeak(heard) - 440)).toBeLessThanOrEqual(10);
    expect(rms(heard)).toBeGreaterThan(0.1);
    await waitFor(() => bob.speaking.some(([u, s]) => u === alice.guest.userId && s), 'speaking indicator');
    await waitFor(() => bob.speaking.some(([u, s]) => u === alice.guest.userId && !s), 'speaking stops');
  });

  it('push-to-talk: nothing while released, audio while held, nothing after release', async () => {
    const { alice, bob } = await pair(['websocket']);
    const from = alice.guest.userId;
    alice.call.setAudioMode(AudioModeType.MODE_PTT);
    expect(alice.call.getAudioMode()).toBe(AudioModeType.MODE_PTT);
    await speak(alice, 0.5);
    expect(bob.recorder.loudFrames(from)).toBe(0);

    alice.call.setPTTActive(true);
    await speak(alice, 0.6);
    expect(bob.recorder.loudFrames(from)).toBeGreaterThan(15);

    alice.call.setPTTReleaseDelay(20);
    expect(alice.call.getPTTReleaseDelay()).toBe(20);
    alice.call.setPTTActive(false);
    await sleep(100);
    bob.recorder.clear();
    await speak(alice, 0.5);
    expect(bob.recorder.loudFrames(from)).toBe(0);
  });

  it('self-mute and deafen each stop the audio, and others see the voice state', async () => {
    const { alice, bob } = await pair(['udp']);
    const from = alice.guest.userId;
    const changed: string[] = [];
    bob.call.on('voiceStateChanged', (userId) => changed.push(userId));

    alice.call.setSelfMute(true);
    await waitFor(() => bob.call.getVoiceStateHandle(from)?.selfMute(), 'bob sees alice muted');
    expect(changed).toContain(from);
    await speak(alice, 0.5);
    expect(bob.recorder.loudFrames(from)).toBe(0);

    alice.call.setSelfMute(false);
    bob.call.setSelfDeaf(true);
    await waitFor(() => alice.call.getVoiceStateHandle(bob.guest.userId)?.selfDeaf(), 'alice sees bob deafened');
    await speak(alice, 0.5);
    expect(bob.recorder.loudFrames(from)).toBe(0);

    bob.call.setSelfDeaf(false);
    await waitFor(() => !alice.call.getVoiceStateHandle(bob.guest.userId)?.selfDeaf(), 'bob undeafened');
    await speak(alice, 0.6);
    expect(bob.recorder.loudFrames(from)).toBeGreaterThan(10);
  });

  it('participant volume scales what is heard', async () => {
    const { alice, bob } = await pair(['udp']);
    const from = alice.guest.userId;
    await speak(alice, 0.6);
    const full = rms(bob.recorder.samplesOf(from, 8).subarray(0, 960 * 15));
    bob.recorder.clear();
    bob.call.setParticipantVolume(from, 50);
    expect(bob.call.getParticipantVolume(from)).toBe(50);
    await speak(alice, 0.6);
    const half = rms(bob.recorder.samplesOf(from, 8).subarray(0, 960 * 15));
    expect(full).toBeGreaterThan(0.1);
    expect(half / full).toBeGreaterThan(0.4);
    expect(half / full).toBeLessThan(0.6);
  });

  it('a transport cut of 2 s: Reconnecting, then Connected, and audio flows again', async () => {
    const { alice, bob } = await pair(['websocket']);
    const from = alice.guest.userId;
    alice.lab.blocked = true;
    alice.lab.cutAll();
    await waitFor(() => alice.call.getStatus() === CallStatus.Reconnecting, 'alice reconnecting');
    await sleep(2000);
    expect(alice.call.getStatus()).toBe(CallStatus.Reconnecting);
    alice.lab.blocked = false;
    await waitFor(() => alice.call.getStatus() === CallStatus.Connected, 'alice connected again', 10_000);
    expect(alice.statuses.slice(-2)).toEqual([CallStatus.Reconnecting, CallStatus.Connected]);
    expect(alice.guest.logs.some((line) => line.includes('voice session resumed'))).toBe(true);
    expect(alice.statuses).not.toContain(CallStatus.Disconnected);
    bob.recorder.clear();
    alice.call.pushCapturedAudio(tone(440, 1));
    await waitFor(() => bob.recorder.loudFrames(from) >= 20, 'audio after the cut');
    expect(Math.abs(spectralPeak(bob.recorder.samplesOf(from, 5)) - 440)).toBeLessThanOrEqual(10);
  });

  it('a lasting cut ends the call in Disconnected with SignalingUnexpectedClose', async () => {
    const { alice } = await pair(['websocket'], { voice: { reconnectTimeoutMs: 1500 } });
    const ended: [number, number][] = [];
    alice.call.on('statusChanged', (status, error) => status === CallStatus.Disconnected && ended.push([status, error]));
    alice.lab.blocked = true;
    alice.lab.cutAll();
    await waitFor(() => ended.length > 0, 'the call gives up', 10_000);
    expect(ended[0]![1]).toBe(CallError.SignalingUnexpectedClose);
    expect(alice.statuses).toContain(CallStatus.Reconnecting);
    expect(alice.call.isValid()).toBe(false);
    expect(alice.guest.client.getCall(alice.call.lobbyId)).toBeUndefined();
  });

  it('what happens during a cut is replayed on resume: a newcomer is heard afterwards', async () => {
    const { alice, bob, lobbyId, secret } = await pair(['websocket']);
    alice.lab.blocked = true;
    alice.lab.cutAll();
    await waitFor(() => alice.call.getStatus() === CallStatus.Reconnecting, 'alice reconnecting');
    // Carol joins the call while Alice is away: op 11 and the MLS commit wait in Alice's buffer.
    const carolLab = new VoiceLab();
    const carolGuest = await connectGuest(env, undefined, { voice: { transports: ['websocket'], webSocket: carolLab.ctor as never } });
    guests.push(carolGuest);
    await carolGuest.client.createOrJoinLobby(secret);
    const carol = startPeer(carolGuest, lobbyId, carolLab);
    await waitFor(() => carol.call.getStatus() === CallStatus.Connected, 'carol connected');
    await sleep(500);
    alice.lab.blocked = false;
    await waitFor(() => alice.call.getStatus() === CallStatus.Connected, 'alice back', 10_000);
    // Back through Resume (op 7 -> op 9 and the replay), not a new session.
    expect(alice.guest.logs.some((line) => line.includes('voice session resumed'))).toBe(true);
    await waitFor(() => carol.call.isE2eeReady(), 'carol has keys', 10_000);
    expect(alice.call.getParticipants().sort()).toEqual([alice.guest.userId, bob.guest.userId, carolGuest.userId].sort());
    carol.call.pushCapturedAudio(tone(440, 1.5));
    await waitFor(() => alice.recorder.loudFrames(carolGuest.userId) >= 20, 'alice hears carol', 10_000);
    expect(Math.abs(spectralPeak(alice.recorder.samplesOf(carolGuest.userId, 5)) - 440)).toBeLessThanOrEqual(10);
  });

  it('a cut longer than the resume window: the call joins again by itself (new token) and audio flows', async () => {
    const shortEnv = await startVoiceServer({ voiceResumeWindowMs: 300 });
    try {
      const p = await callPair(shortEnv, ['websocket']);
      guests.push(...p.guests);
      const { alice, bob } = p;
      alice.lab.blocked = true;
      alice.lab.cutAll();
      await waitFor(() => alice.call.getStatus() === CallStatus.Reconnecting, 'alice reconnecting');
      await sleep(1000);
      alice.lab.blocked = false;
      await waitFor(() => alice.call.getStatus() === CallStatus.Connected, 'alice back', 15_000);
      expect(alice.statuses).not.toContain(CallStatus.Disconnected);
      expect(alice.guest.logs.some((line) => line.includes('joining again'))).toBe(true);
      await waitFor(() => alice.call.isE2eeReady() && bob.call.isE2eeReady(), 'keys again', 10_000);
      bob.recorder.clear();
      alice.call.pushCapturedAudio(tone(440, 1.5));
      await waitFor(() => bob.recorder.loudFrames(alice.guest.userId) >= 20, 'bob hears alice again', 10_000);
      expect(Math.abs(spectralPeak(bob.recorder.samplesOf(alice.guest.userId, 5)) - 440)).toBeLessThanOrEqual(10);
    } finally {
      for (const g of guests.splice(-2)) await g.client.destroy();
      await shortEnv.close();
    }
  });

  it('the relay forwards only DAVE frames: never the Opus payload in the clear', async () => {
    const { alice, bob, lobbyId } = await pair(['udp']);
    const relay = env.server.voice.relayOf(lobbyId);
    expect(relay).toBeDefined();
    const forwarded: Uint8Array[] = [];
    const encoded: Uint8Array[] = [];
    relay!.onForward = (_from, frame) => forwarded.push(frame.slice());
    alice.call.setMediaTaps({ encoded: (opus) => encoded.push(opus.slice()) });
    alice.call.pushCapturedAudio(tone(440, 0.6));
    await waitFor(() => bob.recorder.loudFrames(alice.guest.userId) >= 15, 'audio through the relay');
    relay!.onForward = null;
    // Every packet was accepted: SSRCs are announced (op 5) before the first packet.
    expect(relay!.stats.dropped).toBe(0);
    const media = forwarded.filter((f) => !(f.length === 3 && f[0] === 0xf8));
    expect(media.length).toBeGreaterThan(10);
    for (const frame of media) expect([frame.at(-2), frame.at(-1)]).toEqual([0xfa, 0xfa]);
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    const seen = media.map(hex).join('|');
    const opus = encoded.filter((o) => o.length > 16);
    expect(opus.length).toBeGreaterThan(10);
    for (const payload of opus) expect(seen.includes(hex(payload.subarray(4, 16)))).toBe(false);
  });

  it('members outside the call see it; endCall leaves it', async () => {
    const { alice, bob, lobbyId, secret } = await pair(['udp']);
    const carol = await connectGuest(env);
    guests.push(carol);
    const changes: [string, string, boolean][] = [];
    carol.client.on('voiceParticipantChanged', (l, u, added) => changes.push([l, u, added]));
    await carol.client.createOrJoinLobby(secret);
    // Carol is in the lobby, not in its call: the lobby object told her who is.
    const info = await waitFor(() => carol.client.getLobbyHandle(lobbyId)?.getCallInfoHandle(), 'carol sees the call');
    expect(info.getParticipants().sort()).toEqual([alice.guest.userId, bob.guest.userId].sort());
    expect(info.getVoiceStateHandle(bob.guest.userId)?.selfMute()).toBe(false);
    expect(carol.client.getCall(lobbyId)).toBeUndefined();

    const left: boolean[] = [];
    alice.call.on('participantChanged', (userId, added) => userId === bob.guest.userId && left.push(added));
    await bob.guest.client.endCall(lobbyId);
    expect(bob.call.getStatus()).toBe(CallStatus.Disconnected);
    expect(bob.call.isValid()).toBe(false);
    expect(bob.guest.client.getCall(lobbyId)).toBeUndefined();
    expect(bob.statuses.at(-2)).toBe(CallStatus.Disconnecting);
    await waitFor(() => left.includes(false), 'alice sees bob leave');
    expect(alice.call.getParticipants()).toEqual([alice.guest.userId]);
    await waitFor(() => changes.some(([l, u, added]) => l === lobbyId && u === bob.guest.userId && !added), 'carol sees bob leave');
  });

  it('with queueEvents, call events wait for runCallbacks (the last ones of an ended call too)', async () => {
    const solo = await connectGuest(env, undefined, { queueEvents: true });
    guests.push(solo);
    solo.client.runCallbacks();
    const lobbyId = await solo.client.createOrJoinLobby(`solo-${Date.now()}`);
    const call = solo.client.startCall(lobbyId)!;
    expect(solo.client.startCall(lobbyId)).toBeUndefined();
    const seen: number[] = [];
    call.on('statusChanged', (status) => seen.push(status));
    await waitFor(() => call.getStatus() === CallStatus.Connected, 'connected');
    expect(seen).toEqual([]);
    solo.client.runCallbacks();
    expect(seen).toEqual([CallStatus.Joining, CallStatus.Connecting, CallStatus.SignalingConnected, CallStatus.Connected]);
    await solo.client.endCall(lobbyId);
    expect(seen.at(-1)).toBe(CallStatus.Connected);
    solo.client.runCallbacks();
    expect(seen.slice(-2)).toEqual([CallStatus.Disconnecting, CallStatus.Disconnected]);
  });

  it('no answer to the join within joinTimeoutMs ends the call with JoinTimeout', async () => {
    const g = await connectGuest(env, undefined, { voice: { joinTimeoutMs: 400 } });
    guests.push(g);
    const lobbyId = await g.client.createOrJoinLobby(`timeout-${Date.now()}`);
    // The Gateway is down (reconnecting): op 4 cannot go out, so nothing answers.
    g.lab.blocked = true;
    g.lab.cut();
    await waitFor(() => g.client.getStatus() === ClientStatus.Reconnecting, 'gateway reconnecting');
    const call = g.client.startCall(lobbyId)!;
    expect(call.getStatus()).toBe(CallStatus.Joining);
    const ended = await new Promise<number>((resolve) =>
      call.on('statusChanged', (status, error) => status === CallStatus.Disconnected && resolve(error)),
    );
    expect(ended).toBe(CallError.JoinTimeout);
    g.lab.blocked = false;
  });

  it('a call started while the Gateway reconnects joins once it is back', async () => {
    const g = await connectGuest(env);
    guests.push(g);
    const lobbyId = await g.client.createOrJoinLobby(`late-${Date.now()}`);
    g.lab.blocked = true;
    g.lab.cut();
    await waitFor(() => g.client.getStatus() === ClientStatus.Reconnecting, 'gateway reconnecting');
    const call = g.client.startCall(lobbyId)!;
    await sleep(300);
    expect(call.getStatus()).toBe(CallStatus.Joining);
    g.lab.blocked = false;
    await waitFor(() => call.getStatus() === CallStatus.Connected, 'connected after the Gateway came back', 10_000);
  });

  it('a call in a lobby we are not in is refused with Forbidden', async () => {
    const { lobbyId } = await pair(['udp']);
    const dave = await connectGuest(env);
    guests.push(dave);
    // Not a member: the client has no such lobby, but the server decides.
    const call = dave.client.startCall(lobbyId);
    expect(call).toBeDefined();
    const ended = await new Promise<[number, number, number]>((resolve) =>
      call!.on('statusChanged', (status, error, detail) => status === CallStatus.Disconnected && resolve([status, error, detail])),
    );
    expect(ended[1]).toBe(CallError.Forbidden);
    expect(ended[2]).toBe(50001);
  });
});
