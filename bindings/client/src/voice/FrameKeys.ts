import { DaveFrameDecryptor, DaveFrameEncryptor, type KeyRatchet, type VoiceCore } from '@social-layer/core-wasm';

/**
 * The media keys of one call: our DAVE frame encryptor and one decryptor per sender, fed with
 * the per-sender key ratchets of the current MLS epoch. A ratchet object that changes is a new
 * epoch: the encryptor restarts its nonce, decryptors keep the old epoch for 10 s.
 */
export class FrameKeys {
  private encryptorRatchet: KeyRatchet | undefined;
  private ownEncryptor: DaveFrameEncryptor | undefined;
  private readonly decryptors = new Map<string, { ratchet: KeyRatchet; decryptor: DaveFrameDecryptor }>();

  constructor(private readonly core: VoiceCore) {}

  /** Our frames' encryptor; undefined until the group has keys (then nothing is sent). */
  get encryptor(): DaveFrameEncryptor | undefined {
    return this.ownEncryptor;
  }

  decryptor(userId: string): DaveFrameDecryptor | undefined {
    return this.decryptors.get(userId)?.decryptor;
  }

  setOwnRatchet(ratchet: KeyRatchet | undefined): void {
    if (ratchet === this.encryptorRatchet) return;
    this.encryptorRatchet = ratchet;
    if (!ratchet) {
      this.ownEncryptor?.destroy();
      this.ownEncryptor = undefined;
    } else if (this.ownEncryptor) this.ownEncryptor.setRatchet(ratchet);
    else this.ownEncryptor = new DaveFrameEncryptor(this.core, ratchet);
  }

  setSenderRatchet(userId: string, ratchet: KeyRatchet | undefined): void {
    const entry = this.decryptors.get(userId);
    if (!ratchet) return;
    if (!entry) this.decryptors.set(userId, { ratchet, decryptor: new DaveFrameDecryptor(this.core, ratchet) });
    else if (entry.ratchet !== ratchet) {
      entry.ratchet = ratchet;
      entry.decryptor.setRatchet(ratchet);
    }
  }

  removeSender(userId: string): void {
    this.decryptors.get(userId)?.decryptor.destroy();
    this.decryptors.delete(userId);
  }

  destroy(): void {
    this.setOwnRatchet(undefined);
    for (const id of [...this.decryptors.keys()]) this.removeSender(id);
  }
}
