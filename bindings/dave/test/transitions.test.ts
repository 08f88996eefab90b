// Transitions and recovery: op 22 after everyone's op 23 or after the ~2 s timeout, op 31
// (remove and re-add), a pending member leaving before its Add is committed (revoke), the
// sole-member reset, and the watchdog for proposals nobody commits.
import { beforeAll, describe, expect, it } from 'vitest';
import { VoiceCore } from '@social-layer/core-wasm';
import { VoiceOpcode } from '@social-layer/protocol';
import { OurClient, TestCall } from './harness.ts';

const CALL = '1300000000000000099';
const A = '1100000000000000041';
const B = '1100000000000000042';
const C = '1100000000000000043';

let core: VoiceCore;
beforeAll(async () => {
  core = await VoiceCore.create({ poolBytes: 1 << 20 });
});

async function group(...ids: string[]): Promise<{ call: TestCall; clients: OurClient[] }> {
  const call = await TestCall.create(CALL);
  const clients: OurClient[] = [];
  for (const id of ids) {
    const client = await OurClient.create(id, CALL, core);
    clients.push(client);
    await call.join(client);
  }
  return { call, clients };
}

function sentOps(call: TestCall, op: number): unknown[] {
  return call.sent.filter((m) => m.op === op).map((m) => [m.to, m.json]);
}

