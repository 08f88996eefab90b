import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A TLS certificate for development mode, for whatever needs https on a developer's machine (an
 * activity in an iframe, a game page that requires a secure context, a webhook receiver that
 * insists on https). Generated once with `selfsigned` (an EC P-256 key, valid for localhost,
 * 127.0.0.1 and ::1 plus any extra hosts, 30 days) and kept in `<dataDir>/dev-tls/`, so a browser
 * exception or a trusted CA entry survives restarts; regenerated when it is about to expire or
 * does not name a host asked for. Production mode refuses: a deployed platform uses a real
 * certificate, and a self-signed one would teach users to click through warnings.
 */
export interface DevCertificate {
  key: string;
  cert: string;
  /** True when this call made a new one. */
  generated: boolean;
}

const DEFAULT_HOSTS = ['localhost', '127.0.0.1', '::1'];
const VALID_DAYS = 30;
const RENEW_BEFORE_MS = 24 * 3600_000;

export async function developmentCertificate(dataDir: string, options: { dev: boolean; hosts?: string[]; now?: Date }): Promise<DevCertificate> {
  if (!options.dev) throw new Error('A self-signed certificate is only made in development mode (--dev); production needs a real certificate.');
  const hosts = [...new Set([...DEFAULT_HOSTS, ...(options.hosts ?? [])])];
  const now = options.now ?? new Date();
  const dir = join(dataDir, 'dev-tls');
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  if (existsSync(keyFile) && existsSync(certFile)) {
    const key = readFileSync(keyFile, 'utf8');
    const cert = readFileSync(certFile, 'utf8');
    if (stillGood(cert, hosts, now)) return { key, cert, generated: false };
  }
  const ip = (h: string) => /^[\d.]+$/.test(h) || h.includes(':');
  // Loaded only when a certificate is made: selfsigned and its crypto library are about 15 MB.
  const { generate } = await import('selfsigned');
  const made = await generate([{ name: 'commonName', value: 'Social Layer development' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + VALID_DAYS * 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: hosts.map((h) => (ip(h) ? { type: 7 as const, ip: h } : { type: 2 as const, value: h })) },
    ],
  });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(keyFile, made.private, { mode: 0o600 });
  writeFileSync(certFile, made.cert);
  return { key: made.private, cert: made.cert, generated: true };
}

function stillGood(pem: string, hosts: string[], now: Date): boolean {
  try {
    const cert = new X509Certificate(pem);
    if (new Date(cert.validFrom).getTime() > now.getTime()) return false;
    if (new Date(cert.validTo).getTime() - now.getTime() < RENEW_BEFORE_MS) return false;
    return hosts.every((h) => (/^[\d.]+$/.test(h) || h.includes(':') ? cert.checkIP(h) !== undefined : cert.checkHost(h) !== undefined));
  } catch {
    return false;
  }
}
