// Voice pieces without a server: IP discovery packets, voice-state bookkeeping, the capture gate
// (push-to-talk release delay, mute, VAD threshold), capture framing, and the enum strings.
import { describe, expect, it } from 'vitest';
import { VoiceActivityDetector, VoiceCore } from '@social-layer/core-wasm';
import type { VoiceState } from '@social-layer/protocol';
import { AudioModeType, CallError, CallStatus, Client, ClientResultError, ErrorType, callErrorToString, callStatusToString } from '../src/index.ts';
import { CaptureGate } from '../src/voice/CaptureGate.ts';
import { CaptureQueue } from '../src/voice/CaptureQueue.ts';
import { discoveryRequest, parseDiscoveryResponse } from '../src/voice/transports/ipDiscovery.ts';
import { VoiceStates } from '../src/voice/VoiceStates.ts';
import { tone } from './voiceAudio.ts';

function state(userId: string, channel: string | null, extra: Partial<VoiceState> = {}): VoiceState {
  return {
    lobby_id: '10',
    channel_id: channel,
    user_id: userId,
    session_id: 's',
    self_mute: false,
    self_deaf: false,
    mute: false,
    deaf: false,
    self_video: false,
    suppress: false,
    ...extra,
  };
}

describe('IP discovery', () => {
  it('builds the 74-byte request and reads the response', () => {
    const request = discoveryRequest(0xdeadbeef);
    expect(request.length).toBe(74);
    expect([...request.subarray(0, 8)]).toEqual([0, 1, 0, 70, 0xde, 0xad, 0xbe, 0xef]);
    const response = new Uint8Array(74);
    const view = new DataView(response.buffer);
    view.setUint16(0, 2);
    view.setUint16(2, 70);
    response.set(new TextEncoder().encode('203.0.113.7'), 8);
    view.setUint16(72, 50004);
    expect(parseDiscoveryResponse(response)).toEqual({ address: '203.0.113.7', port: 50004 });
    view.setUint16(0, 1);
    expect(parseDiscoveryResponse(response)).toBeUndefined();
    view.setUint16(0, 2);
    response.fill(0, 8, 72);
    response.set(new TextEncoder().encode('::1'), 8);
    expect(parseDiscoveryResponse(response)).toBeUndefined();
    expect(parseDiscoveryResponse(response.subarray(0, 73))).toBeUndefined();
  });
});

describe('voice states', () => {
  it('reports joins, flag changes and leaves once each', () => {
    const states = new VoiceStates();
    expect(states.apply(state('1', '10'))).toEqual({ kind: 'added', lobbyId: '10', userId: '1' });
    expect(states.apply(state('1', '10'))).toBeUndefined();
    expect(states.apply(state('1', '10', { self_mute: true }))).toEqual({ kind: 'updated', lobbyId: '10', userId: '1' });
    expect(states.get('10', '1')?.selfMute).toBe(true);
    expect(states.apply(state('2', null, { error_code: 50001 }))).toBeUndefined();
    expect(states.apply(state('1', null))).toEqual({ kind: 'removed', lobbyId: '10', userId: '1' });
    expect(states.apply(state('1', null))).toBeUndefined();
    expect(states.has('10')).toBe(false);
  });

  it('takes a lobby object as the whole truth for its call', () => {
    const states = new VoiceStates();
    states.apply(state('1', '10'));
    states.apply(state('2', '10'));
    const changes = states.replaceLobby('10', [state('2', '10', { self_deaf: true }), state('3', '10')]);
    expect(changes).toEqual([
      { kind: 'updated', lobbyId: '10', userId: '2' },
      { kind: 'added', lobbyId: '10', userId: '3' },
      { kind: 'removed', lobbyId: '10', userId: '1' },
    ]);
    expect(states.participants('10').sort()).toEqual(['2', '3']);
  });
});