describe('transitions', () => {
  it('executes after everyone is ready, or after the timeout when someone is silent', async () => {
    const { call, clients } = await group(A, B);
    const [a, b] = clients as [OurClient, OurClient];
    expect(a.executed).toEqual([1]);
    expect(b.executed).toEqual([1]);

    // C never sends op 23 (a slow or broken client).
    const c = await OurClient.create(C, CALL, core);
    c.drop.add(VoiceOpcode.DaveTransitionReady);
    await call.join(c);
    expect(call.ds.epoch).toBe(2);
    expect(call.ds.pendingTransitions()).toEqual([2]);
    expect(call.ds.inspect().transitions).toEqual([{ id: 2, waiting: [C], deadline: 2000 }]);
    // Keys for epoch 2 are there already (receivers switch at once), sending waits for op 22.
    for (const x of [a, b, c]) expect(x.epoch).toBe(2);
    expect(a.executed).toEqual([1]);

    await call.advance(1999);
    expect(call.ds.pendingTransitions()).toEqual([2]);
    await call.advance(1);
    expect(call.ds.pendingTransitions()).toEqual([]);
    expect(sentOps(call, VoiceOpcode.DaveExecuteTransition).at(-1)).toEqual([C, { transition_id: 2 }]);
    for (const x of [a, b, c]) expect(x.executed.at(-1)).toBe(2);
    expect(a.session.lastTransitionId).toBe(2);
  });

  it('a member that reports an unprocessable commit (op 31) is removed and re-added', async () => {
    const { call, clients } = await group(A, B, C);
    const [a, b, c] = clients as [OurClient, OurClient, OurClient];
    expect(call.ds.epoch).toBe(2);
    const leavesBefore = call.ds.inspect().leaves;

    // B lost its state (as after a commit it could not process): op 31, reset, new key package.
    const reset = await b.session.reset();
    expect(b.ready).toBe(false);
    expect(reset.send.map((m) => m.op)).toEqual([VoiceOpcode.DaveMlsKeyPackage]);
    await call.fromClient(B, [{ op: VoiceOpcode.DaveMlsInvalidCommitWelcome, json: { transition_id: 2 } }, ...reset.send]);
    expect(call.ds.inspect().proposals.map((p) => [p.kind, p.userId])).toEqual([
      ['remove', B],
      ['add', B],
    ]);
    await call.pump();

    // One commit removed the stale leaf and added the new one.
    expect(call.ds.epoch).toBe(3);
    expect(call.ds.inspect().leaves).toEqual(leavesBefore);
    for (const x of [a, b, c]) {
      expect(x.errors).toEqual([]);
      expect(x.epoch).toBe(3);
      expect(x.privacyCode).toBe(a.privacyCode);
      expect(Buffer.from(x.session.senderBaseSecret(B)!).toString('hex')).toBe(
        Buffer.from(a.session.senderBaseSecret(B)!).toString('hex'),
      );
    }
    // B was welcomed, not sent the commit.
    const lastCommit = call.sent.filter((m) => m.op === VoiceOpcode.DaveMlsAnnounceCommitTransition).at(-1)!;
    expect(call.sent.filter((m) => m.op === VoiceOpcode.DaveMlsAnnounceCommitTransition && m.binary === lastCommit.binary).map((m) => m.to)).toEqual([A, C]);
  });

  it('a joiner who leaves before being committed has its Add revoked', async () => {
    const { call, clients } = await group(A, B);
    const [a, b] = clients as [OurClient, OurClient];
    const c = await OurClient.create(C, CALL, core);
    call.connect(c);
    await call.pump();
    call.enqueue(call.ds.keyPackage(C, c.session.keyPackage()));
    // C leaves before A and B see its Add: their commits come too late, the revoke clears it.
    await call.leave(C);
    expect(call.ds.inspect().proposals).toEqual([]);
    const revokes = call.sent.filter((m) => m.op === VoiceOpcode.DaveMlsProposals && m.binary![0] === 1);
    expect(revokes.map((m) => m.to)).toEqual([A, B]);
    expect(call.ds.epoch).toBe(1);
    expect(call.ds.members()).toEqual([A, B]);
    for (const x of [a, b]) {
      expect(x.errors).toEqual([]);
      expect(x.epoch).toBe(1);
    }
    // The group still works: the next joiner is committed normally.
    await call.join(await OurClient.create('1100000000000000044', CALL, core));
    expect(call.ds.epoch).toBe(2);
  });

  it('the last member left alone starts over (sole member reset) and a newcomer forms a new group', async () => {
    const { call, clients } = await group(A, B);
    const [a] = clients as [OurClient, OurClient];
    await call.leave(B);
    expect(sentOps(call, VoiceOpcode.DavePrepareEpoch)).toEqual([[A, { protocol_version: 1, epoch: 1 }]]);
    expect(sentOps(call, VoiceOpcode.DavePrepareTransition)).toEqual([[A, { protocol_version: 1, transition_id: 0 }]]);
    expect(call.ds.isEstablished).toBe(false);
    expect(a.ready).toBe(false);
    expect(a.executed.at(-1)).toBe(0);
    // A sent a fresh key package on op 24; it waits for company.
    expect(call.ds.inspect().keyPackages).toEqual([A]);

    const c = await OurClient.create(C, CALL, core);
    await call.join(c);
    expect(call.ds.epoch).toBe(1);
    expect(call.ds.members().sort()).toEqual([A, C].sort());
    expect(a.errors).toEqual([]);
    expect(c.privacyCode).toBe(a.privacyCode);
  });

  it('re-creates the group when nobody commits the proposals (watchdog)', async () => {
    const call = await TestCall.create(CALL);
    const a = await OurClient.create(A, CALL, core);
    const b = await OurClient.create(B, CALL, core);
    for (const x of [a, b]) x.drop.add(VoiceOpcode.DaveMlsCommitWelcome);
    await call.join(a);
    await call.join(b);
    expect(call.ds.isEstablished).toBe(false);
    expect(call.ds.inspect().proposals).toHaveLength(2);
    await call.advance(9_999);
    expect(call.ds.stalls).toBe(0);
    // The commits come through from now on; the watchdog makes everyone start over.
    for (const x of [a, b]) x.drop.clear();
    await call.advance(1);
    expect(call.ds.stalls).toBe(1);
    expect(sentOps(call, VoiceOpcode.DavePrepareEpoch)).toEqual([
      [A, { protocol_version: 1, epoch: 1 }],
      [B, { protocol_version: 1, epoch: 1 }],
    ]);
    expect(call.ds.epoch).toBe(1);
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    expect(a.privacyCode).toBe(b.privacyCode);
    expect(a.privacyCode).toMatch(/^\d{30}$/);
  });

  it('everyone leaving at once leaves nothing behind', async () => {
    const { call } = await group(A, B, C);
    await call.leave(A);
    await call.leave(B);
    await call.leave(C);
    expect(call.ds.inspect()).toEqual({
      established: false,
      epoch: 0,
      leaves: [],
      proposals: [],
      keyPackages: [],
      connected: [],
      transitions: [],
    });
  });
});
