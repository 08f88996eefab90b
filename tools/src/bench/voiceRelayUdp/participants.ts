/**
 * Child process: some of the calls' participants, each as a real voice client would be: a guest
 * token over HTTP, Identify on the Gateway, create-or-join the lobby, op 4, the voice gateway
 * (Identify, IP discovery over its own UDP socket, Select Protocol udp, op 5), then RTP packets
 * sealed with the transport AEAD under the key from op 4. While a phase runs each speaker sends
 * at its rate, to the relay or to the raw forwarder; every socket counts what it receives, and in
 * relay phases opens one packet in 64 with its own key (the relay re-sealed it for this receiver).
 */
import type dgram from 'node:dgram';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { CoreCryptoBackend, type TransportCipher, type TransportMode } from '@social-layer/core-wasm';
import { createMediaSocket } from '../../../../server/src/voice/UdpMediaSocket.ts';
import { serve, type Message } from '../childProcess.ts';

interface Setup {
  url: string;
  appId: string;
  calls: number;
  /** Which speaker indices of every call this process plays. */
  members: number[];
  mode: TransportMode;
  frameBytes: number;
  runId: string;
}

/** Frames of one WebSocket, recorded so a step can wait for the one it needs. */
class Frames {
  readonly list: any[] = [];
  private wake: (() => void) | null = null;
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) return;
      this.list.push(JSON.parse(data.toString()));
      this.wake?.();
    });
    ws.on('error', () => {});
  }
  async next(pred: (f: any) => boolean, what: string, timeoutMs = 30_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.list.findIndex(pred);
      if (i >= 0) return this.list.splice(i, 1)[0];
      if (Date.now() > deadline || this.ws.readyState > WebSocket.OPEN) throw new Error(`no ${what}`);
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 200);
      });
    }
  }
}

interface Participant {
  call: number;
  ssrc: number;
  socket: dgram.Socket;
  cipher: TransportCipher;
  relay: { port: number; address: string };
  scratch: Uint8Array;
  nonce: number;
  seq: number;
  /** Packets counted against the clock this phase (skipped ones included when a sender starved). */
  due: number;
  sent: number;
  keepAlive: NodeJS.Timeout[];
  sockets: WebSocket[];
}

const backend = await CoreCryptoBackend.create();
const participants: Participant[] = [];
const lobbies = new Map<number, string>();
let received = 0;
let verified = 0;
let verifyFailed = 0;
let target: 'relay' | 'raw' | 'idle' = 'idle';
let rawPort = 0;
let perSpeakerPps = 50;
let phaseStart = 0;
let timer: NodeJS.Timeout | null = null;

