// Seeded random joins and leaves of our sessions and davey sessions in one call: after every
// step all members agree on the epoch, the privacy code and each sender's frames, with no error
// on any member. Seed 13 makes a tree whose unmerged leaves sit in different subtrees (see
// src/mlsJoin.ts); 30 more seeds passed when this was written.
import { beforeAll, describe, expect, it } from 'vitest';
import { DaveFrameDecryptor, DaveFrameEncryptor, HashRatchet, VoiceCore } from '@social-layer/core-wasm';
import { DaveyClient, OurClient, TestCall, type TestClient } from './harness.ts';

const CALL = '1300000000000000555';

let core: VoiceCore;
beforeAll(async () => {
  core = await VoiceCore.create({ poolBytes: 1 << 20 });
});

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (x * 1664525 + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

function frameCheck(from: TestClient, to: TestClient): void {
  const frame = new TextEncoder().encode(`${from.userId}->${to.userId}`);
  let packet: Uint8Array;
  if (from instanceof DaveyClient) packet = new Uint8Array(from.session.encryptOpus(Buffer.from(frame)));
  else {
    const enc = new DaveFrameEncryptor(core, new HashRatchet(core, (from as OurClient).session.senderBaseSecret(from.userId)!));
    const out = new Uint8Array(frame.length + 32);
    packet = out.slice(0, enc.encrypt(frame, frame.length, out));
    enc.destroy();
  }
  let plain: Uint8Array;
  if (to instanceof DaveyClient) plain = new Uint8Array(to.session.decrypt(from.userId, 0, Buffer.from(packet)));
  else {
    const dec = new DaveFrameDecryptor(core, new HashRatchet(core, (to as OurClient).session.senderBaseSecret(from.userId)!));
    const out = new Uint8Array(packet.length);
    const n = dec.decrypt(packet, packet.length, out);
    dec.destroy();
    expect(n, `${to.kind} ${to.userId} decrypts ${from.kind} ${from.userId}`).toBeGreaterThan(0);
    plain = out.slice(0, n);
  }
  expect(new TextDecoder().decode(plain)).toBe(`${from.userId}->${to.userId}`);
}

describe('churn', () => {
  for (const seed of [1, 2, 13]) {
    it(`random joins and leaves, seed ${seed}`, async () => {
      const random = rng(seed);
      const call = await TestCall.create(CALL);
      const members: TestClient[] = [];
      let next = 1;
      for (let step = 0; step < 14; step++) {
        const join = members.length < 2 || (members.length < 6 && random() < 0.6);
        if (join) {
          const id = `11000000000000007${String(next++).padStart(2, '0')}`;
          const client = random() < 0.5 ? new DaveyClient(id, CALL) : await OurClient.create(id, CALL, core);
          members.push(client);
          await call.join(client);
        } else {
          const [gone] = members.splice(Math.floor(random() * members.length), 1);
          await call.leave(gone!.userId);
        }
        const label = `seed ${seed} step ${step} (${members.map((m) => m.kind[0]).join('')})`;
        for (const m of members) expect(m.errors, `${label}: ${m.kind} ${m.userId}`).toEqual([]);
        if (members.length < 2) continue;
        expect(call.ds.members().sort(), label).toEqual(members.map((m) => m.userId).sort());
        const code = members[0]!.privacyCode;
        for (const m of members) {
          expect(m.epoch, label).toBe(call.ds.epoch);
          expect(m.privacyCode, label).toBe(code);
        }
        const from = members[Math.floor(random() * members.length)]!;
        for (const to of members) if (to !== from) frameCheck(from, to);
      }
    });
  }
});
