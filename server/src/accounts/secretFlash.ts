import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readCookie, SESSION_COOKIE } from './webSession.ts';

/**
 * Secrets a page shows once after a POST-redirect-GET (a new application's client secret and bot
 * token, a reset secret). The POST cannot render them, or a reload would repeat the POST; the URL
 * must not carry them; and any node of a cluster may answer the GET. So they travel in a
 * short-lived HttpOnly cookie, sealed (AES-256-GCM) with a key derived from the browser's own
 * session cookie, which the server keeps only hashed: nobody without that browser's session can
 * open it, and it opens for no other session. The first GET of the page it names takes it and
 * clears the cookie, so a reload shows nothing again.
 */
export const FLASH_COOKIE = 'sl_secret_flash';
const FLASH_PATH = '/developers/applications';
const FLASH_TTL_MS = 5 * 60_000;
const MAX_COOKIE = 3000;

export interface SecretFlash {
  /** The page path the secrets belong to; shown there only. */
  page: string;
  values: Record<string, string>;
}

function keyOf(session: string): Buffer {
  return Buffer.from(hkdfSync('sha256', session, 'social-layer secret flash', 'v1', 32));
}

/** Sets the cookie on a redirect: the secrets sealed for this browser's session. */
export function setSecretFlash(reply: FastifyReply, session: string, flash: SecretFlash, secure: boolean): void {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(session), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify({ ...flash, exp: Date.now() + FLASH_TTL_MS }), 'utf8'), cipher.final()]);
  const sealed = Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  void reply.header('set-cookie', `${FLASH_COOKIE}=${sealed}; Path=${FLASH_PATH}; HttpOnly; SameSite=Lax; Max-Age=${FLASH_TTL_MS / 1000}${secure ? '; Secure' : ''}`);
}

/**
 * The secrets for `page`, once: any flash cookie present is cleared by this reply (shown here or
 * not), and it opens only with this session and before it expires.
 */
export function takeSecretFlash(req: FastifyRequest, reply: FastifyReply, page: string): Record<string, string> | undefined {
  const sealed = readCookie(req, FLASH_COOKIE);
  if (sealed === undefined) return undefined;
  void reply.header('set-cookie', `${FLASH_COOKIE}=; Path=${FLASH_PATH}; HttpOnly; SameSite=Lax; Max-Age=0`);
  const session = readCookie(req, SESSION_COOKIE);
  if (!session || sealed.length > MAX_COOKIE) return undefined;
  try {
    const raw = Buffer.from(sealed, 'base64url');
    if (raw.length < 12 + 16 + 1) return undefined;
    const decipher = createDecipheriv('aes-256-gcm', keyOf(session), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    const text = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
    const flash = JSON.parse(text) as SecretFlash & { exp: number };
    return flash.page === page && flash.exp > Date.now() ? flash.values : undefined;
  } catch {
    // Sealed for another session, altered, or not ours: nothing to show.
    return undefined;
  }
}
