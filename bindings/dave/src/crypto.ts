/**
 * Synchronous P-256 and SHA-256 for the MLS pieces this package does itself (external
 * proposals, key package and proposal checks, references). @noble/* is pure JavaScript, so it
 * runs the same in Node and browsers and needs no `node:` import.
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concat, vector } from './tls.ts';

const encoder = new TextEncoder();

export interface SignatureKeyPair {
  /** 32-byte scalar. */
  privateKey: Uint8Array;
  /** Uncompressed SEC1 point (65 bytes), as MLS and DAVE clients encode P-256 keys. */
  publicKey: Uint8Array;
}

export function generateSignatureKeyPair(): SignatureKeyPair {
  const privateKey = p256.utils.randomSecretKey();
  return { privateKey, publicKey: p256.getPublicKey(privateKey, false) };
}

/** SignWithLabel (RFC 9420 5.1.2): ECDSA P-256 over SHA-256, DER-encoded, low S. */
export function signWithLabel(privateKey: Uint8Array, label: string, content: Uint8Array): Uint8Array {
  return p256.sign(signContent(label, content), privateKey, { prehash: true, format: 'der', lowS: true });
}

/** VerifyWithLabel; false (never a throw) for malformed keys or signatures. */
export function verifyWithLabel(publicKey: Uint8Array, label: string, content: Uint8Array, signature: Uint8Array): boolean {
  try {
    return p256.verify(signature, signContent(label, content), publicKey, { prehash: true, format: 'der', lowS: false });
  } catch {
    return false;
  }
}

function signContent(label: string, content: Uint8Array): Uint8Array {
  return concat(vector(encoder.encode(`MLS 1.0 ${label}`)), vector(content));
}

/** RefHash(label, value) (RFC 9420 5.2) with SHA-256. */
export function refHash(label: string, value: Uint8Array): Uint8Array {
  return sha256(concat(vector(encoder.encode(label)), vector(value)));
}

export function isValidP256PublicKey(key: Uint8Array): boolean {
  try {
    p256.Point.fromBytes(key).assertValidity();
    return true;
  } catch {
    return false;
  }
}
