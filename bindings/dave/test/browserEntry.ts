// Bundled by browser.test.ts and run in headless Chromium: a delivery service and three client
// sessions form a group, one leaves, and media frames go through core-wasm's frame cipher.
import { CoreError, DaveFrameDecryptor, DaveFrameEncryptor, HashRatchet, VoiceCore } from '@social-layer/core-wasm';
import { VoiceOpcode } from '@social-layer/protocol';
import { DaveDeliveryService, DaveSession, type DaveOutput, type DaveSessionResult } from '../src/index.ts';

const CALL = '1300000000000000321';
const IDS = ['1100000000000000061', '1100000000000000062', '1100000000000000063'];

async function run(): Promise<unknown> {
  const core = await VoiceCore.create({ poolBytes: 1 << 20 });
  const ds = await DaveDeliveryService.create(CALL);
  const sessions = new Map<string, DaveSession>();
  const queue: { to: string; op: number; json?: unknown; binary?: Uint8Array }[] = [];
  const errors: string[] = [];
  const push = (out: DaveOutput) => {
    for (const m of out) for (const to of m.to === 'all' ? [...sessions.keys()] : m.to) queue.push({ ...m, to });
  };
  const reply = (from: string, r: DaveSessionResult) => {
    if (r.error) errors.push(`${from}: ${r.error}`);
    for (const m of r.send) {
      const d = m.json as { transition_id: number };
      if (m.op === VoiceOpcode.DaveMlsKeyPackage) push(ds.keyPackage(from, m.binary!));
      else if (m.op === VoiceOpcode.DaveMlsCommitWelcome) push(ds.commitWelcome(from, m.binary!));
      else if (m.op === VoiceOpcode.DaveTransitionReady) push(ds.transitionReady(from, d.transition_id));
      else if (m.op === VoiceOpcode.DaveMlsInvalidCommitWelcome) push(ds.invalidCommitWelcome(from, d.transition_id));
    }
  };
  const drain = async () => {
    while (queue.length > 0) {
      const m = queue.shift()!;
      const s = sessions.get(m.to);
      if (!s) continue;
      const json = m.json as never;
      const r =
        m.op === VoiceOpcode.DaveMlsProposals ? await s.onProposals(m.binary!)
        : m.op === VoiceOpcode.DaveMlsAnnounceCommitTransition ? await s.onCommit(m.binary!)
        : m.op === VoiceOpcode.DaveMlsWelcome ? await s.onWelcome(m.binary!)
        : m.op === VoiceOpcode.DaveExecuteTransition ? await s.onExecuteTransition(json)
        : m.op === VoiceOpcode.DavePrepareTransition ? await s.onPrepareTransition(json)
        : m.op === VoiceOpcode.DavePrepareEpoch ? await s.onPrepareEpoch(json)
        : undefined;
      if (r) reply(m.to, r);
    }
  };
  for (const id of IDS) {
    const s = await DaveSession.create({ userId: id, callId: CALL, core });
    for (const [other, o] of sessions) {
      o.onClientsConnect([id]);
      s.onClientsConnect([other]);
    }
    sessions.set(id, s);
    ds.memberConnected(id);
    reply(id, await s.onExternalSender(ds.externalSenderPayload()));
    push(ds.keyPackage(id, s.keyPackage()));
    await drain();
  }
  const [a, b, c] = IDS.map((id) => sessions.get(id)!) as [DaveSession, DaveSession, DaveSession];
  const epochAfterJoins = ds.epoch;
  const frame = new TextEncoder().encode('hello from a browser');
  const encrypt = () => {
    const enc = new DaveFrameEncryptor(core, a.senderKeyRatchet(a.userId)!);
    const out = new Uint8Array(frame.length + 32);
    const n = enc.encrypt(frame, frame.length, out);
    enc.destroy();
    return out.slice(0, n);
  };
  const decrypt = (s: DaveSession, packet: Uint8Array) => {
    const base = s.senderBaseSecret(a.userId);
    if (!base) return CoreError.NoKey;
    const dec = new DaveFrameDecryptor(core, new HashRatchet(core, base));
    const out = new Uint8Array(packet.length);
    const n = dec.decrypt(packet, packet.length, out);
    dec.destroy();
    return n < 0 ? n : new TextDecoder().decode(out.subarray(0, n));
  };
  const before = encrypt();
  const decryptedBefore = [decrypt(b, before), decrypt(c, before)];
  sessions.delete(c.userId);
  push(ds.memberDisconnected(c.userId));
  b.onClientDisconnect(c.userId);
  a.onClientDisconnect(c.userId);
  await drain();
  const after = encrypt();
  return {
    secureContext: globalThis.isSecureContext,
    errors,
    epochAfterJoins,
    epochAfterLeave: ds.epoch,
    codes: [a.voicePrivacyCode, b.voicePrivacyCode],
    decryptedBefore,
    decryptedAfter: [decrypt(b, after), decrypt(c, after)],
  };
}

(globalThis as { daveResult?: Promise<unknown> }).daveResult = run().catch((e: unknown) => ({
  error: e instanceof Error ? `${e.message}\n${e.stack}` : String(e),
}));
