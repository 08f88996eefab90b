// Voice test setup: two guests in one lobby, each in its call with audio callbacks, against the
// real server (voice gateway, relay and DAVE delivery service in-process).
import { CallStatus, type Call, type ClientOptions } from '../src/index.ts';
import type { VoiceTransport } from '@social-layer/protocol';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer, type ServerOptions } from '@social-layer/server';
import { connectGuest, newSecret, waitFor, type Guest, type TestEnv } from './helpers.ts';
import WebSocket from 'ws';
import { Recorder } from './voiceAudio.ts';

/** startTestServer with the running server at hand (the relay's onForward hook). */
export async function startVoiceServer(options: Partial<ServerOptions> = {}): Promise<TestEnv & { server: RunningServer }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sl-voice-test-'));
  const server = await startServer({ dataDir, logLevel: 'error', serveSamples: false, ...options, port: 0 });
  const app = await server.createApplication({ name: 'Voice tests' });
  return {
    url: server.url,
    appId: app.id,
    server,
    async restart() {
      throw new Error('not supported here');
    },
    async close() {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Real `ws` sockets for the voice gateway and the websocket transport, which a test can cut
 * (no closing handshake, as a network failure) and keep from reconnecting while `blocked`.
 */
export class VoiceLab {
  readonly sockets: WebSocket[] = [];
  blocked = false;
  readonly ctor: new (url: string) => WebSocket;

  constructor() {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const lab = this;
    this.ctor = class extends WebSocket {
      constructor(url: string) {
        super(lab.blocked ? 'ws://127.0.0.1:1/voice' : url);
        lab.sockets.push(this);
      }
    };
  }

  /** Cuts every open voice socket (gateway and media). */
  cutAll(): void {
    for (const socket of this.sockets) if (socket.readyState === WebSocket.OPEN) socket.terminate();
  }
}

export interface CallPeer {
  guest: Guest;
  call: Call;
  recorder: Recorder;
  statuses: number[];
  speaking: [string, boolean][];
  lab: VoiceLab;
}

export const debugLogs: string[][] = [];
export async function callPair(
  env: TestEnv,
  transports: VoiceTransport[] = ['udp', 'websocket'],
  extra: ClientOptions = {},
): Promise<{ alice: CallPeer; bob: CallPeer; lobbyId: string; secret: string; guests: Guest[] }> {
  const labs = [new VoiceLab(), new VoiceLab()];
  const options = (lab: VoiceLab): ClientOptions => ({
    ...extra,
    voice: { transports, reconnectBaseDelayMs: 100, webSocket: lab.ctor as never, ...extra.voice },
  });
  const a = await connectGuest(env, undefined, options(labs[0]!));
  const b = await connectGuest(env, undefined, options(labs[1]!));
  const secret = newSecret();
  const lobbyId = await a.client.createOrJoinLobby(secret);
  await b.client.createOrJoinLobby(secret);
  await waitFor(() => a.client.getLobbyHandle(lobbyId)?.getLobbyMemberHandle(b.userId), 'bob in the lobby');
  const alice = startPeer(a, lobbyId, labs[0]!);
  const bob = startPeer(b, lobbyId, labs[1]!);
  await waitFor(() => alice.call.getStatus() === CallStatus.Connected && bob.call.getStatus() === CallStatus.Connected, 'both calls connected');
  try {
    await waitFor(() => alice.call.isE2eeReady() && bob.call.isE2eeReady(), 'E2EE keys on both sides', 10_000);
  } catch (error) {
    if (process.env.VOICE_DEBUG) for (const g of [a, b]) console.log(g.userId, g.logs.filter((l) => !/heartbeat|dispatch/i.test(l)).join('\n'));
    throw error;
  }
  return { alice, bob, lobbyId, secret, guests: [a, b] };
}

export function startPeer(guest: Guest, lobbyId: string, lab: VoiceLab): CallPeer {
  const recorder = new Recorder();
  const call = guest.client.startCallWithAudioCallbacks(lobbyId, recorder.callback, null);
  if (!call) throw new Error('startCallWithAudioCallbacks gave no call');
  const peer: CallPeer = { guest, call, recorder, statuses: [], speaking: [], lab };
  call.on('statusChanged', (status) => peer.statuses.push(status));
  call.on('speakingStatusChanged', (userId, playing) => peer.speaking.push([userId, playing]));
  return peer;
}
