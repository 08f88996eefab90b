// Interop with @snazzah/davey (OpenMLS; what @discordjs/voice uses) as a client member of
// groups run by our DaveDeliveryService beside our DaveSession members: key packages,
// proposals, commits and welcomes both ways, and media frames both ways.
import { beforeAll, describe, expect, it } from 'vitest';
import davey from '@snazzah/davey';
import { DaveFrameDecryptor, DaveFrameEncryptor, HashRatchet, VoiceCore } from '@social-layer/core-wasm';
import { validateKeyPackage } from '../src/index.ts';
import { DaveyClient, OurClient, TestCall, type TestClient } from './harness.ts';

const CALL = '1300000000000000077';
const OURS_1 = '1100000000000000011';
const OURS_2 = '1100000000000000012';
const DAVEY_1 = '1100000000000000021';
const DAVEY_2 = '1100000000000000022';

let core: VoiceCore;
beforeAll(async () => {
  core = await VoiceCore.create({ poolBytes: 1 << 20 });
});

const MEDIA_AUDIO = 0;

/** A frame from `from` must decrypt for every other member, whichever implementation each is. */
function expectFramesFlow(members: TestClient[]): void {
  for (const from of members) {
    const frame = new TextEncoder().encode(`frame from ${from.userId} at epoch ${from.epoch}`);
    let packet: Uint8Array;
    if (from instanceof DaveyClient) {
      packet = new Uint8Array(from.session.encryptOpus(Buffer.from(frame)));
    } else {
      const enc = new DaveFrameEncryptor(core, (from as OurClient).session.senderKeyRatchet(from.userId)!);
      const out = new Uint8Array(frame.length + 32);
      const n = enc.encrypt(frame, frame.length, out);
      enc.destroy();
      packet = out.slice(0, n);
    }
    expect(packet.length).toBeGreaterThan(frame.length);
    for (const to of members) {
      if (to === from) continue;
      let plain: Uint8Array;
      if (to instanceof DaveyClient) {
        plain = new Uint8Array(to.session.decrypt(from.userId, MEDIA_AUDIO, Buffer.from(packet)));
      } else {
        const base = (to as OurClient).session.senderBaseSecret(from.userId);
        expect(base, `${to.userId} has keys for ${from.userId}`).toBeDefined();
        const dec = new DaveFrameDecryptor(core, new HashRatchet(core, base!));
        const out = new Uint8Array(packet.length);
        const n = dec.decrypt(packet, packet.length, out);
        dec.destroy();
        expect(n, `${to.userId} decrypts ${from.userId}`).toBe(frame.length);
        plain = out.slice(0, n);
      }
      expect(new TextDecoder().decode(plain)).toBe(`frame from ${from.userId} at epoch ${from.epoch}`);
    }
  }
}

function expectAgreement(call: TestCall, members: TestClient[], epoch: number): void {
  expect(call.ds.epoch).toBe(epoch);
  expect([...call.ds.members()].sort()).toEqual(members.map((m) => m.userId).sort());
  const code = members[0]!.privacyCode;
  expect(code).toMatch(/^\d{30}$/);
  for (const m of members) {
    expect(m.errors, `${m.kind} ${m.userId} errors`).toEqual([]);
    expect(m.ready).toBe(true);
    expect(m.epoch).toBe(epoch);
    // Same epoch authenticator, so the same view of the group.
    expect(m.privacyCode, `${m.kind} ${m.userId} privacy code`).toBe(code);
  }
  expectFramesFlow(members);
}

describe('interop with @snazzah/davey', () => {
  it('accepts a davey key package', () => {
    const session = new davey.DAVESession(1, DAVEY_1, CALL);
    const kp = validateKeyPackage(new Uint8Array(session.getSerializedKeyPackage()), DAVEY_1);
    expect(kp.userId).toBe(DAVEY_1);
    expect(kp.signatureKey.length).toBe(65);
  });

  it('our session creates the group, davey joins by welcome, then follows our commits', async () => {
    const call = await TestCall.create(CALL);
    const ours1 = await OurClient.create(OURS_1, CALL, core);
    const davey1 = new DaveyClient(DAVEY_1, CALL);
    const ours2 = await OurClient.create(OURS_2, CALL, core);

    await call.join(ours1);
    await call.join(davey1);
    // davey dropped the op 25 sent before op 4 and got the one sent with its proposals.
    expect(davey1.droppedEarly).toEqual([25]);
    expectAgreement(call, [ours1, davey1], 1);

    await call.join(ours2);
    expectAgreement(call, [ours1, davey1, ours2], 2);

    await call.leave(OURS_2);
    expectAgreement(call, [ours1, davey1], 3);
  });

  // Members 0 and 1 leave a group of four: the left half of the tree is blank, so the root is
  // not on the committer's filtered direct path (RFC 9420 7.4; ts-mls got the commit secret
  // wrong there until src/mlsCommit.ts).
  for (const [name, third] of [
    ['ours commits, davey processes', 'ours'],
    ['davey commits, ours processes', 'davey'],
  ] as const) {
    it(`root off the filtered direct path: ${name}`, async () => {
      const call = await TestCall.create(CALL);
      const o1 = await OurClient.create(OURS_1, CALL, core);
      const o2 = await OurClient.create(OURS_2, CALL, core);
      const o3 = await OurClient.create('1100000000000000013', CALL, core);
      const d1 = new DaveyClient(DAVEY_1, CALL);
      const [leaf2, leaf3] = third === 'ours' ? [o3, d1] : [d1, o3];
      for (const m of [o1, o2, leaf2, leaf3]) await call.join(m);
      expectAgreement(call, [o1, o2, leaf2, leaf3], 3);
      await call.leave(OURS_1);
      expectAgreement(call, [o2, leaf2, leaf3], 4);
      await call.leave(OURS_2);
      expect(call.ds.inspect().leaves).toEqual([null, null, leaf2.userId, leaf3.userId]);
      expectAgreement(call, [leaf2, leaf3], 5);
      // The committer was leaf 2, the first to get the Remove.
      expect(call.committers.at(-1)).toBe(leaf2.userId);
    });
  }

  it('davey creates the group and commits; our sessions join by its welcome and process its commits', async () => {
    const call = await TestCall.create(CALL);
    const davey1 = new DaveyClient(DAVEY_1, CALL);
    const ours1 = await OurClient.create(OURS_1, CALL, core);
    const ours2 = await OurClient.create(OURS_2, CALL, core);
    const davey2 = new DaveyClient(DAVEY_2, CALL);

    await call.join(davey1);
    await call.join(ours1);
    expectAgreement(call, [davey1, ours1], 1);
    // davey1 (leaf 0) got the proposals first, so its commits won.
    await call.join(ours2);
    expectAgreement(call, [davey1, ours1, ours2], 2);
    await call.join(davey2);
    expectAgreement(call, [davey1, ours1, ours2, davey2], 3);

    // davey commits the removal (an update path our sessions must decrypt).
    await call.leave(OURS_1);
    expectAgreement(call, [davey1, ours2, davey2], 4);
    await call.leave(DAVEY_1);
    expectAgreement(call, [ours2, davey2], 5);

    // The last but one leaves: sole member reset (op 24 epoch 1, op 21 id 0), a new key package.
    await call.leave(DAVEY_2);
    expect(call.ds.isEstablished).toBe(false);
    expect(ours2.ready).toBe(false);
    expect(ours2.executed.at(-1)).toBe(0);
    // A newcomer forms a new group with the survivor.
    const davey3 = new DaveyClient('1100000000000000023', CALL);
    await call.join(davey3);
    expectAgreement(call, [ours2, davey3], 1);
  });
});
