import type { DaveSession, DaveSessionResult } from '@social-layer/dave';
import { VoiceOpcode } from '@social-layer/protocol';
import type { FrameKeys } from './FrameKeys.ts';

/** How the bridge talks back on the voice gateway. */
export interface DaveBridgeHost {
  sendJson(op: number, d: unknown): void;
  sendBinary(op: number, body: Uint8Array): void;
  log(message: string): void;
  verbose?(message: string): void;
}

/**
 * Feeds the voice gateway's DAVE messages (ops 21-31) to the MLS session (@social-layer/dave)
 * and its key changes to the frame ciphers: a new epoch gives every remote sender's decryptor
 * the new ratchet at once (old keys stay for 10 s); our encryptor switches when the transition
 * executes (op 22, or at once for transition 0), as protocols.md 4.2 says.
 */
export class DaveBridge {
  private keyPackageSent = false;
  private externalSenderSeen = false;
  private descriptionSeen = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    readonly session: DaveSession,
    private readonly keys: FrameKeys,
    private readonly host: DaveBridgeHost,
  ) {}

  get ready(): boolean {
    return this.session.ready;
  }

  onClientsConnect(userIds: readonly string[]): void {
    this.session.onClientsConnect(userIds);
  }

  onClientDisconnect(userId: string): void {
    this.session.onClientDisconnect(userId);
  }

  /** Session Description arrived: the first key package goes out once op 25 was handled too. */
  onSessionDescription(): void {
    this.descriptionSeen = true;
    this.enqueue(async () => this.maybeSendKeyPackage());
  }

  onBinary(op: number, body: Uint8Array): void {
    const copy = body.slice();
    this.enqueue(async () => {
      switch (op) {
        case VoiceOpcode.DaveMlsExternalSender:
          this.apply(await this.session.onExternalSender(copy), op);
          this.externalSenderSeen = true;
          this.maybeSendKeyPackage();
          return;
        case VoiceOpcode.DaveMlsProposals:
          return this.apply(await this.session.onProposals(copy), op);
        case VoiceOpcode.DaveMlsAnnounceCommitTransition:
          return this.apply(await this.session.onCommit(copy), op);
        case VoiceOpcode.DaveMlsWelcome:
          return this.apply(await this.session.onWelcome(copy), op);
        default:
          this.host.log(`DAVE binary op ${op} ignored`);
      }
    });
  }

  onJson(op: number, d: unknown): void {
    const data = (d ?? {}) as Record<string, number>;
    this.enqueue(async () => {
      switch (op) {
        case VoiceOpcode.DavePrepareTransition:
          return this.apply(
            await this.session.onPrepareTransition({ protocol_version: data.protocol_version ?? 1, transition_id: data.transition_id ?? 0 }),
            op,
          );
        case VoiceOpcode.DaveExecuteTransition:
          return this.apply(await this.session.onExecuteTransition({ transition_id: data.transition_id ?? 0 }), op);
        case VoiceOpcode.DavePrepareEpoch:
          return this.apply(await this.session.onPrepareEpoch({ protocol_version: data.protocol_version ?? 1, epoch: data.epoch ?? 0 }), op);
        default:
          this.host.log(`DAVE op ${op} ignored`);
      }
    });
  }

  /** Resolves when every message handed over so far has been processed (tests). */
  settled(): Promise<void> {
    return this.chain;
  }

  private maybeSendKeyPackage(): void {
    if (this.keyPackageSent || !this.externalSenderSeen || !this.descriptionSeen || this.session.ready) return;
    try {
      this.host.sendBinary(VoiceOpcode.DaveMlsKeyPackage, this.session.keyPackage());
      this.host.verbose?.('DAVE key package sent');
      this.keyPackageSent = true;
    } catch (error) {
      this.host.log(`no key package to send: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private apply(result: DaveSessionResult, op: number): void {
    if (result.error) this.host.log(`DAVE op ${op}: ${result.error}`);
    this.host.verbose?.(
      `DAVE op ${op} -> send [${result.send.map((m) => m.op).join(',')}], keys ${result.keysChanged ? 'changed' : 'same'}` +
        `${result.executedTransition !== undefined ? `, executed ${result.executedTransition}` : ''}, epoch ${this.session.epoch}`,
    );
    for (const message of result.send) {
      if (message.op === VoiceOpcode.DaveMlsKeyPackage) this.keyPackageSent = true;
      if (message.binary) this.host.sendBinary(message.op, message.binary);
      else this.host.sendJson(message.op, message.json ?? null);
    }
    const self = this.session.userId;
    if (result.keysChanged) {
      for (const id of this.session.members()) {
        if (id !== self) this.keys.setSenderRatchet(id, this.session.senderKeyRatchet(id));
      }
    }
    if (result.executedTransition !== undefined && this.session.ready) {
      this.keys.setOwnRatchet(this.session.senderKeyRatchet(self));
    }
  }

  private enqueue(task: () => Promise<void>): void {
    this.chain = this.chain.then(task).catch((error: unknown) => {
      this.host.log(`DAVE handling failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}
