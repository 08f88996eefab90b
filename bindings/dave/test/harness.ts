// A stand-in for the voice gateway: routes DaveDeliveryService output to clients and their
// replies back, the way the real gateway will (bytes in, DaveOutput out), in order.
import { VoiceOpcode } from '@social-layer/protocol';
import type { VoiceCore } from '@social-layer/core-wasm';
import davey from '@snazzah/davey';
import * as dave from '../src/index.ts';
import type { DaveDeliveryService, DaveSession, DaveOutput, DaveSend } from '../src/index.ts';

/** The package under test: the sources, or a bundle of them. */
export type DaveLib = Pick<typeof dave, 'DaveDeliveryService' | 'DaveSession'>;

export interface Reply {
  op: number;
  json?: unknown;
  binary?: Uint8Array;
}

export interface TestClient {
  readonly userId: string;
  readonly kind: 'ours' | 'davey';
  /** What the client sends right after op 4 (its key package). */
  start(): Promise<Reply[]>;
  receive(op: number, payload: { json?: unknown; binary?: Uint8Array }): Promise<Reply[]>;
  readonly epoch: number;
  readonly ready: boolean;
  readonly privacyCode: string | undefined;
  /** Log of what went wrong while handling messages. */
  readonly errors: string[];
  /** Transitions executed, in order. */
  readonly executed: number[];
}

/** Our client session behind the TestClient shape. */
export class OurClient implements TestClient {
  readonly kind = 'ours';
  readonly errors: string[] = [];
  readonly executed: number[] = [];
  private constructor(
    readonly userId: string,
    readonly session: DaveSession,
  ) {}

  /** Replies this client drops instead of sending (to play a slow or broken member). */
  readonly drop = new Set<number>();

  static async create(userId: string, callId: string, core?: VoiceCore, lib: DaveLib = dave): Promise<OurClient> {
    return new OurClient(userId, await lib.DaveSession.create({ userId, callId, ...(core ? { core } : {}) }));
  }

  get epoch(): number {
    return this.session.epoch;
  }

  get ready(): boolean {
    return this.session.ready;
  }

  get privacyCode(): string | undefined {
    return this.session.voicePrivacyCode;
  }

  async start(): Promise<Reply[]> {
    return [{ op: VoiceOpcode.DaveMlsKeyPackage, binary: this.session.keyPackage() }];
  }

  async receive(op: number, payload: { json?: unknown; binary?: Uint8Array }): Promise<Reply[]> {
    const s = this.session;
    const d = payload.json as { protocol_version: number; transition_id: number; epoch: number };
    switch (op) {
      case VoiceOpcode.ClientsConnect:
        s.onClientsConnect((payload.json as { user_ids: string[] }).user_ids);
        return [];
      case VoiceOpcode.ClientDisconnect:
        s.onClientDisconnect((payload.json as { user_id: string }).user_id);
        return [];
    }
    const r = await (() => {
      switch (op) {
        case VoiceOpcode.DaveMlsExternalSender:
          return s.onExternalSender(payload.binary!);
        case VoiceOpcode.DaveMlsProposals:
          return s.onProposals(payload.binary!);
        case VoiceOpcode.DaveMlsAnnounceCommitTransition:
          return s.onCommit(payload.binary!);
        case VoiceOpcode.DaveMlsWelcome:
          return s.onWelcome(payload.binary!);
        case VoiceOpcode.DavePrepareTransition:
          return s.onPrepareTransition(d);
        case VoiceOpcode.DaveExecuteTransition:
          return s.onExecuteTransition(d);
        case VoiceOpcode.DavePrepareEpoch:
          return s.onPrepareEpoch(d);
        default:
          throw new Error(`unexpected op ${op}`);
      }
    })();
    if (r.error) this.errors.push(`op ${op}: ${r.error}`);
    if (r.executedTransition !== undefined) this.executed.push(r.executedTransition);
    return r.send.filter((m: DaveSend) => !this.drop.has(m.op)).map((m: DaveSend) => ({ ...m }));
  }
}

/** A @snazzah/davey session driven as @discordjs/voice's DAVESession and Networking drive it. */
export class DaveyClient implements TestClient {
  readonly kind = 'davey';
  readonly errors: string[] = [];
  readonly executed: number[] = [];
  readonly session: InstanceType<typeof davey.DAVESession>;
  private readonly connected = new Set<string>();
  private readonly pending = new Map<number, number>();

