// The IPC wire against the real companion (real platform, real Unix sockets): frames split
// across writes, several frames in one write, the 64 KiB limit, garbage, handshake errors,
// floods, and that a misbehaving client never disturbs another one.
import { lstatSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createConnection, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFrame, FrameDecoder, IpcOpcode, MAX_FRAME_BYTES, RpcClient, RpcCloseCode, RpcErrorCode } from '../src/index.ts';
import { type Account, type Env, signedInAccount, startCompanion, startEnv, waitFor } from './helpers.ts';

let env: Env;
let player: Account;
let companion: Awaited<ReturnType<typeof startCompanion>>;
/** A well-behaved client connected all along: after every attack it must still be served. */
let bystander: RpcClient;

beforeAll(async () => {
  env = await startEnv();
  player = await signedInAccount(env, 'frame_player');
  companion = await startCompanion(env, [player.token]);
  bystander = new RpcClient({ clientId: env.app.id, env: { XDG_RUNTIME_DIR: companion.dir } });
  await bystander.connect();
});

afterAll(async () => {
  await bystander?.close();
  await companion?.companion.stop();
  await env?.close();
});

/** A raw socket that decodes what the companion sends and records the CLOSE it ends with. */
class RawClient {
  readonly frames: { op: number; data: any }[] = [];
  readonly socket: Socket;
  private readonly decoder = new FrameDecoder();
  ended = false;

  constructor(path: string) {
    this.socket = createConnection(path);
    this.socket.on('data', (c) => this.frames.push(...this.decoder.push(c)));
    this.socket.on('close', () => (this.ended = true));
    this.socket.on('error', () => {});
  }

  static async open(path = companion.path): Promise<RawClient> {
    const c = new RawClient(path);
    await new Promise<void>((resolve) => c.socket.once('connect', () => resolve()));
    return c;
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  async next(pred: (f: { op: number; data: any }) => boolean, timeoutMs = 5000): Promise<{ op: number; data: any }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const f = this.frames.find(pred);
      if (f) return f;
      if (Date.now() > deadline) throw new Error(`no such frame; got ${this.frames.length} frames, last ${JSON.stringify(this.frames.slice(-2)).slice(0, 300)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** The CLOSE frame's data, after which the socket must end. */
  async closedWith(): Promise<{ code: number; message: string }> {
    const f = await this.next((x) => x.op === IpcOpcode.Close);
    const deadline = Date.now() + 5000;
    while (!this.ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(this.ended).toBe(true);
    return f.data;
  }
}

const handshake = () => encodeFrame(IpcOpcode.Handshake, { v: 1, client_id: env.app.id });
const ready = (f: { op: number; data: any }) => f.op === IpcOpcode.Frame && f.data?.evt === 'READY';

async function bystanderStillServed(): Promise<void> {
  // PING answered and a command answered: the companion is serving others.
  await expect(bystander.request('SUBSCRIBE', {}, 'ACTIVITY_JOIN')).resolves.toEqual({ evt: 'ACTIVITY_JOIN' });
}

describe('socket', () => {
  it('is a Unix socket with mode 0600 named <name>-ipc-0 in XDG_RUNTIME_DIR', () => {
    expect(companion.path).toBe(join(companion.dir, 'social-layer-ipc-0'));
    const st = lstatSync(companion.path);
    expect(st.isSocket()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
  });

  it('takes the next slot when a live listener holds slot 0, and replaces a stale socket file', async () => {
    // A second companion on the same directory must leave the live one alone.
    const second = await startCompanion(env, [player.token], { env: { XDG_RUNTIME_DIR: companion.dir } });
    try {
      expect(second.path).toBe(join(companion.dir, 'social-layer-ipc-1'));
      expect(lstatSync(companion.path).isSocket()).toBe(true);
      await bystanderStillServed();
    } finally {
      await second.companion.stop();
    }
    // A crashed companion leaves its socket file behind: nobody accepts on it.
    const dir = env.runtimeDir();
    const stalePath = join(dir, 'social-layer-ipc-0');
    const crashed = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(stalePath)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((r) => crashed.stdout!.once('data', () => r()));
    crashed.kill('SIGKILL');
    await new Promise<void>((r) => crashed.once('exit', () => r()));
    expect(lstatSync(stalePath).isSocket()).toBe(true);
    const fresh = await startCompanion(env, [player.token], { env: { XDG_RUNTIME_DIR: dir } });
    try {
      expect(fresh.path).toBe(stalePath);
      expect(lstatSync(stalePath).mode & 0o777).toBe(0o600);
      const c = new RpcClient({ clientId: env.app.id, env: { XDG_RUNTIME_DIR: dir } });
      expect((await c.connect()).user.id).toBe(player.userId);
      await c.close();
    } finally {
      await fresh.companion.stop();
    }
  });
});

describe('handshake', () => {
  it('answers READY with the player and our API endpoint', async () => {
    const c = await RawClient.open();
    c.write(handshake());
    const f = await c.next(ready);
    const host = new URL(env.url).host;
    expect(f.data).toMatchObject({ cmd: 'DISPATCH', evt: 'READY', data: { v: 1, config: { api_endpoint: `//${host}/api` }, user: { id: player.userId } } });
    c.socket.destroy();
  });

