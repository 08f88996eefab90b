// Voice across nodes (issue 18): three server nodes on one PostgreSQL schema and one Redis; node A
// is a child process, B and C run in-process. Three guests of one lobby, one Gateway session per
// node, join one call: every VOICE_SERVER_UPDATE names A's own voice gateway (A owns the call: its
// first joiner's node claimed it), and B and C hold no call of their own. A is SIGKILLed: a
// survivor claims the call, the guests on B and C reconnect to it by themselves (their SDK gets a
// fresh VOICE_SERVER_UPDATE) and hear each other again; the guest whose Gateway and voice sockets
// were both on A resumes its Gateway session on B (as behind a load balancer) and is heard again
// too; and a member whose Gateway session died with A for good leaves by its voice state lapsing,
// announced once.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CallStatus } from '../../bindings/client/src/index.ts';
import WebSocket from 'ws';
import { connectGuest, newSecret, sleep, waitFor, type Guest } from '../../bindings/client/test/helpers.ts';
import { tone } from '../../bindings/client/test/voiceAudio.ts';
import { startPeer, VoiceLab, type CallPeer } from '../../bindings/client/test/voiceHelpers.ts';
import { type RunningServer, startServer } from '../src/index.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, RawGateway, tempDir } from './harness.ts';

const NODE_SCRIPT = join(fileURLToPath(new URL('.', import.meta.url)), 'voiceClusterNode.ts');
const REDIS_URL = process.env.SOCIAL_LAYER_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const children = new Set<ChildProcess>();
const servers: RunningServer[] = [];
const guests: Guest[] = [];
const raws: RawGateway[] = [];

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const r of raws) r.ws.terminate();
  for (const g of guests) await g.client.destroy();
  for (const s of servers) await s.close();
  cleanupTempDirs();
  await dropTestSchemas();
});

/** Starts a node as a child process and waits for its ready line. */
async function startChildNode(cfg: object): Promise<{ child: ChildProcess; url: string; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', NODE_SCRIPT, JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`node did not start: ${stderr}`)), 90_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolve({ child, ...JSON.parse(line) });
      }
    });
    child.on('exit', (code) => reject(new Error(`node exited ${code}: ${stderr}`)));
  });
}

/** Pushes a 440 Hz tone from `from` until `to` has heard at least 20 loud frames of it after `mark`. */
async function hears(to: CallPeer, from: CallPeer, what: string): Promise<void> {
  const mark = to.recorder.framesOf(from.guest.userId);
  await waitFor(
    () => {
      if (from.call.getCapturedFramesQueued() === 0) from.call.pushCapturedAudio(tone(440, 1));
      return to.recorder.loudFrames(from.guest.userId, mark) >= 20;
    },
    what,
    30_000,
  );
}

const postgres = databaseConfigs().find((d) => d.name === 'postgres')!;

