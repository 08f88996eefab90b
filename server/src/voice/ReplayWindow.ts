/**
 * SRTP-style replay protection over the 32-bit nonce counter of the rtpsize modes: accepts each
 * nonce once, tolerates reordering within the last 64 packets (UDP reorders), and refuses
 * anything older. Client nonces live in [1, 2^31); the relay's own use the upper half, so one
 * shared key never seals two packets with the same nonce.
 */
export class ReplayWindow {
  private highest = 0;
  /** Bit i set = nonce (highest - i) was seen. */
  private seen = 0n;

  static readonly SIZE = 64;

  /** True when `nonce` is new and inside the window. Does not record it: call accept() after decrypting. */
  check(nonce: number): boolean {
    if (nonce <= 0 || nonce >= 0x8000_0000) return false;
    if (nonce > this.highest) return true;
    const age = this.highest - nonce;
    if (age >= ReplayWindow.SIZE) return false;
    return (this.seen & (1n << BigInt(age))) === 0n;
  }

  accept(nonce: number): void {
    if (nonce > this.highest) {
      const shift = nonce - this.highest;
      this.seen = shift >= ReplayWindow.SIZE ? 1n : ((this.seen << BigInt(shift)) | 1n) & ((1n << 64n) - 1n);
      this.highest = nonce;
    } else {
      this.seen |= 1n << BigInt(this.highest - nonce);
    }
  }
}
