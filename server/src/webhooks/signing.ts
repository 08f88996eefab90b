import { createPrivateKey, type KeyObject, sign } from 'node:crypto';

/**
 * Ed25519 signatures of outgoing webhooks, as the public receivers check them: hex
 * `X-Signature-Ed25519` over the bytes of `X-Signature-Timestamp` (unix seconds) followed by the
 * raw body, with the application's key (its public half is the `verify_key`).
 */
export class WebhookSigner {
  private readonly keys = new Map<string, KeyObject>();

  /** `pkcs8Hex`: the private key as stored (ApplicationKeysTable.private_key). */
  key(applicationId: string, pkcs8Hex: string): KeyObject {
    let key = this.keys.get(applicationId);
    if (!key) {
      key = createPrivateKey({ key: Buffer.from(pkcs8Hex, 'hex'), format: 'der', type: 'pkcs8' });
      this.keys.set(applicationId, key);
    }
    return key;
  }

  static headers(key: KeyObject, body: string, now = Date.now()): Record<string, string> {
    const timestamp = String(Math.floor(now / 1000));
    const signature = sign(null, Buffer.concat([Buffer.from(timestamp), Buffer.from(body)]), key).toString('hex');
    return { 'x-signature-ed25519': signature, 'x-signature-timestamp': timestamp };
  }
}
