import { readFileSync } from 'node:fs';
import { developmentCertificate } from './devTls.ts';

/**
 * How the server's one listener does TLS (HTTP API, Gateway and voice gateway alike):
 * - `{ certFile, keyFile }` or `{ cert, key }`: a certificate the operator gives (`--tls-cert`,
 *   `--tls-key`); any mode.
 * - `'self-signed'` (`--tls` without files): development mode's generated certificate
 *   (devTls.ts, cached in the data folder); production mode refuses, because a deployed platform
 *   needs a real certificate.
 * - absent: plain HTTP, the default, so `npm start` and the samples keep working without one.
 * Voice clients such as @discordjs/voice always dial `wss://<endpoint>`, which is why guild voice
 * for them needs one of the first two.
 */
export type TlsSetting = { certFile: string; keyFile: string } | { cert: string | Buffer; key: string | Buffer } | 'self-signed';

export interface ResolvedTls {
  key: string | Buffer;
  cert: string | Buffer;
  /** Where it came from, for the startup line. */
  source: 'given' | 'self-signed (generated)' | 'self-signed (cached)';
}

export async function resolveTls(setting: TlsSetting | undefined, context: { dataDir: string; dev: boolean; host: string }): Promise<ResolvedTls | undefined> {
  if (setting === undefined) return undefined;
  if (setting === 'self-signed') {
    // The listen host joins the certificate's names when it is a specific address.
    const hosts = context.host === '0.0.0.0' || context.host === '::' ? [] : [context.host];
    const made = await developmentCertificate(context.dataDir, { dev: context.dev, hosts });
    return { key: made.key, cert: made.cert, source: made.generated ? 'self-signed (generated)' : 'self-signed (cached)' };
  }
  if ('certFile' in setting) {
    const read = (file: string, what: string) => {
      try {
        return readFileSync(file);
      } catch (err) {
        throw new Error(`Cannot read the TLS ${what} file ${file}: ${(err as Error).message}`);
      }
    };
    return { cert: read(setting.certFile, 'certificate'), key: read(setting.keyFile, 'key'), source: 'given' };
  }
  return { cert: setting.cert, key: setting.key, source: 'given' };
}
