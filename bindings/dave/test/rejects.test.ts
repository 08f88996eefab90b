// What the delivery service refuses, and that refusing changes nothing (DaveGroupView before
// and after are equal): key packages that name someone else or break the rules, garbage, a
// commit that omits a proposal, a second commit in the same epoch, a commit sent for another
// member's leaf.
import { beforeAll, describe, expect, it } from 'vitest';
import { VoiceCore } from '@social-layer/core-wasm';
import { VoiceOpcode } from '@social-layer/protocol';
import {
  defaultCapabilities,
  defaultLifetime,
  encodeMlsMessage,
  generateKeyPackage,
  getCiphersuiteFromName,
  getCiphersuiteImpl,
  type Credential,
} from 'ts-mls';
import { encodeKeyPackage } from 'ts-mls/keyPackage.js';
import { DaveProtocolError, DaveSession, snowflakeBytes, validateKeyPackage } from '../src/index.ts';
import { OurClient, TestCall } from './harness.ts';

const CALL = '1300000000000000042';
const A = '1100000000000000031';
const B = '1100000000000000032';
const C = '1100000000000000033';
const D = '1100000000000000034';

let core: VoiceCore;
beforeAll(async () => {
  core = await VoiceCore.create({ poolBytes: 1 << 20 });
});

async function establishedPair(): Promise<{ call: TestCall; a: OurClient; b: OurClient }> {
  const call = await TestCall.create(CALL);
  const a = await OurClient.create(A, CALL, core);
  const b = await OurClient.create(B, CALL, core);
  await call.join(a);
  await call.join(b);
  expect(call.ds.epoch).toBe(1);
  return { call, a, b };
}

/** The delivery service answered nothing and recorded a protocol error matching `pattern`. */
function expectRefused(call: TestCall, out: unknown[], pattern: RegExp = /./): void {
  expect(out).toEqual([]);
  expect(call.ds.lastError).toBeInstanceOf(DaveProtocolError);
  expect(call.ds.lastError!.message).toMatch(pattern);
}

