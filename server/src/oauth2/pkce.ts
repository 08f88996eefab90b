import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636: verifiers and S256 challenges are 43-128 characters of the unreserved set. */
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

export function isValidVerifier(v: string): boolean {
  return PKCE_VALUE.test(v);
}

/** An S256 challenge is the base64url SHA-256 of the verifier: always 43 characters. */
export function isValidChallenge(c: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(c);
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!isValidVerifier(verifier)) return false;
  const a = Buffer.from(s256(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}
