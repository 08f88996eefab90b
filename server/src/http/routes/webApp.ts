import { esc } from '../../pages/html.ts';
import { createHash } from 'node:crypto';
import { access, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Limits } from '@social-layer/protocol';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clearSessionCookie, currentWebUser, safeNext } from '../../accounts/webSession.ts';
import { KNOWN_SCOPES, tokenScopes } from '../../oauth2/scopes.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { ApiError, Errors } from '../ApiError.ts';
import type { BucketRule } from '../RateLimiter.ts';
import { HtmlPage, NoContent, pageRoute, Redirect, Type } from '../schemas/index.ts';

/**
 * The platform's web app at /app (server/web/). The page itself is a shell for the bundle; the
 * app talks to the public REST API and Gateway like any client, with a first-party session token
 * (`Authorization: <token>`, no scheme; http/auth.ts) that it gets here, from the signed-in
 * account page session (the `sl_session` cookie):
 *
 * - GET /app/... serves the shell only to a signed-in browser (others go to /login and back), with
 *   the session's CSRF token in a meta tag. The shell is no-store, never framed, and has no CORS
 *   headers, so another site can neither read the CSRF token nor frame the page.
 * - POST /app/session hands the page a session token when three things hold: the cookie session,
 *   an Origin header naming this server exactly (a missing one is refused here, unlike the forms:
 *   every browser sends Origin on fetch POSTs), and the CSRF token in X-CSRF-Token. The custom
 *   header and JSON body make a cross-origin call a preflighted one that this route never
 *   approves (no CORS on non-/api paths), and the Origin check refuses it even if a browser sent
 *   it anyway. The answer is no-store.
 * - POST /app/session/logout ends the cookie session and revokes the user's first-party session
 *   tokens (other tabs and devices just exchange again through their own cookie).
 *
 * Tokens never appear in a URL: the exchange is a POST body answer and the app keeps the token in
 * memory only (server/web/README.md says why).
 */

/** server/web/dist, where `npm run build` puts the bundle. */
const WEB_DIST = resolve(fileURLToPath(new URL('../../../web/dist/', import.meta.url)));
// voice.js: the client SDK for guild voice, imported by app.js only when the user joins voice.
const ASSETS: Record<string, string> = { 'app.js': 'text/javascript; charset=utf-8', 'app.css': 'text/css; charset=utf-8', 'voice.js': 'text/javascript; charset=utf-8' };

/**
 * The bundle in memory, read again only when its file changes (a rebuild during development):
 * a stat per request instead of reading the whole bundle, and an ETag so a browser revalidating
 * (`no-cache`) gets a 304 instead of the file again.
 */