  constructor(
    readonly userId: string,
    readonly callId: string,
  ) {
    this.session = new davey.DAVESession(1, userId, callId);
  }

  get epoch(): number {
    return this.session.ready ? Number(this.session.epoch ?? 0n) : 0;
  }

  get ready(): boolean {
    return this.session.ready;
  }

  get privacyCode(): string | undefined {
    return this.session.ready ? this.session.voicePrivacyCode : undefined;
  }

  /** Binary messages dropped because they came before op 4, as @discordjs/voice drops them. */
  readonly droppedEarly: number[] = [];
  private started = false;

  async start(): Promise<Reply[]> {
    this.started = true;
    return [{ op: VoiceOpcode.DaveMlsKeyPackage, binary: new Uint8Array(this.session.getSerializedKeyPackage()) }];
  }

  private reinit(): Reply[] {
    this.session.reinit(1, this.userId, this.callId);
    return [{ op: VoiceOpcode.DaveMlsKeyPackage, binary: new Uint8Array(this.session.getSerializedKeyPackage()) }];
  }

  async receive(op: number, payload: { json?: unknown; binary?: Uint8Array }): Promise<Reply[]> {
    const s = this.session;
    const d = payload.json as { transition_id: number; protocol_version: number; epoch: number; user_ids: string[]; user_id: string };
    const bin = payload.binary ? Buffer.from(payload.binary) : Buffer.alloc(0);
    if (payload.binary && !this.started) {
      this.droppedEarly.push(op);
      return [];
    }
    try {
      switch (op) {
        case VoiceOpcode.ClientsConnect:
          for (const id of d.user_ids) this.connected.add(id);
          return [];
        case VoiceOpcode.ClientDisconnect:
          this.connected.delete(d.user_id);
          return [];
        case VoiceOpcode.DaveMlsExternalSender:
          s.setExternalSender(bin);
          return [];
        case VoiceOpcode.DaveMlsProposals: {
          const { commit, welcome } = s.processProposals(bin.readUInt8(0), bin.subarray(1), [...this.connected]);
          if (!commit) return [];
          return [{ op: VoiceOpcode.DaveMlsCommitWelcome, binary: new Uint8Array(welcome ? Buffer.concat([commit, welcome]) : commit) }];
        }
        case VoiceOpcode.DaveMlsAnnounceCommitTransition:
        case VoiceOpcode.DaveMlsWelcome: {
          const transitionId = bin.readUInt16BE(0);
          try {
            if (op === VoiceOpcode.DaveMlsWelcome) s.processWelcome(bin.subarray(2));
            else s.processCommit(bin.subarray(2));
          } catch (e) {
            this.errors.push(`op ${op}: ${String(e)}`);
            return [{ op: VoiceOpcode.DaveMlsInvalidCommitWelcome, json: { transition_id: transitionId } }, ...this.reinit()];
          }
          if (transitionId === 0) {
            this.executed.push(0);
            return [];
          }
          this.pending.set(transitionId, 1);
          return [{ op: VoiceOpcode.DaveTransitionReady, json: { transition_id: transitionId } }];
        }
        case VoiceOpcode.DavePrepareTransition:
          this.pending.set(d.transition_id, d.protocol_version);
          if (d.transition_id === 0) {
            this.executed.push(0);
            return [];
          }
          return [{ op: VoiceOpcode.DaveTransitionReady, json: { transition_id: d.transition_id } }];
        case VoiceOpcode.DaveExecuteTransition:
          if (this.pending.delete(d.transition_id)) this.executed.push(d.transition_id);
          return [];
        case VoiceOpcode.DavePrepareEpoch:
          return d.epoch === 1 ? this.reinit() : [];
        default:
          throw new Error(`unexpected op ${op}`);
      }
    } catch (e) {
      this.errors.push(`op ${op}: ${String(e)}`);
      return [];
    }
  }
}

export interface Envelope {
  to: string;
  op: number;
  json?: unknown;
  binary?: Uint8Array;
}

