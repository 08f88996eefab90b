import { createHash, createPrivateKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { SigningKeyRepo } from '../storage/SigningKeyRepo.ts';
import { signRs256 } from './jwt.ts';

/**
 * The keys that sign our OpenID ID tokens (RS256, the algorithm every OIDC client supports),
 * published as a JWKS. The first key is made on first use and kept in the database.
 */
export class SigningKeys {
  private current: Promise<{ kid: string; key: KeyObject; jwks: JsonWebKey[] }> | undefined;

  constructor(private readonly repo: SigningKeyRepo) {}

  private load(): Promise<{ kid: string; key: KeyObject; jwks: JsonWebKey[] }> {
    this.current ??= (async () => {
      let rows = await this.repo.all();
      if (rows.length === 0) {
        const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
        const jwk = publicKey.export({ format: 'jwk' });
        // RFC 7638 thumbprint: a kid that names the key itself.
        const kid = createHash('sha256').update(JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n })).digest('base64url');
        await this.repo.add({ kid, alg: 'RS256', private_pem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, public_jwk: JSON.stringify(jwk), created_at: Date.now() });
        rows = await this.repo.all();
      }
      const newest = rows[0]!;
      return {
        kid: newest.kid,
        key: createPrivateKey(newest.private_pem),
        jwks: rows.map((r) => ({ ...(JSON.parse(r.public_jwk) as JsonWebKey), kid: r.kid, alg: r.alg, use: 'sig' })),
      };
    })();
    this.current.catch(() => (this.current = undefined));
    return this.current;
  }

  async jwks(): Promise<{ keys: JsonWebKey[] }> {
    return { keys: (await this.load()).jwks };
  }

  async sign(payload: Record<string, unknown>): Promise<string> {
    const { kid, key } = await this.load();
    return signRs256({ kid }, payload, key);
  }
}
