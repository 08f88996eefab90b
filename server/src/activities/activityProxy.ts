import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { isIP } from 'node:net';
import { parseAuthorization } from '../auth/authorizationHeader.ts';
import WebSocket, { WebSocketServer } from 'ws';
import { relay } from './wsRelay.ts';
import type { ServerContext } from '../ServerContext.ts';
import { activityServiceFor } from './ActivityService.ts';
import { activityCsp, proxiedApplicationId, resolveProxyUrl, rewriteSetCookie, stripHopByHop } from './proxyTarget.ts';
import type { UrlMapping } from './activitySettings.ts';
import { cachedMappings } from './proxyMappingsCache.ts';
import { type AddressAllowance, checkedLookup, publicAddressAllowed } from '../config/publicAddress.ts';

/** How long a target may take to send response headers before the proxy answers 504. */
const UPSTREAM_HEADERS_TIMEOUT_MS = 30_000;
/** Requests per client address and activity on the proxy host. */
export const PROXY_BUDGET = { bucket: 'activity.proxy', limit: 1200, windowMs: 10_000, key: 'address' as const };
/** The largest WebSocket message relayed either way. */
const WS_MAX_PAYLOAD = 16 * 1024 * 1024;

/** `activities.localhost` of `activities.localhost:3333`: the Host header is matched on its name, any port. */
export function proxyHostname(ctx: ServerContext): string {
  return (ctx.activityProxyHost?.() ?? 'activities.localhost').replace(/:\d+$/, '');
}

/** The origin an application's activity is served from: `http(s)://<id>.<proxy host>`. */
export function activityOrigin(ctx: ServerContext, applicationId: string): string {
  const scheme = new URL(ctx.publicHttpUrl()).protocol;
  return `${scheme}//${applicationId}.${ctx.activityProxyHost?.() ?? 'activities.localhost'}`;
}

/** The application's mappings, undefined where it has no enabled activity (cached a few seconds: proxyMappingsCache.ts). */
function mappingsOf(ctx: ServerContext, applicationId: string): Promise<UrlMapping[] | undefined> {
  return cachedMappings(ctx.store, applicationId, () => loadMappings(ctx, applicationId));
}

async function loadMappings(ctx: ServerContext, applicationId: string): Promise<UrlMapping[] | undefined> {
  const app = await ctx.store.applications.get(applicationId);
  if (!app || app.first_party === 1) return undefined;
  const settings = await activityServiceFor(ctx.store, ctx.urlPolicy).settings(applicationId);
  return settings.enabled ? settings.url_mappings : undefined;
}

/**
 * Where the proxy may connect: public unicast addresses, checked at connect time on the address
 * the name resolves to then (not only the name at save time: a name may resolve to 127.0.0.1 or
 * 169.254.169.254, or rebind after it was saved). Development mode adds loopback and private
 * addresses, as it does for the mappings themselves (a game on the developer's machine).
 */
function allowance(ctx: ServerContext): AddressAllowance {
  return ctx.urlPolicy.dev ? { loopback: true, private: true } : {};
}

/** net.connect skips `lookup` for IP literals: those are checked here, before any connection. */
function literalRefused(ctx: ServerContext, target: URL): boolean {
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) !== 0 && !publicAddressAllowed(host, allowance(ctx));
}

/**
 * The web app's own session credential (the bare token form only the platform's client sends,
 * auth.ts): it is the user's whole account, never the activity's business, so it is not passed
 * upstream. `Bearer` tokens are: an activity's page sends its backend the OAuth2 token it was
 * granted for its own application (the public platform's pattern), which its server already has.
 */
function isPlatformSessionCredential(header: string | string[] | undefined): boolean {
  return typeof header === 'string' && parseAuthorization(header)?.scheme === 'session';
}

function refuse(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send(message);
}

/**
 * The activity proxy host (issue 17). A request whose Host is `<application_id>.<proxy host>` never
 * reaches the platform's routes: it is forwarded by the application's URL mappings with
 * @fastify/reply-from (undici; bodies streamed both ways, never buffered), before routing, body
 * parsing or the API's hooks. Everything else passes through untouched.
 */