  it('refuses a wrong version with 4004 and an unknown application with 4000', async () => {
    const wrongVersion = await RawClient.open();
    wrongVersion.write(encodeFrame(IpcOpcode.Handshake, { v: 2, client_id: env.app.id }));
    expect(await wrongVersion.closedWith()).toEqual({ code: RpcCloseCode.InvalidVersion, message: 'Invalid Version' });
    for (const clientId of ['123456789012345678', 'not-an-id', 42.5, undefined]) {
      const c = await RawClient.open();
      c.write(encodeFrame(IpcOpcode.Handshake, { v: 1, client_id: clientId }));
      expect(await c.closedWith()).toEqual({ code: RpcCloseCode.InvalidClientId, message: 'Invalid Client ID' });
    }
    await bystanderStillServed();
  });

  it('closes a client that sends a command before the handshake, or a second handshake', async () => {
    const early = await RawClient.open();
    early.write(encodeFrame(IpcOpcode.Frame, { cmd: 'SET_ACTIVITY', args: {}, nonce: '1' }));
    expect((await early.closedWith()).code).toBe(RpcCloseCode.InvalidEncoding);

    const twice = await RawClient.open();
    twice.write(handshake());
    await twice.next(ready);
    twice.write(handshake());
    expect(await twice.closedWith()).toEqual({ code: RpcCloseCode.InvalidEncoding, message: 'Already handshaken' });
    await bystanderStillServed();
  });
});

