import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaveFrameDecryptor, DaveFrameEncryptor, VoiceCore } from '@social-layer/core-wasm';
import { DaveSession, type DaveSessionResult } from '@social-layer/dave';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { RawVoiceClient } from './voiceHarness.ts';

/**
 * End-to-end encryption through the real voice gateway and its real DAVE delivery service:
 * members form an MLS group via the gateway, media frames are DAVE-encrypted before the
 * transport layer, and the relay — which opens the transport layer — never sees plaintext.
 */
let t: TestServer;
let lobbyId: string;
let core: VoiceCore;
const members: Member[] = [];

class Member {
  dave!: DaveSession;
  encryptor: DaveFrameEncryptor | null = null;
  private queue: Promise<void> = Promise.resolve();
  readonly errors: string[] = [];

  constructor(readonly voice: RawVoiceClient) {}

  static async join(guest: { token: string }): Promise<Member> {
    const voice = await RawVoiceClient.request(t, guest.token, lobbyId);
    const m = new Member(voice);
    m.dave = await DaveSession.create({ userId: voice.userId, callId: lobbyId, protocolVersion: 1 });
    // Drive DAVE from every voice gateway message, in arrival order.
    voice.voice = undefined as never;
    await voice.connectVoice();
    m.attach();
    await voice.selectWebSocket();
    voice.speaking();
    m.send({ op: 26, binary: m.dave.keyPackage() });
    members.push(m);
    return m;
  }

  private attach(): void {
    let seenJson = 0;
    let seenBinary = 0;
    const pump = () => {
      while (seenJson < this.voice.voiceFrames.length) this.enqueue(this.onJson(this.voice.voiceFrames[seenJson++]));
      while (seenBinary < this.voice.binaryFrames.length) this.enqueue(this.onBinary(this.voice.binaryFrames[seenBinary++]!));
    };
    this.voice.voice.on('message', () => setImmediate(pump));
    pump();
  }

  private enqueue(task: () => Promise<DaveSessionResult | void>): void {
    this.queue = this.queue.then(async () => {
      const r = await task();
      if (!r) return;
      if (r.error) this.errors.push(r.error);
      for (const s of r.send) this.send(s);
      if (r.executedTransition !== undefined || (r.keysChanged && this.dave.ready)) this.rekey();
    });
  }

  private onJson(f: any): () => Promise<DaveSessionResult | void> {
    return async () => {
      switch (f.op) {
        case 11: return void this.dave.onClientsConnect(f.d.user_ids);
        case 13: return void this.dave.onClientDisconnect(f.d.user_id);
        case 21: return this.dave.onPrepareTransition(f.d);
        case 22: return this.dave.onExecuteTransition(f.d);
        case 24: return this.dave.onPrepareEpoch(f.d);
      }
    };
  }

  private onBinary(f: { op: number; body: Buffer }): () => Promise<DaveSessionResult | void> {
    const body = new Uint8Array(f.body);
    return async () => {
      switch (f.op) {
        case 25: return this.dave.onExternalSender(body);
        case 27: return this.dave.onProposals(body);
        case 29: return this.dave.onCommit(body);
        case 30: return this.dave.onWelcome(body);
      }
    };
  }

  private send(s: { op: number; json?: unknown; binary?: Uint8Array }): void {
    if (s.binary) this.voice.voice.send(Buffer.concat([Buffer.from([s.op]), Buffer.from(s.binary)]));
    else this.voice.sendVoice({ op: s.op, d: s.json });
  }

  private rekey(): void {
    const own = this.dave.senderKeyRatchet(this.voice.userId);
    if (!own) return;
    if (this.encryptor) this.encryptor.setRatchet(own);
    else this.encryptor = new DaveFrameEncryptor(core, own);
  }

  async settled(): Promise<void> {
    await this.queue;
  }

  /** DAVE-encrypts `plain` with this member's current key and sends it through the relay. */
  speak(plain: Uint8Array): void {
    const out = new Uint8Array(plain.length + 32);
    const n = this.encryptor!.encrypt(plain, plain.length, out);
    expect(n).toBeGreaterThan(0);
    this.voice.sendFrame(out.subarray(0, n));
  }

  /** Frames received from `from`, DAVE-decrypted with this member's keys for that sender (undefined = could not). */
  heard(from: Member, since = 0): (string | undefined)[] {
    const ratchet = this.dave.senderKeyRatchet(from.voice.userId);
    if (!ratchet) return [];
    const dec = new DaveFrameDecryptor(core, ratchet);
    return this.voice.received
      .slice(since)
      .filter((p) => p.ssrc === from.voice.ssrc)
      .map((p) => {
        const out = new Uint8Array(p.frame.length);
        const n = dec.decrypt(new Uint8Array(p.frame), p.frame.length, out);
        return n < 0 ? undefined : Buffer.from(out.subarray(0, n)).toString();
      });
  }
}