export function activityProxy(app: FastifyInstance, ctx: ServerContext): void {
  void app.register(replyFrom, {
    // One undici Agent: a pool per target origin, so a slow target ties up only its own connections.
    // `connect.lookup`: every new connection resolves and checks the target's addresses (above).
    undici: { connections: 64, pipelining: 1, headersTimeout: UPSTREAM_HEADERS_TIMEOUT_MS, bodyTimeout: 0, connect: { lookup: checkedLookup(allowance(ctx)) } },
    disableRequestLogging: true,
  });
  app.addHook('onRequest', async (req, reply) => {
    const applicationId = proxiedApplicationId(req.headers.host, proxyHostname(ctx));
    if (!applicationId) return;
    const mappings = await mappingsOf(ctx, applicationId);
    if (!mappings) return refuse(reply, 404, 'No activity here');
    // The proxy host's own budget per client address and activity: room for a page's assets and
    // its API calls, not for a flood through the platform (the API's route budgets never see these).
    if (ctx.rateLimiter) {
      const { allowed, window } = await ctx.rateLimiter.hit(`ip:${req.ip}:activity:${applicationId}`, PROXY_BUDGET);
      if (!allowed) return refuse(reply.header('retry-after', String(Math.max(1, Math.ceil((window.resetAt - Date.now()) / 1000)))), 429, 'Too many requests');
    }
    const proxyOrigin = activityOrigin(ctx, applicationId);
    const platformOrigin = new URL(ctx.publicHttpUrl()).origin;
    const csp = activityCsp(proxyOrigin, platformOrigin);
    if ((req.raw.url ?? '').split('?')[0] === BRIDGE_PATH) {
      return reply.code(200).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').header('content-security-policy', csp).header('referrer-policy', 'same-origin').send(bridgePage(platformOrigin));
    }
    const target = resolveProxyUrl(mappings, req.raw.url ?? '');
    if (!target) return refuse(reply, 400, 'This path is not served by the activity\'s URL mappings');
    if (literalRefused(ctx, target)) return refuse(reply, 502, 'The activity\'s server did not answer');
    // The raw request is the body: reply-from pipes a stream through instead of a parsed body.
    (req as { body?: unknown }).body = req.method === 'GET' || req.method === 'HEAD' ? undefined : req.raw;
    try {
      reply.from(target.href, {
        rewriteRequestHeaders: (_req, headers) => {
          const out = stripHopByHop(headers) as Record<string, string | string[] | undefined>;
          out.host = target.host;
          out['x-forwarded-host'] = req.headers.host;
          out['x-forwarded-proto'] = proxyOrigin.startsWith('https') ? 'https' : 'http';
          out['x-forwarded-for'] = req.ip;
          if (isPlatformSessionCredential(req.headers.authorization)) delete out.authorization;
          return out as typeof headers;
        },
        rewriteHeaders: (headers) => {
          const out = stripHopByHop(headers) as Record<string, string | string[] | number | undefined>;
          const cookies = rewriteSetCookie(out['set-cookie'] as string | string[] | undefined);
          if (cookies) out['set-cookie'] = cookies;
          const theirs = out['content-security-policy'];
          out['content-security-policy'] = theirs === undefined ? csp : [...(Array.isArray(theirs) ? theirs : [String(theirs)]), csp];
          // The page is shown in the web app's iframe and nowhere else.
          delete out['x-frame-options'];
          return out as typeof headers;
        },
        onError: (r, { error }) => {
          const status = (error as { statusCode?: number }).statusCode ?? 502;
          ctx.log.debug({ applicationId, status }, 'activity target unreachable');
          void refuse(r as unknown as FastifyReply, status > 500 ? status : 502, 'The activity\'s server did not answer');
        },
      });
    } catch {
      return refuse(reply, 400, 'This path is not served by the activity\'s URL mappings');
    }
    return reply;
  });
}

/**
 * The platform's page on the activity's own origin (`/.platform/activity-host`, before any
 * mapping; a prefix cannot start with a dot): the web app frames it, it frames the activity's
 * root with the same query, and relays frames between the two, checking each side's window and
 * origin. The public SDK accepts messages only from a short list of origins or its own origin
 * (protocols.md 6.1); through this page the host is always its own origin, so the web app works
 * on any origin and port.
 */
export const BRIDGE_PATH = '/.platform/activity-host';