async function api(s: Setup, method: string, path: string, token: string | null, body: unknown): Promise<any> {
  const res = await fetch(`${s.url}/api/v10${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function opened(ws: WebSocket): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
}

async function join(s: Setup, call: number): Promise<Participant> {
  const t = await api(s, 'POST', '/partner-sdk/token', null, { client_id: s.appId, external_auth_type: 'DEVICE_ID', external_auth_token: randomBytes(16).toString('hex') });
  const token = t.access_token as string;
  const gw = new WebSocket(`${s.url.replace('http', 'ws')}/gateway?v=10&encoding=json`);
  const gwFrames = new Frames(gw);
  const hello = await gwFrames.next((f) => f.op === 10, 'Gateway Hello');
  gw.send(JSON.stringify({ op: 2, d: { token, properties: { os: 'linux', browser: 'bench', device: 'bench' } } }));
  const ready = (await gwFrames.next((f) => f.t === 'READY', 'READY')).d;
  const lobbyId = (await api(s, 'PUT', '/lobbies', token, { secret: `${s.runId}-${call}` })).id as string;
  lobbies.set(call, lobbyId);
  gw.send(JSON.stringify({ op: 4, d: { guild_id: null, channel_id: lobbyId, self_mute: false, self_deaf: false } }));
  const update = (await gwFrames.next((f) => f.t === 'VOICE_SERVER_UPDATE', 'VOICE_SERVER_UPDATE')).d;

  const voice = new WebSocket(`ws://${update.endpoint}?v=8`);
  const vFrames = new Frames(voice);
  await opened(voice);
  voice.send(JSON.stringify({ op: 0, d: { server_id: lobbyId, user_id: ready.user.id, session_id: ready.session_id, token: update.token, max_dave_protocol_version: 1 } }));
  const vReady = (await vFrames.next((f) => f.op === 2, 'voice Ready')).d;
  const vHello = await vFrames.next((f) => f.op === 8, 'voice Hello');

  // IP discovery (protocols.md): 74 bytes, type 1, length 70, our SSRC; the answer names our address.
  // The relay's own socket factory: its sends skip dns.lookup, which leaves the clients more CPU.
  const socket = createMediaSocket('127.0.0.1');
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  const discovered = new Promise<{ address: string; port: number }>((resolve) => {
    socket.once('message', (msg) => resolve({ address: msg.subarray(8, msg.indexOf(0, 8)).toString('ascii'), port: msg.readUInt16BE(72) }));
  });
  const req = Buffer.alloc(74);
  req.writeUInt16BE(1, 0);
  req.writeUInt16BE(70, 2);
  req.writeUInt32BE(vReady.ssrc, 4);
  socket.send(req, vReady.port, vReady.ip);
  const me = await discovered;
  voice.send(JSON.stringify({ op: 1, d: { protocol: 'udp', data: { address: me.address, port: me.port, mode: s.mode } } }));
  const desc = (await vFrames.next((f) => f.op === 4, 'Session Description')).d;
  const cipher = backend.createTransportCipher(desc.mode as TransportMode, new Uint8Array(desc.secret_key));
  voice.send(JSON.stringify({ op: 5, d: { speaking: 1, delay: 0, ssrc: vReady.ssrc } }));

  const keepAlive = [
    setInterval(() => gw.send(JSON.stringify({ op: 1, d: null })), hello.d.heartbeat_interval * 0.8),
    setInterval(() => voice.send(JSON.stringify({ op: 3, d: { t: Date.now(), seq_ack: -1 } })), vHello.d.heartbeat_interval * 0.8),
  ];
  const scratch = new Uint8Array(12 + s.frameBytes + 32);
  scratch.set(randomBytes(s.frameBytes), 12);
  const p: Participant = { call, ssrc: vReady.ssrc, socket, cipher, relay: { port: vReady.port, address: vReady.ip }, scratch, nonce: 0, seq: 0, due: 0, sent: 0, keepAlive, sockets: [gw, voice] };
  const open = new Uint8Array(2048);
  socket.on('message', (msg) => {
    received++;
    if (target !== 'relay' || (received & 63) !== 0 || msg.length < 32) return;
    open.set(msg);
    if (cipher.open(open, msg.length) >= 0) verified++;
    else verifyFailed++;
  });
  return p;
}

function sendOne(p: Participant, frameBytes: number, to: { port: number; address: string }): void {
  const b = p.scratch;
  const seq = p.seq++ & 0xffff;
  b[0] = 0x80;
  b[1] = 0x78;
  b[2] = seq >> 8;
  b[3] = seq & 0xff;
  const ts = (seq * 960) >>> 0;
  b[4] = ts >>> 24;
  b[5] = (ts >>> 16) & 0xff;
  b[6] = (ts >>> 8) & 0xff;
  b[7] = ts & 0xff;
  b[8] = p.ssrc >>> 24;
  b[9] = (p.ssrc >>> 16) & 0xff;
  b[10] = (p.ssrc >>> 8) & 0xff;
  b[11] = p.ssrc & 0xff;
  const n = p.cipher.seal(b, 12 + frameBytes, ++p.nonce);
  // dgram holds the buffer until it is sent: each packet gets its own.
  p.socket.send(Buffer.from(b.subarray(0, n)), to.port, to.address);
  p.sent++;
}

let setup: Setup | null = null;

/** Sends what each speaker owes by the clock, so a late timer catches up instead of lowering the rate. */
function tick(): void {
  if (!setup || target === 'idle') return;
  const owed = Math.floor(((performance.now() - phaseStart) / 1000) * perSpeakerPps);
  for (const p of participants) {
    const to = target === 'relay' ? p.relay : { port: rawPort, address: '127.0.0.1' };
    // Cap a catch-up burst at 50 ms of packets: a starved sender does not flood afterwards.
    const burst = Math.min(owed - p.due, Math.max(1, Math.ceil(perSpeakerPps / 20)));
    for (let i = 0; i < burst; i++) sendOne(p, setup.frameBytes, to);
    p.due += Math.max(0, burst);
    if (owed - p.due > perSpeakerPps) p.due = owed - perSpeakerPps;
  }
}

serve(async (m: Message) => {
  if (m.type === 'setup') {
    setup = m.setup as Setup;
    for (let call = 0; call < setup.calls; call++) {
      // One call's members join in parallel, calls one after another.
      // The first member creates the lobby; the rest join it together.
      participants.push(await join(setup, call));
      participants.push(...(await Promise.all(setup.members.slice(1).map(() => join(setup!, call)))));
    }
    return { participants: participants.map((p) => ({ call: p.call, ssrc: p.ssrc, port: p.socket.address().port })), lobbies: [...lobbies.entries()] };
  }
  if (m.type === 'phase') {
    target = m.target as typeof target;
    rawPort = (m.rawPort as number) ?? rawPort;
    perSpeakerPps = (m.perSpeakerPps as number) ?? perSpeakerPps;
    phaseStart = performance.now();
    for (const p of participants) p.due = 0;
    if (timer) clearInterval(timer);
    timer = target === 'idle' ? null : setInterval(tick, 5);
    return {};
  }
  if (m.type === 'sample') {
    return { received, verified, verifyFailed, sent: participants.reduce((n, p) => n + p.sent, 0) };
  }
  if (m.type === 'stop') {
    if (timer) clearInterval(timer);
    for (const p of participants) {
      for (const k of p.keepAlive) clearInterval(k);
      for (const ws of p.sockets) ws.terminate();
      p.socket.close();
    }
    setImmediate(() => process.exit(0));
    return {};
  }
  throw new Error(`unknown request ${m.type}`);
});
process.send!({ type: 'ready' });
