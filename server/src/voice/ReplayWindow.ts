/**
 * SRTP-style replay protection over the 32-bit nonce counter of the rtpsize modes: accepts each
 * nonce once, tolerates reordering within the last 64 packets (UDP reorders), and refuses
 * anything older. Client nonces live in [1, 2^31); the relay's own use the upper half, so one
 * shared key never seals two packets with the same nonce.
 *
 * The 64-bit seen-mask is two 32-bit words, not a BigInt: this runs for every inbound packet,
 * and BigInt shifts allocate (they showed in the relay's CPU profile and its GC).
 */
export class ReplayWindow {
  private highest = 0;
  /** Bit i set = nonce (highest - i) was seen, for i in 0..31. */
  private low = 0;
  /** Bit i set = nonce (highest - 32 - i) was seen, for i in 0..31. */
  private high = 0;

  static readonly SIZE = 64;

  /** True when `nonce` is new and inside the window. Does not record it: call accept() after decrypting. */
  check(nonce: number): boolean {
    if (!(nonce > 0 && nonce < 0x8000_0000)) return false;
    if (nonce > this.highest) return true;
    const age = this.highest - nonce;
    if (age >= ReplayWindow.SIZE) return false;
    return age < 32 ? (this.low & (1 << age)) === 0 : (this.high & (1 << (age - 32))) === 0;
  }

  accept(nonce: number): void {
    if (nonce > this.highest) {
      const shift = nonce - this.highest;
      if (shift >= ReplayWindow.SIZE) {
        this.high = 0;
        this.low = 1;
      } else if (shift >= 32) {
        // JS shifts count mod 32: the two cases keep every shift amount in 1..31 (or none).
        this.high = shift === 32 ? this.low : this.low << (shift - 32);
        this.low = 1;
      } else {
        this.high = (this.high << shift) | (this.low >>> (32 - shift));
        this.low = (this.low << shift) | 1;
      }
      this.highest = nonce;
    } else {
      const age = this.highest - nonce;
      if (age < 32) this.low |= 1 << age;
      else if (age < ReplayWindow.SIZE) this.high |= 1 << (age - 32);
    }
  }
}