function garbage(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

describe('key packages the delivery service refuses', () => {
  it('refuses wrong identities, broken signatures, other lifetimes and suites, garbage; state unchanged', async () => {
    const { call } = await establishedPair();
    call.ds.memberConnected(C);
    const before = call.ds.inspect();
    const d = await DaveSession.create({ userId: D, callId: CALL, core });
    const c = await DaveSession.create({ userId: C, callId: CALL, core });

    // D's key package presented on C's connection.
    expectRefused(call, call.ds.keyPackage(C, d.keyPackage()));
    expectRefused(call, call.ds.keyPackage(C, d.keyPackage()), /names user 1100000000000000034/);
    // From someone who never connected.
    expectRefused(call, call.ds.keyPackage(D, d.keyPackage()), /not connected/);
    // A flipped byte in the signature, or anywhere in the signed part.
    const kp = c.keyPackage();
    for (const at of [kp.length - 5, 60, 120]) {
      const bad = kp.slice();
      bad[at]! ^= 0x01;
      expectRefused(call, call.ds.keyPackage(C, bad));
    }
    // Truncated, extended, empty, random.
    expectRefused(call, call.ds.keyPackage(C, kp.subarray(0, kp.length - 1)));
    expectRefused(call, call.ds.keyPackage(C, Uint8Array.of(...kp, 0)));
    expectRefused(call, call.ds.keyPackage(C, new Uint8Array(0)));
    for (let seed = 1; seed <= 20; seed++) {
      expectRefused(call, call.ds.keyPackage(C, garbage(50 + seed * 13, seed)));
    }

    // Signed and well-formed, but not DAVE's lifetime, or not suite 2.
    const credential: Credential = { credentialType: 'basic', identity: snowflakeBytes(C) };
    const p256 = await getCiphersuiteImpl(getCiphersuiteFromName('MLS_128_DHKEMP256_AES128GCM_SHA256_P256'));
    const shortLived = await generateKeyPackage(credential, defaultCapabilities(), defaultLifetime, [], p256);
    expectRefused(call, call.ds.keyPackage(C, encodeKeyPackage(shortLived.publicPackage)), /lifetime/);
    const x25519 = await getCiphersuiteImpl(getCiphersuiteFromName('MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519'));
    const otherSuite = await generateKeyPackage(credential, defaultCapabilities(), defaultLifetime, [], x25519);
    expectRefused(call, call.ds.keyPackage(C, encodeKeyPackage(otherSuite.publicPackage)), /ciphersuite/);

    expect(call.ds.inspect()).toEqual(before);

    // The same rules hold for the bare check the gateway can run on its own.
    expect(validateKeyPackage(kp, C).userId).toBe(C);
    // And the MLSMessage-wrapped form (what the DAVE text shows) is accepted too.
    const wrapped = encodeMlsMessage({ version: 'mls10', wireformat: 'mls_key_package', keyPackage: shortLived.publicPackage });
    expect(() => validateKeyPackage(wrapped, C)).toThrow(/lifetime/);
    expect(validateKeyPackage(Uint8Array.of(0, 1, 0, 5, ...kp), C).userId).toBe(C);

    // A good key package is then accepted and proposed to A and B.
    const out = call.ds.keyPackage(C, kp);
    expect(call.ds.lastError).toBeUndefined();
    expect(out.map((m) => [m.op, m.to])).toEqual([
      [VoiceOpcode.DaveMlsExternalSender, [C]],
      [VoiceOpcode.DaveMlsProposals, [A, B]],
    ]);
  });
});

describe('commits the delivery service refuses', () => {
  it('drops a commit that omits a proposal, garbage, a foreign leaf and a second commit in the epoch', async () => {
    const { call, a, b } = await establishedPair();
    const c = await OurClient.create(C, CALL, core);
    const d = await OurClient.create(D, CALL, core);
    call.connect(c);
    call.connect(d);
    await call.pump();
    call.enqueue(call.ds.keyPackage(C, c.session.keyPackage()));
    call.enqueue(call.ds.keyPackage(D, d.session.keyPackage()));
    const [addCforA, addDforA] = call.take(A, VoiceOpcode.DaveMlsProposals);
    const [addCforB, addDforB] = call.take(B, VoiceOpcode.DaveMlsProposals);
    expect(call.ds.inspect().proposals.map((p) => [p.kind, p.userId])).toEqual([
      ['add', C],
      ['add', D],
    ]);

    // A has seen only Add(C): its commit misses Add(D).
    const onlyC = (await a.session.onProposals(addCforA!.binary!)).send[0]!;
    expect(onlyC.op).toBe(VoiceOpcode.DaveMlsCommitWelcome);
    const before = call.ds.inspect();
    expect(call.ds.commitWelcome(A, onlyC.binary!)).toEqual([]);
    expect(call.ds.lastRejection).toBe('proposals-mismatch');
    expect(call.ds.inspect()).toEqual(before);

    // Garbage, a truncated commit, a commit with its welcome cut short: protocol errors.
    expectRefused(call, call.ds.commitWelcome(A, garbage(300, 7)));
    expectRefused(call, call.ds.commitWelcome(A, new Uint8Array(0)));
    expectRefused(call, call.ds.commitWelcome(A, onlyC.binary!.subarray(0, 100)));
    expectRefused(call, call.ds.commitWelcome(A, onlyC.binary!.subarray(0, onlyC.binary!.length - 3)));
    expect(call.ds.inspect()).toEqual(before);

    // B has seen both: a complete commit. Sent on A's connection it is refused (B's leaf)...
    await b.session.onProposals(addCforB!.binary!);
    const full = (await b.session.onProposals(addDforB!.binary!)).send[0]!;
    expect(call.ds.commitWelcome(A, full.binary!)).toEqual([]);
    expect(call.ds.lastRejection).toBe('not-a-member');
    expect(call.ds.inspect()).toEqual(before);

    // ...and on B's it wins the epoch: op 29 to A and B, a welcome each for C and D.
    const out = call.ds.commitWelcome(B, full.binary!);
    expect(out.map((m) => [m.op, m.to])).toEqual([
      [VoiceOpcode.DaveMlsAnnounceCommitTransition, [A, B]],
      [VoiceOpcode.DaveMlsWelcome, [C]],
      [VoiceOpcode.DaveMlsWelcome, [D]],
    ]);
    expect(call.ds.epoch).toBe(2);
    expect(call.ds.members()).toEqual([A, B, C, D]);

    // A now commits both proposals too, for the epoch that is over: dropped.
    const late = (await a.session.onProposals(addDforA!.binary!)).send[0]!;
    const after = call.ds.inspect();
    expect(call.ds.commitWelcome(A, late.binary!)).toEqual([]);
    expect(call.ds.lastRejection).toBe('wrong-epoch');
    // B's winning commit again (a replay) is just as stale.
    expect(call.ds.commitWelcome(B, full.binary!)).toEqual([]);
    expect(call.ds.inspect()).toEqual(after);

    // Everyone converges on B's commit; A drops its own pending one.
    call.enqueue(out);
    await call.pump();
    for (const x of [a, b, c, d]) {
      expect(x.errors).toEqual([]);
      expect(x.epoch).toBe(2);
    }
    expect(b.privacyCode).toBe(a.privacyCode);
    expect(c.privacyCode).toBe(a.privacyCode);
    expect(d.privacyCode).toBe(a.privacyCode);
  });
});
