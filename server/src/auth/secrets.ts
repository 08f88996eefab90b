import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new 256-bit secret (tokens, bot tokens, client secrets), base64url: 43 characters. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Secrets are stored only as SHA-256 hashes; a 256-bit random secret needs no slow hash. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function secretMatches(secret: string, hash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