describe('capture gate', () => {
  it('push-to-talk opens while held and for the release delay; mute wins', async () => {
    const core = await VoiceCore.create({ poolBytes: 1 << 20 });
    const gate = new CaptureGate(new VoiceActivityDetector(core));
    const frame = tone(440, 0.02);
    gate.mode = AudioModeType.MODE_PTT;
    expect(gate.decide(frame, 0)).toBe(false);
    gate.setPTTActive(true, 100);
    expect(gate.decide(frame, 110)).toBe(true);
    expect(gate.decide(undefined, 110)).toBe(false);
    gate.pttReleaseDelayMs = 50;
    gate.setPTTActive(false, 200);
    expect(gate.decide(frame, 240)).toBe(true);
    expect(gate.decide(frame, 251)).toBe(false);
    gate.setPTTActive(true, 300);
    gate.selfMute = true;
    expect(gate.decide(frame, 310)).toBe(false);
  });

  it('voice activity follows the threshold (clamped to -100..0)', async () => {
    const core = await VoiceCore.create({ poolBytes: 1 << 20 });
    const gate = new CaptureGate(new VoiceActivityDetector(core));
    const quiet = tone(440, 0.02, 0.003); // about -53 dBFS
    expect(gate.getVADThreshold()).toEqual({ vadThreshold: -60, automatic: false });
    expect(gate.decide(quiet, 0)).toBe(true);
    gate.setVADThreshold(false, -40);
    for (let i = 0; i < 12; i++) gate.decide(quiet, i * 20); // past the hangover
    expect(gate.decide(quiet, 300)).toBe(false);
    expect(gate.decide(tone(440, 0.02, 0.5), 320)).toBe(true);
    gate.setVADThreshold(true, 20);
    expect(gate.getVADThreshold()).toEqual({ vadThreshold: 0, automatic: true });
  });
});

describe('capture queue', () => {
  it('cuts any input into 20 ms frames, floats included, and drops the oldest past its bound', () => {
    const queue = new CaptureQueue(3);
    queue.push(new Int16Array(500).fill(1));
    expect(queue.length).toBe(0);
    queue.push(new Float32Array(500).fill(0.5));
    expect(queue.length).toBe(1);
    const frame = queue.take()!;
    expect(frame.length).toBe(960);
    expect(frame[0]).toBe(1);
    expect(frame[959]).toBe(Math.round(0.5 * 32767));
    queue.push(new Int16Array(960 * 5).map((_, i) => Math.floor(i / 960)));
    expect(queue.length).toBe(3);
    // 40 samples of the float push were left over, so frames start 40 samples in.
    expect(queue.take()![0]).toBe(1);
  });
});

describe('call API without a connection', () => {
  it('enums carry the native values and names', () => {
    expect(CallStatus).toMatchObject({ Disconnected: 0, Joining: 1, Connecting: 2, SignalingConnected: 3, Connected: 4, Reconnecting: 5, Disconnecting: 6 });
    expect(CallError).toMatchObject({ None: 0, SignalingConnectionFailed: 1, SignalingUnexpectedClose: 2, VoiceConnectionFailed: 3, JoinTimeout: 4, Forbidden: 5 });
    expect(AudioModeType).toEqual({ MODE_UNINIT: 0, MODE_VAD: 1, MODE_PTT: 2 });
    expect(callStatusToString(CallStatus.SignalingConnected)).toBe('SignalingConnected');
    expect(callErrorToString(CallError.JoinTimeout)).toBe('JoinTimeout');
  });

  it('startCall needs a session; volumes are clamped; device lists are empty in Node', async () => {
    const client = new Client({ apiBase: 'http://127.0.0.1:1' });
    let error: unknown;
    try {
      client.startCall('123');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ClientResultError);
    expect((error as ClientResultError).type).toBe(ErrorType.ClientNotReady);
    expect(() => client.startCall('not-a-snowflake')).toThrow(ClientResultError);
    client.setInputVolume(150);
    client.setOutputVolume(250);
    expect(client.getInputVolume()).toBe(100);
    expect(client.getOutputVolume()).toBe(200);
    expect(await client.getInputDevices()).toEqual([]);
    expect(await client.getOutputDevices()).toEqual([]);
    expect(Client.getDefaultAudioDeviceId()).toBe('default');
    expect(client.getCalls()).toEqual([]);
    await client.destroy();
  });
});
