import { createPublicKey, createSign, type JsonWebKey, type KeyObject, verify } from 'node:crypto';

/**
 * The little JWS we need, on node:crypto: compact serialization, RS256 signing for our ID tokens,
 * and verification of RS/PS/ES/EdDSA signatures with a JWK for the external OIDC tokens.
 * 'none' and the HMAC algorithms are never accepted: a public key must never be usable as an
 * HMAC secret.
 */
export interface JwtParts {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  signingInput: string;
  signature: Buffer;
}

export function b64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export function signRs256(header: Record<string, unknown>, payload: Record<string, unknown>, privateKey: KeyObject | string): string {
  const input = `${b64urlJson({ ...header, alg: 'RS256', typ: 'JWT' })}.${b64urlJson(payload)}`;
  const signature = createSign('RSA-SHA256').update(input).sign(privateKey).toString('base64url');
  return `${input}.${signature}`;
}

/** Splits and decodes a compact JWS; undefined when it is not one. */
export function decodeJwt(token: string): JwtParts | undefined {
  if (token.length > 16_384) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as unknown;
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown;
    if (!isObject(header) || !isObject(payload)) return undefined;
    return { header, payload, signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, 'base64url') };
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const SUPPORTED_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

/** Verifies the signature of `parts` with a JWK; false on any mismatch of algorithm and key. */
export function verifyWithJwk(parts: JwtParts, jwk: JsonWebKey): boolean {
  const alg = parts.header.alg;
  if (typeof alg !== 'string' || !(SUPPORTED_ALGS as readonly string[]).includes(alg)) return false;
  if (typeof jwk.alg === 'string' && jwk.alg !== alg) return false;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    return false;
  }
  const data = Buffer.from(parts.signingInput, 'ascii');
  const bits = alg === 'EdDSA' ? null : `sha${alg.slice(2)}`;
  try {
    if (alg.startsWith('RS')) return key.asymmetricKeyType === 'rsa' && verify(bits, data, key, parts.signature);
    if (alg.startsWith('PS')) {
      return key.asymmetricKeyType === 'rsa' && verify(bits, data, { key, padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: Number(alg.slice(2)) / 8 }, parts.signature);
    }
    if (alg.startsWith('ES')) return key.asymmetricKeyType === 'ec' && verify(bits, data, { key, dsaEncoding: 'ieee-p1363' }, parts.signature);
    return (key.asymmetricKeyType === 'ed25519' || key.asymmetricKeyType === 'ed448') && verify(null, data, key, parts.signature);
  } catch {
    return false;
  }
}