describe('frames', () => {
  it('reassembles frames split across writes, down to one byte per write', async () => {
    const c = await RawClient.open();
    const hs = handshake();
    c.write(hs.subarray(0, 3));
    await new Promise((r) => setTimeout(r, 30));
    c.write(hs.subarray(3, 11));
    await new Promise((r) => setTimeout(r, 30));
    c.write(hs.subarray(11));
    await c.next(ready);
    const cmd = encodeFrame(IpcOpcode.Frame, { cmd: 'SUBSCRIBE', evt: 'ACTIVITY_INVITE', args: {}, nonce: 'split' });
    for (let i = 0; i < cmd.length; i++) {
      c.write(cmd.subarray(i, i + 1));
      if (i % 16 === 0) await new Promise((r) => setImmediate(r));
    }
    const answer = await c.next((f) => f.data?.nonce === 'split');
    expect(answer.data).toEqual({ cmd: 'SUBSCRIBE', nonce: 'split', evt: null, data: { evt: 'ACTIVITY_INVITE' } });
    c.socket.destroy();
  });

  it('serves two frames that arrive in one chunk, in order', async () => {
    const c = await RawClient.open();
    c.write(Buffer.concat([handshake(), encodeFrame(IpcOpcode.Frame, { cmd: 'SUBSCRIBE', evt: 'ACTIVITY_JOIN', args: {}, nonce: 'second' })]));
    await c.next(ready);
    expect((await c.next((f) => f.data?.nonce === 'second')).data.data).toEqual({ evt: 'ACTIVITY_JOIN' });
    // And two commands in one chunk after the handshake, plus a PING.
    c.write(
      Buffer.concat([
        encodeFrame(IpcOpcode.Frame, { cmd: 'UNSUBSCRIBE', evt: 'ACTIVITY_JOIN', args: {}, nonce: 'a' }),
        encodeFrame(IpcOpcode.Ping, 'are-you-there'),
        encodeFrame(IpcOpcode.Frame, { cmd: 'NOPE', args: {}, nonce: 'b' }),
      ]),
    );
    expect((await c.next((f) => f.data?.nonce === 'a')).data.data).toEqual({ evt: 'ACTIVITY_JOIN' });
    expect((await c.next((f) => f.op === IpcOpcode.Pong)).data).toBe('are-you-there');
    expect((await c.next((f) => f.data?.nonce === 'b')).data).toMatchObject({ cmd: 'NOPE', evt: 'ERROR', data: { code: RpcErrorCode.InvalidCommand } });
    // Each frame we send is one write, and frames are spaced: no two in one chunk here.
    c.socket.destroy();
  });

  it('serves a frame of exactly 64 KiB and closes one of 64 KiB + 1 byte', async () => {
    const sized = (total: number, nonce: string) => {
      const base = { cmd: 'SUBSCRIBE', evt: 'ACTIVITY_SPECTATE', args: { pad: '' }, nonce };
      const overhead = 8 + Buffer.byteLength(JSON.stringify(base));
      const frame = encodeFrame(IpcOpcode.Frame, { ...base, args: { pad: 'x'.repeat(total - overhead) } });
      expect(frame.length).toBe(total);
      return frame;
    };
    const c = await RawClient.open();
    c.write(handshake());
    await c.next(ready);
    c.write(sized(MAX_FRAME_BYTES, 'max'));
    expect((await c.next((f) => f.data?.nonce === 'max')).data.data).toEqual({ evt: 'ACTIVITY_SPECTATE' });
    c.write(sized(MAX_FRAME_BYTES + 1, 'over'));
    const close = await c.closedWith();
    expect(close.code).toBe(RpcCloseCode.InvalidEncoding);
    expect(close.message).toContain('65537');
    expect(c.frames.some((f) => f.data?.nonce === 'over')).toBe(false);
    await bystanderStillServed();
  });

  it('closes garbage: an unknown opcode, a payload that is not JSON, random bytes', async () => {
    const badOp = await RawClient.open();
    badOp.write(Buffer.from([9, 0, 0, 0, 2, 0, 0, 0, 0x7b, 0x7d]));
    expect(await badOp.closedWith()).toEqual({ code: RpcCloseCode.InvalidEncoding, message: 'Unknown opcode 9' });

    const badJson = await RawClient.open();
    badJson.write(handshake());
    await badJson.next(ready);
    const text = Buffer.from('{"cmd": "SET_ACTIVITY",');
    const header = Buffer.alloc(8);
    header.writeUInt32LE(IpcOpcode.Frame, 0);
    header.writeUInt32LE(text.length, 4);
    badJson.write(Buffer.concat([header, text]));
    expect(await badJson.closedWith()).toEqual({ code: RpcCloseCode.InvalidEncoding, message: 'Frame payload is not JSON' });

    const noise = await RawClient.open();
    noise.write(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect((await noise.closedWith()).code).toBe(RpcCloseCode.InvalidEncoding);
    await bystanderStillServed();
  });

  it('answers envelope errors with ERROR events and keeps the connection', async () => {
    const c = await RawClient.open();
    c.write(handshake());
    await c.next(ready);
    c.write(encodeFrame(IpcOpcode.Frame, ['not', 'an', 'object']));
    expect((await c.next((f) => f.data?.evt === 'ERROR')).data.data.code).toBe(RpcErrorCode.InvalidPayload);
    c.write(encodeFrame(IpcOpcode.Frame, { cmd: 'GET_GUILDS', args: {}, nonce: 'needs-auth' }));
    expect((await c.next((f) => f.data?.nonce === 'needs-auth')).data.data).toEqual({ code: RpcErrorCode.InvalidPermissions, message: 'Not authenticated or invalid scope' });
    c.write(encodeFrame(IpcOpcode.Frame, { cmd: 'SUBSCRIBE', evt: 'NOT_AN_EVENT', args: {}, nonce: 'evt' }));
    expect((await c.next((f) => f.data?.nonce === 'evt')).data.data.code).toBe(RpcErrorCode.InvalidEvent);
    c.write(encodeFrame(IpcOpcode.Frame, { cmd: 'SET_ACTIVITY', args: { pid: 1, activity: { type: 1, state: 'streaming?' } }, nonce: 'type' }));
    expect((await c.next((f) => f.data?.nonce === 'type')).data.data).toEqual({ code: RpcErrorCode.InvalidPayload, message: 'activity.type must be one of 0, 2, 3, 5' });
    c.write(encodeFrame(IpcOpcode.Frame, { cmd: 'SET_ACTIVITY', args: { activity: { state: '' } }, nonce: 'limits' }));
    const limits = (await c.next((f) => f.data?.nonce === 'limits')).data.data;
    expect(limits.code).toBe(RpcErrorCode.InvalidPayload);
    expect(limits.message).toContain('activity.state');
    expect(c.ended).toBe(false);
    c.socket.destroy();
  });

  it('closes connections beyond the limit with the rate-limit code, and serves again once they go', async () => {
    const small = await startCompanion(env, [player.token], { maxConnections: 2 });
    try {
      const a = await RawClient.open(small.path);
      const b = await RawClient.open(small.path);
      const c = await RawClient.open(small.path);
      expect(await c.closedWith()).toEqual({ code: RpcCloseCode.RateLimited, message: 'Too many connections' });
      a.socket.destroy();
      await waitFor(() => small.companion['ipc'].clients.size < 2, 'the first connection to be gone');
      const d = await RawClient.open(small.path);
      d.write(handshake());
      await d.next(ready);
      b.socket.destroy();
      d.socket.destroy();
    } finally {
      await small.companion.stop();
    }
  });

  it('closes a client that floods frames with the rate-limit code', async () => {
    const c = await RawClient.open();
    c.write(handshake());
    await c.next(ready);
    const pings = Buffer.concat(Array.from({ length: 200 }, (_, i) => encodeFrame(IpcOpcode.Ping, i)));
    c.write(pings);
    expect(await c.closedWith()).toEqual({ code: RpcCloseCode.RateLimited, message: 'You are being rate limited' });
    // Fewer PONGs than PINGs: the flood was cut off, not served.
    expect(c.frames.filter((f) => f.op === IpcOpcode.Pong).length).toBeLessThan(200);
    await bystanderStillServed();
  });
});