/** The gateway's side: one DaveDeliveryService, clients, and an in-order message pump. */
export class TestCall {
  readonly clients = new Map<string, TestClient>();
  private readonly queue: Envelope[] = [];
  /** Every message the gateway sent, for assertions. */
  readonly sent: Envelope[] = [];
  /** Whose commit won each epoch, in order. */
  readonly committers: string[] = [];
  clock = 0;

  private constructor(readonly ds: DaveDeliveryService) {}

  static async create(callId: string, lib: DaveLib = dave): Promise<TestCall> {
    let call: TestCall | undefined;
    const ds = await lib.DaveDeliveryService.create(callId, { now: () => call!.clock });
    call = new TestCall(ds);
    return call;
  }

  /**
   * Identify -> op 11 both ways and op 25 (where the voice gateway sends it today), then op 4
   * (the client's key package). A davey client drops that early op 25 as @discordjs/voice does;
   * the delivery service sends op 25 again ahead of the proposals for a key package's sender.
   */
  async join(client: TestClient): Promise<void> {
    this.connect(client);
    await this.pump();
    await this.fromClient(client.userId, await client.start());
    await this.pump();
  }

  /** Identify and what the gateway sends for it (op 11 both ways, op 25), queued but not delivered. */
  connect(client: TestClient): void {
    const others = [...this.clients.keys()];
    this.clients.set(client.userId, client);
    this.ds.memberConnected(client.userId);
    this.enqueue([{ to: [client.userId], op: VoiceOpcode.ClientsConnect, json: { user_ids: others } }]);
    if (others.length > 0) this.enqueue([{ to: others, op: VoiceOpcode.ClientsConnect, json: { user_ids: [client.userId] } }]);
    this.enqueue([{ to: [client.userId], op: VoiceOpcode.DaveMlsExternalSender, binary: this.ds.externalSenderPayload() }]);
  }

  /** Messages queued for `userId`, removed from the queue (to deliver by hand). */
  take(userId: string, op: number): Envelope[] {
    const taken = this.queue.filter((m) => m.to === userId && m.op === op);
    for (const m of taken) this.queue.splice(this.queue.indexOf(m), 1);
    return taken;
  }

  async leave(userId: string): Promise<void> {
    this.clients.delete(userId);
    this.enqueue(this.ds.memberDisconnected(userId));
    const others = [...this.clients.keys()];
    if (others.length > 0) this.enqueue([{ to: others, op: VoiceOpcode.ClientDisconnect, json: { user_id: userId } }]);
    await this.pump();
  }

  /** Advances the clock and lets pending transitions time out. */
  async advance(ms: number): Promise<void> {
    this.clock += ms;
    this.enqueue(this.ds.tick(this.clock));
    await this.pump();
  }

  enqueue(out: DaveOutput): void {
    for (const m of out) {
      const to = m.to === 'all' ? [...this.clients.keys()] : m.to;
      for (const id of to) this.queue.push({ to: id, op: m.op, json: m.json, binary: m.binary });
    }
  }

  /** Delivers queued messages until nothing is left. */
  async pump(): Promise<void> {
    for (let guard = 0; this.queue.length > 0; guard++) {
      if (guard > 10_000) throw new Error('message loop');
      const m = this.queue.shift()!;
      this.sent.push(m);
      const client = this.clients.get(m.to);
      if (!client) continue;
      await this.fromClient(m.to, await client.receive(m.op, m));
    }
  }

  /** Replies of a client, as the gateway dispatches them to the delivery service. */
  async fromClient(userId: string, replies: Reply[]): Promise<void> {
    for (const r of replies) {
      const d = r.json as { transition_id: number };
      switch (r.op) {
        case VoiceOpcode.DaveMlsKeyPackage:
          this.enqueue(this.ds.keyPackage(userId, r.binary!));
          break;
        case VoiceOpcode.DaveMlsCommitWelcome: {
          const out = this.ds.commitWelcome(userId, r.binary!);
          if (out.length > 0) this.committers.push(userId);
          this.enqueue(out);
          break;
        }
        case VoiceOpcode.DaveTransitionReady:
          this.enqueue(this.ds.transitionReady(userId, d.transition_id));
          break;
        case VoiceOpcode.DaveMlsInvalidCommitWelcome:
          this.enqueue(this.ds.invalidCommitWelcome(userId, d.transition_id));
          break;
        default:
          throw new Error(`unexpected client op ${r.op}`);
      }
    }
  }
}
