import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerContext } from '../ServerContext.ts';
import type { UsersTable } from '../storage/schema.ts';
import { isBanned } from './AccountService.ts';

/**
 * Browser sessions of the platform pages: an HttpOnly, SameSite=Lax cookie holding a 256-bit
 * random value (stored hashed), a per-session CSRF token in every form, and an Origin check on
 * every POST, so another site can neither read nor forge the pages' requests.
 */
export const SESSION_COOKIE = 'sl_session';
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

export function readCookie(req: FastifyRequest, name: string): string | undefined {
  const header = req.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

export async function currentWebUser(ctx: ServerContext, req: FastifyRequest): Promise<{ user: UsersTable; csrf: string; cookie: string } | undefined> {
  const cookie = readCookie(req, SESSION_COOKIE);
  if (!cookie || cookie.length > 128) return undefined;
  const session = await ctx.store.accounts.session(cookie);
  if (!session) return undefined;
  const user = await ctx.store.users.get(session.userId);
  if (!user || isBanned(user)) return undefined;
  return { user, csrf: session.csrf, cookie };
}

export function setSessionCookie(reply: FastifyReply, value: string, secure: boolean): void {
  void reply.header('set-cookie', `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_TTL_MS / 1000}${secure ? '; Secure' : ''}`);
}

export function clearSessionCookie(reply: FastifyReply): void {
  void reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`);
}

/** A POST from our own pages: the Origin (or, without one, the Referer) names this host. */
export function sameOrigin(ctx: ServerContext, req: FastifyRequest): boolean {
  const own = ctx.publicHttpUrl();
  const origin = req.headers.origin;
  if (typeof origin === 'string') return origin === own;
  const referer = req.headers.referer;
  if (typeof referer === 'string') return referer === own || referer.startsWith(`${own}/`);
  // Neither header: not a browser form post of another site (browsers send Origin on POSTs).
  return true;
}

/** Where to go after signing in: only paths on this site, never another origin. */
export function safeNext(next: string | null | undefined, fallback = '/account'): string {
  if (!next || next.length > 4096) return fallback;
  // Browsers drop tabs and newlines from URLs, so "/\t/evil.example" would become the
  // protocol-relative "//evil.example": refuse control characters and whitespace outright.
  if (/[\u0000-\u001f\u007f\s]/.test(next)) return fallback;
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return fallback;
  return next;
}

export function isSecure(ctx: ServerContext, req: FastifyRequest): boolean {
  return ctx.publicHttpUrl().startsWith('https:');
}

/**
 * Headers of every platform page: no framing (the consent page must not be clickjacked), no
 * caching, no scripts. The referrer policy is same-origin, not no-referrer: with no-referrer
 * browsers send `Origin: null` on form posts, which the Origin check would refuse.
 */
export function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('content-security-policy', "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'")
    .header('referrer-policy', 'same-origin');
}