describe('voice across nodes (PostgreSQL + Redis)', { timeout: 240_000 }, () => {
  it('one lobby call spread over three nodes has one owner; when it is SIGKILLed the call moves and is heard again', async () => {
    const database = postgres.config();
    // A key prefix of its own: other suites share this Redis. Short TTL so the move is quick.
    const voiceCluster = { prefix: `t:${randomBytes(6).toString('hex')}:voice:`, ttlMs: 3000, intervalMs: 500 };
    const common = { database, redisUrl: REDIS_URL, voiceCluster, serveSamples: false, logLevel: 'error' as const };
    // A first: it runs the migrations on the shared schema.
    const nodeA = await startChildNode({ ...common, dataDir: tempDir() });
    const nodeB = await startServer({ ...common, port: 0, dataDir: tempDir() });
    servers.push(nodeB);
    const nodeC = await startServer({ ...common, port: 0, dataDir: tempDir() });
    servers.push(nodeC);
    const app = await nodeB.createApplication({ name: 'Voice cluster' });
    const labs = [new VoiceLab(), new VoiceLab(), new VoiceLab()];
    const connect = async (url: string, lab: VoiceLab, gatewaySocket?: unknown) => {
      const g = await connectGuest({ url, appId: app.id } as never, undefined, {
        voice: { transports: ['udp', 'websocket'], reconnectBaseDelayMs: 100, webSocket: lab.ctor as never },
        ...(gatewaySocket ? { webSocket: gatewaySocket as never } : {}),
      });
      guests.push(g);
      return g;
    };
    // g0's Gateway socket goes to A; once A is dead, its reconnects land on B (a load balancer's doing).
    let aDead = false;
    class ToSurvivor extends WebSocket {
      constructor(url: string) {
        super(aDead ? url.replace(`:${nodeA.port}/`, `:${nodeB.port}/`) : url);
      }
    }
    const g0 = await connect(nodeA.url, labs[0]!, ToSurvivor);
    const g1 = await connect(nodeB.url, labs[1]!);
    const g2 = await connect(nodeC.url, labs[2]!);

    // A second Gateway session of g1's user on C counts the dispatches about g3.
    const observer = await RawGateway.open(nodeC);
    raws.push(observer);
    const observerSession = (await observer.identify(g1.token)).session_id as string;

    const secret = newSecret();
    const lobbyId = await g0.client.createOrJoinLobby(secret);
    await g1.client.createOrJoinLobby(secret);
    await g2.client.createOrJoinLobby(secret);
    // g3 is in the call by the main Gateway only (a raw session on A, no voice socket), and its
    // session dies with A for good: its voice state must lapse, and its leave be told once.
    const g3 = await connect(nodeB.url, new VoiceLab());
    await g3.client.createOrJoinLobby(secret);
    await waitFor(() => g0.client.getLobbyHandle(lobbyId)?.getLobbyMemberHandle(g2.userId) && g0.client.getLobbyHandle(lobbyId)?.getLobbyMemberHandle(g3.userId), 'everyone in the lobby', 20_000);
    const raw3 = new RawGateway(`${nodeA.url.replace('http', 'ws')}/gateway?v=10&encoding=json`);
    raws.push(raw3);
    await raw3.next((f) => f.op === 10);
    await raw3.identify(g3.token);

    // g0 joins first, from A: A claims the call.
    const p0 = startPeer(g0, lobbyId, labs[0]!);
    await waitFor(() => p0.call.getStatus() === CallStatus.Connected, 'g0 connected', 30_000);
    const endpointA = `127.0.0.1:${nodeA.port}/voice`;
    expect(await nodeB.voice.states.callOwner(lobbyId)).toMatchObject({ endpoint: endpointA });
    raw3.send({ op: 4, d: { guild_id: null, channel_id: lobbyId, self_mute: false, self_deaf: false } });
    expect((await raw3.next((f) => f.t === 'VOICE_SERVER_UPDATE', 20_000)).d.endpoint).toBe(endpointA);
    const p1 = startPeer(g1, lobbyId, labs[1]!);
    const p2 = startPeer(g2, lobbyId, labs[2]!);
    const peers = [p0, p1, p2];
    await waitFor(() => peers.every((p) => p.call.getStatus() === CallStatus.Connected && p.call.isE2eeReady()), 'all three connected with E2EE keys', 60_000);

    // Every voice socket went to A directly; B and C hold no call (the media is on A only).
    for (const lab of labs) expect(lab.sockets.map((s) => s.url).filter((u) => u.includes('/voice?'))).toEqual([`ws://${endpointA}?v=8`]);
    expect(nodeB.voice.existingCall(lobbyId)).toBeUndefined();
    expect(nodeC.voice.existingCall(lobbyId)).toBeUndefined();
    // Voice states are one view on every node.
    expect(nodeB.voice.states.voiceStates(lobbyId).map((s) => s.user_id).sort()).toEqual([g0.userId, g1.userId, g2.userId, g3.userId].sort());
    await hears(p2, p1, 'g2 (on C) hears g1 (on B) through A');
    await hears(p1, p2, 'g1 (on B) hears g2 (on C) through A');
    await hears(p1, p0, 'g1 hears g0');

    // The owner dies without any cleanup.
    await new Promise<void>((resolve) => {
      nodeA.child.once('exit', () => resolve());
      nodeA.child.kill('SIGKILL');
    });
    aDead = true;

    // A survivor claims the call; g1 and g2 reconnect to it with no action of ours, and g0 once
    // its Gateway session resumed on B.
    const survivor = await waitFor(
      () => [nodeB, nodeC].find((n) => n.voice.existingCall(lobbyId)?.sessions.size === 3),
      'the call moved to B or C with g0, g1 and g2',
      60_000,
    );
    const owner = await survivor.voice.states.callOwner(lobbyId);
    expect(owner?.endpoint).toBe(`127.0.0.1:${survivor.port}/voice`);
    await waitFor(() => peers.every((p) => p.call.getStatus() === CallStatus.Connected && p.call.isE2eeReady()), 'all three connected again with E2EE keys', 60_000);
    for (const p of peers) {
      expect(p.statuses).toContain(CallStatus.Reconnecting);
      expect(p.statuses).not.toContain(CallStatus.Disconnected);
      expect(p.lab.sockets.at(-1)?.url.includes(`:${survivor.port}/`) || p.lab.sockets.some((s) => s.url === `ws://127.0.0.1:${survivor.port}/voice?v=8`)).toBe(true);
    }
    await hears(p2, p1, 'g2 hears g1 again after the move');
    await hears(p1, p2, 'g1 hears g2 again after the move');
    await hears(p1, p0, 'g1 hears g0 (resumed on B) again after the move');
    await hears(p0, p2, 'g0 hears g2 again after the move');

    // g3's Gateway session died with A: its voice state lapses, and its leave is told once.
    const leftOf3 = () => observer.frames.filter((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === g3.userId && f.d.channel_id === null);
    await waitFor(() => leftOf3().length > 0, "g3's leave reaches g1", 30_000);
    await waitFor(() => !p2.call.getParticipants().includes(g3.userId), 'g2 sees g3 gone', 30_000);
    // g0's state followed its session to B: it stays.
    for (const n of [nodeB, nodeC]) expect(n.voice.states.voiceStates(lobbyId).map((s) => s.user_id).sort()).toEqual([g0.userId, g1.userId, g2.userId].sort());
    // Several more sweep rounds on both survivors: still exactly one leave, and none for g0.
    await sleep(4 * voiceCluster.intervalMs + 1000);
    expect(leftOf3()).toHaveLength(1);
    expect(observer.frames.filter((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === g0.userId && f.d.channel_id === null)).toHaveLength(0);

    // One call, one node: a valid token is refused (4004) by a voice gateway that does not own the
    // call, and the same token is then accepted by the owner. (The observer's op 4 moves g1's seat
    // to the observer's session, so this runs last.)
    observer.send({ op: 4, d: { guild_id: null, channel_id: lobbyId, self_mute: false, self_deaf: false } });
    const vsu = (await observer.next((f) => f.t === 'VOICE_SERVER_UPDATE', 20_000)).d;
    expect(vsu.endpoint).toBe(`127.0.0.1:${survivor.port}/voice`);
    const other = survivor === nodeB ? nodeC : nodeB;
    const identify = { op: 0, d: { server_id: lobbyId, user_id: g1.userId, session_id: observerSession, token: vsu.token, max_dave_protocol_version: 1 } };
    const tryIdentify = (port: number) =>
      new Promise<number | 'ready'>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/voice?v=8`);
        ws.on('open', () => ws.send(JSON.stringify(identify)));
        ws.on('message', (data, isBinary) => {
          if (!isBinary && JSON.parse(data.toString()).op === 2) {
            resolve('ready');
            ws.close(1000);
          }
        });
        ws.on('close', (code) => resolve(code));
        ws.on('error', reject);
      });
    expect(await tryIdentify(other.port)).toBe(4004);
    expect(other.voice.existingCall(lobbyId)).toBeUndefined();
    expect(await tryIdentify(survivor.port)).toBe('ready');
  });
});