function bridgePage(platformOrigin: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Activity</title>
<style>html,body{margin:0;height:100%;background:#000}iframe{display:block;border:0;width:100%;height:100%}</style></head>
<body><iframe id="activity" title="Activity" allow="autoplay; clipboard-write; fullscreen; microphone"></iframe>
<script>
(function () {
  var PLATFORM = ${JSON.stringify(platformOrigin)};
  var frame = document.getElementById('activity');
  window.addEventListener('message', function (e) {
    // The web app's liveness ping: answered here, never passed on. This page shares the activity's
    // origin and so its event loop: a hung activity cannot answer (see web activityLiveness.ts).
    if (e.source === parent && e.origin === PLATFORM && e.data && typeof e.data.platform_ping === 'number') return parent.postMessage({ platform_pong: e.data.platform_ping }, PLATFORM);
    if (e.source === frame.contentWindow && e.origin === location.origin) parent.postMessage(e.data, PLATFORM);
    else if (e.source === parent && e.origin === PLATFORM && frame.contentWindow) frame.contentWindow.postMessage(e.data, location.origin);
  });
  frame.src = '/' + location.search;
})();
</script></body></html>
`;
}

/**
 * WebSocket upgrades on the proxy host, before the platform's own upgrade routes: the client's
 * handshake is accepted only once the mapped target accepted its own (same subprotocol), then
 * messages are relayed both ways, text as text and binary as binary, and a close on either side
 * closes the other with its code. Returns false for upgrades that are not the proxy host's.
 */
export function activityUpgradeHandler(ctx: ServerContext): (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean {
  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_MAX_PAYLOAD, perMessageDeflate: false, handleProtocols: (_p, req) => (req as { upstreamProtocol?: string }).upstreamProtocol || false });
  const fail = (socket: Duplex, status: string) => {
    if (!socket.destroyed && socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  };
  return (req, socket, head) => {
    const applicationId = proxiedApplicationId(req.headers.host, proxyHostname(ctx));
    if (!applicationId) return false;
    void (async () => {
      const mappings = await mappingsOf(ctx, applicationId);
      if (!mappings) return fail(socket, '404 Not Found');
      // The same budget as the proxy host's HTTP requests: an upgrade is a request too.
      if (ctx.rateLimiter) {
        const { allowed } = await ctx.rateLimiter.hit(`ip:${req.socket.remoteAddress ?? ''}:activity:${applicationId}`, PROXY_BUDGET);
        if (!allowed) return fail(socket, '429 Too Many Requests');
      }
      const target = resolveProxyUrl(mappings, req.url ?? '');
      if (!target) return fail(socket, '400 Bad Request');
      if (literalRefused(ctx, target)) return fail(socket, '502 Bad Gateway');
      target.protocol = target.protocol === 'https:' ? 'wss:' : 'ws:';
      const protocols = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      const headers: Record<string, string> = {};
      for (const name of ['cookie', 'authorization', 'user-agent', 'origin']) {
        const v = req.headers[name];
        if (typeof v === 'string') headers[name] = v;
      }
      if (isPlatformSessionCredential(headers.authorization)) delete headers.authorization;
      headers['x-forwarded-host'] = req.headers.host ?? '';
      const upstream = new WebSocket(target.href, protocols, { headers, perMessageDeflate: false, maxPayload: WS_MAX_PAYLOAD, handshakeTimeout: UPSTREAM_HEADERS_TIMEOUT_MS, lookup: checkedLookup(allowance(ctx)) });
      let accepted = false;
      socket.once('close', () => {
        if (!accepted) upstream.terminate();
      });
      upstream.once('unexpected-response', (_r, res) => {
        res.resume();
        upstream.terminate();
        fail(socket, '502 Bad Gateway');
      });
      upstream.once('error', () => {
        if (!accepted) fail(socket, '502 Bad Gateway');
      });
      upstream.once('open', () => {
        if (socket.destroyed) return upstream.terminate();
        accepted = true;
        (req as { upstreamProtocol?: string }).upstreamProtocol = upstream.protocol;
        wss.handleUpgrade(req, socket, head, (client) => relay(client, upstream));
      });
    })().catch((err) => {
      ctx.log.error({ err }, 'activity websocket proxy failed');
      fail(socket, '500 Internal Server Error');
    });
    return true;
  };
}