const assetCache = new Map<string, { mtimeMs: number; size: number; body: string; etag: string }>();
async function readAsset(name: string): Promise<{ body: string; etag: string } | undefined> {
  const file = join(WEB_DIST, name);
  const st = await stat(file).catch(() => undefined);
  if (!st) return undefined;
  const hit = assetCache.get(name);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit;
  const body = await readFile(file, 'utf8').catch(() => undefined);
  if (!body) return undefined;
  const entry = { mtimeMs: st.mtimeMs, size: st.size, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  assetCache.set(name, entry);
  return entry;
}

/** Session tokens handed to the page live a day; the app exchanges again on a 401. */
export const WEB_APP_TOKEN_TTL_SECONDS = Math.min(Limits.accessTokenTtlSeconds, 24 * 3600);

const PAGE_LIMIT: BucketRule = { bucket: 'webapp.page', limit: 120, windowMs: 60_000, key: 'address' };
const ASSET_LIMIT: BucketRule = { bucket: 'webapp.assets', limit: 240, windowMs: 60_000, key: 'address' };
const SESSION_LIMIT: BucketRule = { bucket: 'webapp.session', limit: 30, windowMs: 60_000, key: 'address' };
const PAGE_CONFIG = { config: { rateLimit: PAGE_LIMIT } };

const SessionAnswer = Type.Object(
  {
    token: Type.String({ description: 'First-party session token: send as `Authorization: <token>` (no scheme)' }),
    expires_in: Type.Integer({ description: 'Seconds until the token expires' }),
    user: Type.Object({ id: Type.String(), username: Type.String(), global_name: Type.Union([Type.String(), Type.Null()]) }),
  },
  { title: 'WebAppSession' },
);
// The X-CSRF-Token header (the /app page's `csrf-token` meta tag) is documented in the
// description, not as a headers schema: the validator drops headers a schema does not name,
// which would take the cookie and Origin with it.
const CSRF_NOTE = 'Needs the `sl_session` cookie, an Origin header naming this server, and `X-CSRF-Token` with the /app page\'s `csrf-token` meta value.';

function shell(csrf: string, wsOrigin: string, activityFrames: string): { html: string; csp: string } {
  const csp = [
    "default-src 'none'",
    // Voice (voice.js): the SDK compiles its WebAssembly (codec framing, E2EE) and loads its
    // AudioWorklet from a Blob URL it makes itself; nothing else on the page is a blob.
    "script-src 'self' 'wasm-unsafe-eval' blob:",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${wsOrigin}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    // Embedded apps (issue 17): activities are framed from <application_id>.<activity proxy host> only.
    `frame-src ${activityFrames}`,
    "base-uri 'none'",
  ].join('; ');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${esc(csrf)}">
<title>Social Layer</title>
<link rel="stylesheet" href="/app/assets/app.css">
<script type="module" src="/app/assets/app.js"></script>
</head>
<body>
<div id="app"><p class="boot">Loading…</p></div>
</body>
</html>
`;
  return { html, csp };
}

/** A POST from a page of this server, by its Origin header; a missing Origin is refused. */
function fromOwnPage(ctx: ServerContext, req: FastifyRequest): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  return req.headers.origin === ctx.publicHttpUrl();
}

const notFromHere = () => new ApiError(403, 0, 'This request must come from the Social Layer web app on this site');

export async function webAppRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  const page = async (req: FastifyRequest, reply: FastifyReply) => {
    const me = await currentWebUser(ctx, req);
    if (!me) return reply.redirect(`/login?next=${encodeURIComponent(safeNext(req.raw.url, '/app'))}`, 303);
    const built = await access(join(WEB_DIST, 'app.js')).then(() => true, () => false);
    const headers = reply.header('cache-control', 'no-store').header('x-frame-options', 'DENY').header('referrer-policy', 'same-origin').header('x-content-type-options', 'nosniff');
    if (!built) return headers.code(503).type('text/plain; charset=utf-8').send('The web app is not built: run `npm run build`.');
    const wsOrigin = new URL(ctx.publicWsUrl()).origin;
    const proxy = ctx.activityProxyHost?.() ?? 'activities.localhost';
    const { html, csp } = shell(me.csrf, wsOrigin, `${new URL(ctx.publicHttpUrl()).protocol}//*.${proxy}`);
    return headers.header('content-security-policy', csp).type('text/html; charset=utf-8').send(html);
  };
  const pageRouteOf = (summary: string) =>
    pageRoute({ summary, response: { 200: HtmlPage('The web app\'s page (the bundle renders it)'), 303: Redirect('Not signed in: to /login, then back'), 503: { description: 'The bundle is not built', content: { 'text/plain': { schema: Type.String() } } } } });
  r.get('/app', { ...pageRouteOf('The web app (guilds, channels, members, invites)'), ...PAGE_CONFIG }, async (req, reply) => page(req, reply));
  // Deep links (a guild, a channel, an invite) all get the same page; the app routes on the path.
  r.get('/app/*', { ...pageRouteOf('The web app at one of its own paths (e.g. /app/invite/CODE)'), ...PAGE_CONFIG }, async (req, reply) => page(req, reply));

  r.get('/app/assets/:name', {
    schema: {
      summary: 'The web app\'s bundle (app.js, app.css, voice.js)',
      tags: ['pages'],
      params: Type.Object({ name: Type.String({ pattern: '^(app\\.(js|css)|voice\\.js)$', description: 'app.js, app.css or voice.js' }) }),
      response: { 200: { description: 'The file', content: { 'text/javascript': { schema: Type.String() }, 'text/css': { schema: Type.String() } } }, 304: Type.Unsafe<void>({ type: 'null', description: 'Unchanged since the ETag the browser holds (revalidation)' }) },
    },
    validatorCompiler: pageRoute({ summary: '' }).validatorCompiler,
    config: { rateLimit: ASSET_LIMIT },
  }, async (req, reply) => {
    const name = req.params.name;
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    const asset = type ? await readAsset(name) : undefined;
    if (!type || !asset) throw Errors.notFound();
    void reply.header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').header('etag', asset.etag);
    if (req.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(type).send(asset.body);
  });

  r.post('/app/session', {
    schema: {
      summary: 'Hand the signed-in web app page its first-party session token (same-origin, CSRF-checked; never cross-origin)',
      description: CSRF_NOTE,
      tags: ['pages'],
      body: Type.Optional(Type.Object({})),
      response: { 200: SessionAnswer },
    },
    config: { rateLimit: SESSION_LIMIT },
  }, async (req, reply) => {
    void reply.header('cache-control', 'no-store');
    const me = await currentWebUser(ctx, req);
    if (!me) throw Errors.unauthorized();
    if (!fromOwnPage(ctx, req) || req.headers['x-csrf-token'] !== me.csrf) throw notFromHere();
    const client = await ctx.store.applications.firstParty();
    const token = await ctx.store.tokens.issue(me.user.id, client.id, tokenScopes([...KNOWN_SCOPES]), WEB_APP_TOKEN_TTL_SECONDS);
    return { token, expires_in: WEB_APP_TOKEN_TTL_SECONDS, user: { id: me.user.id, username: me.user.username, global_name: me.user.global_name } };
  });

  r.post('/app/session/logout', {
    schema: {
      summary: 'Sign the web app out: ends the cookie session and revokes the user\'s first-party session tokens',
      description: CSRF_NOTE,
      tags: ['pages'],
      body: Type.Optional(Type.Object({})),
      response: { 204: NoContent },
    },
    config: { rateLimit: SESSION_LIMIT },
  }, async (req, reply) => {
    const me = await currentWebUser(ctx, req);
    if (!me) throw Errors.unauthorized();
    if (!fromOwnPage(ctx, req) || req.headers['x-csrf-token'] !== me.csrf) throw notFromHere();
    const client = await ctx.store.applications.firstParty();
    await ctx.store.tokens.revokeAll(ctx.store.database.db, me.user.id, client.id);
    // Their Gateway sessions close with 4004, as for any revoked token.
    ctx.accounts.gateway?.closeUserSessions(me.user.id, client.id);
    await ctx.store.accounts.closeSession(me.cookie);
    clearSessionCookie(reply);
    return reply.code(204).send();
  });
}