async function allReady(ms: Member[]): Promise<void> {
  await expect
    .poll(async () => {
      await Promise.all(ms.map((m) => m.settled()));
      const epochs = new Set(ms.map((m) => m.dave.epoch));
      return ms.every((m) => m.dave.ready && m.encryptor !== null && ms.every((o) => m.dave.senderKeyRatchet(o.voice.userId))) && epochs.size === 1;
    }, { timeout: 15_000, interval: 100 })
    .toBe(true);
}

beforeAll(async () => {
  t = await startTestServer({ presenceGraceMs: 0 });
  core = await VoiceCore.create();
  const guests = await Promise.all(['A', 'B', 'C'].map((n) => t.guest(n)));
  lobbyId = (await t.req('PUT', '/lobbies', { token: guests[0]!.token, body: { secret: 'e2ee-room' } })).body.id;
  for (const g of guests.slice(1)) await t.req('PUT', '/lobbies', { token: g.token, body: { secret: 'e2ee-room' } });
  (globalThis as any).__guests = guests;
});
afterAll(async () => {
  for (const m of members) m.voice.close();
  await t.close();
  cleanupTempDirs();
});

describe('DAVE through the voice gateway', () => {
  it('forms one MLS group; frames are end-to-end encrypted past the relay; a leaver loses the new keys', async () => {
    const [ga, gb, gc] = (globalThis as any).__guests as { token: string }[];
    const seenByRelay: Buffer[] = [];
    const a = await Member.join(ga!);
    t.server.voice.relayOf(lobbyId)!.onForward = (_from, frame) => seenByRelay.push(Buffer.from(frame));
    const b = await Member.join(gb!);
    await allReady([a, b]);

    a.speak(Buffer.from('secret-opus-frame-from-a'));
    b.speak(Buffer.from('secret-opus-frame-from-b'));
    await expect.poll(() => b.heard(a)).toContain('secret-opus-frame-from-a');
    await expect.poll(() => a.heard(b)).toContain('secret-opus-frame-from-b');

    const c = await Member.join(gc!);
    await allReady([a, b, c]);
    const epochWithC = a.dave.epoch;
    a.speak(Buffer.from('hello-c'));
    await expect.poll(() => c.heard(a)).toContain('hello-c');

    // B leaves the call: the others move to a new epoch whose keys B never gets.
    const bLast = { ratchet: b.dave.senderKeyRatchet(a.voice.userId) };
    b.voice.voice.close(1000);
    await expect.poll(async () => {
      await Promise.all([a.settled(), c.settled()]);
      return a.dave.epoch > epochWithC && c.dave.epoch === a.dave.epoch && a.dave.ready && c.dave.ready;
    }, { timeout: 15_000, interval: 100 }).toBe(true);
    const after = Buffer.from('after-b-left');
    const frame = new Uint8Array(after.length + 32);
    const n = a.encryptor!.encrypt(after, after.length, frame);
    a.voice.sendFrame(frame.subarray(0, n));
    await expect.poll(() => c.heard(a)).toContain('after-b-left');
    // B's last keys for A cannot open a frame of the new epoch.
    const bDec = new DaveFrameDecryptor(core, bLast.ratchet!);
    const out = new Uint8Array(n);
    expect(bDec.decrypt(frame.subarray(0, n), n, out)).toBeLessThan(0);

    // The relay forwarded only ciphertext: no plaintext frame appears in what it handled.
    expect(seenByRelay.length).toBeGreaterThan(0);
    for (const f of seenByRelay) {
      for (const plain of ['secret-opus-frame-from-a', 'secret-opus-frame-from-b', 'hello-c', 'after-b-left']) {
        expect(f.includes(Buffer.from(plain))).toBe(false);
      }
      expect(f.subarray(-2).equals(Buffer.from([0xfa, 0xfa]))).toBe(true);
    }
    expect(a.errors.filter((e) => !/ignored/.test(e))).toEqual([]);
  });

  it('drops a tampered DAVE frame at the receiver instead of playing it', async () => {
    const [a, , c] = [members[0]!, members[1]!, members[2]!];
    const since = c.voice.received.length;
    const plain = Buffer.from('tamper-me');
    const out = new Uint8Array(plain.length + 32);
    const n = a.encryptor!.encrypt(plain, plain.length, out);
    out[2] = out[2]! ^ 0x40;
    a.voice.sendFrame(out.subarray(0, n));
    const marker = Buffer.from('marker-after-tamper');
    a.speak(marker);
    // The relay cannot tell (it is inside the transport layer, which is intact); the receiver can.
    await expect.poll(() => c.heard(a, since)).toEqual([undefined, 'marker-after-tamper']);
  });
});
