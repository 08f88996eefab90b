// Members join and leave a call through the DaveDeliveryService exactly as the voice gateway
// drives it; every member must derive the same per-sender media keys each epoch.
import { beforeAll, describe, expect, it } from 'vitest';
import { CoreError, DaveFrameDecryptor, DaveFrameEncryptor, HashRatchet, VoiceCore } from '@social-layer/core-wasm';
import { OurClient, TestCall } from './harness.ts';

const CALL = '1300000000000000001';
const A = '1100000000000000001';
const B = '1100000000000000002';
const C = '18446744073709551615';

let core: VoiceCore;
beforeAll(async () => {
  core = await VoiceCore.create({ poolBytes: 1 << 20 });
});

function toHex(b: Uint8Array | undefined): string | undefined {
  return b && Buffer.from(b).toString('hex');
}

/** Every client holds the same base secret for every member (and none for non-members). */
function expectSameKeys(clients: OurClient[], members: string[]): void {
  for (const sender of members) {
    const reference = toHex(clients[0]!.session.senderBaseSecret(sender));
    expect(reference).toMatch(/^[0-9a-f]{32}$/);
    for (const c of clients) expect(toHex(c.session.senderBaseSecret(sender))).toBe(reference);
  }
}

function encryptFrom(client: OurClient, frame: Uint8Array): Uint8Array {
  const enc = new DaveFrameEncryptor(core, client.session.senderKeyRatchet(client.userId)!);
  const out = new Uint8Array(frame.length + 32);
  const n = enc.encrypt(frame, frame.length, out);
  enc.destroy();
  expect(n).toBeGreaterThan(0);
  return out.subarray(0, n);
}

function decryptAt(client: OurClient, sender: string, packet: Uint8Array): number {
  // A fresh ratchet over the base secret: senderKeyRatchet() hands one object per epoch to the
  // one decryptor a pipeline keeps per sender, and destroying a decryptor spends its keys.
  const base = client.session.senderBaseSecret(sender);
  if (!base) return CoreError.NoKey;
  const dec = new DaveFrameDecryptor(core, new HashRatchet(core, base));
  const out = new Uint8Array(packet.length);
  const n = dec.decrypt(packet, packet.length, out);
  dec.destroy();
  return n;
}

describe('DAVE group through the delivery service', () => {
  it('three members join one after another and one leaves; keys agree every epoch', async () => {
    const call = await TestCall.create(CALL);
    const a = await OurClient.create(A, CALL, core);
    const b = await OurClient.create(B, CALL, core);
    const c = await OurClient.create(C, CALL, core);

    await call.join(a);
    expect(a.ready).toBe(false);
    expect(call.ds.isEstablished).toBe(false);

    await call.join(b);
    expect(call.ds.epoch).toBe(1);
    expect(call.ds.members()).toEqual([A, B]);
    for (const x of [a, b]) {
      expect(x.errors).toEqual([]);
      expect(x.ready).toBe(true);
      expect(x.epoch).toBe(1);
    }
    expectSameKeys([a, b], [A, B]);
    expect(a.privacyCode).toMatch(/^\d{30}$/);
    expect(b.privacyCode).toBe(a.privacyCode);
    // Everyone said op 23, so the transition was executed without waiting.
    expect(a.executed).toEqual([1]);
    expect(b.executed).toEqual([1]);
    expect(call.ds.pendingTransitions()).toEqual([]);

    await call.join(c);
    expect(call.ds.epoch).toBe(2);
    expect(call.ds.members()).toEqual([A, B, C]);
    for (const x of [a, b, c]) {
      expect(x.errors).toEqual([]);
      expect(x.epoch).toBe(2);
    }
    expectSameKeys([a, b, c], [A, B, C]);
    const epoch2 = toHex(a.session.senderBaseSecret(A));
    // One ratchet object per sender per epoch: a pipeline tells epochs apart by identity.
    const ratchetA2 = a.session.senderKeyRatchet(A);
    expect(a.session.senderKeyRatchet(A)).toBe(ratchetA2);

    // A frame from A decrypts for B and C with the ratchet each derived independently.
    const frame = new TextEncoder().encode('opus frame from A, epoch 2');
    const packet = encryptFrom(a, frame);
    expect(decryptAt(b, A, packet)).toBe(frame.length);
    expect(decryptAt(c, A, packet)).toBe(frame.length);

    await call.leave(B);
    expect(call.ds.epoch).toBe(3);
    expect(call.ds.members()).toEqual([A, C]);
    for (const x of [a, c]) {
      expect(x.errors).toEqual([]);
      expect(x.epoch).toBe(3);
    }
    expectSameKeys([a, c], [A, C]);
    expect(toHex(a.session.senderBaseSecret(A))).not.toBe(epoch2);
    expect(a.session.senderKeyRatchet(A)).not.toBe(ratchetA2);
    expect(a.session.senderBaseSecret(B)).toBeUndefined();

    // B, gone, cannot read what A sends in epoch 3: its newest keys are epoch 2's.
    const later = encryptFrom(a, new TextEncoder().encode('after B left'));
    expect(decryptAt(c, A, later)).toBeGreaterThan(0);
    expect(decryptAt(b, A, later)).toBe(CoreError.AuthFailed);
    expect(b.epoch).toBe(2);
  });
});
