import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { publicAddressAllowed } from '../config/publicAddress.ts';

/**
 * The one way the platform sends HTTP to a URL a developer gave it (webhook events). It is an
 * SSRF guard first:
 * - https only; plain http and loopback addresses only in development mode;
 * - the host is resolved once, every address it resolves to must be public unicast (no private,
 *   link-local, loopback, CGNAT, multicast, NAT64/6to4/Teredo-embedded or reserved ranges; IPv4
 *   written as `127.1`, `0x7f000001` or `[::ffff:127.0.0.1]` is normalized before the check),
 *   and the connection goes to the checked address (a custom `lookup`), so a second DNS answer
 *   cannot point it elsewhere (rebinding);
 * - redirects are never followed (a 3xx is a failed delivery);
 * - connect and response deadlines, and at most `maxBodyBytes` of the body are read.
 * Refusals happen before any connection is opened.
 */
export interface SafeFetchOptions {
  /** Development mode: http:// and loopback addresses are allowed (local receivers). */
  allowLoopback: boolean;
  /** DNS resolution (tests inject one); default: the system resolver, every address. */
  resolve?: (hostname: string) => Promise<{ address: string; family: number }[]>;
  connectTimeoutMs?: number;
  /**
   * A destination `checkDestination` already resolved and checked for this URL (the delivery
   * worker checks once per batch, not per event: one DNS lookup per batch). The connection is
   * pinned to it as to a fresh one.
   */
  destination?: { address: string; family: number };
  /** From the start of the request to the response's status line. */
  responseTimeoutMs?: number;
  maxBodyBytes?: number;
}

export interface SafeResponse {
  status: number;
  /** At most maxBodyBytes of the body, as text. */
  body: string;
  latencyMs: number;
}

export type SafeFetchErrorCode = 'invalid_url' | 'refused_address' | 'dns' | 'timeout' | 'network';

export class SafeFetchError extends Error {
  constructor(readonly code: SafeFetchErrorCode, message: string) {
    super(message);
    this.name = 'SafeFetchError';
  }
}

const MAX_URL_LENGTH = 2048;

/** Checks a URL's form (no DNS): scheme, no credentials, length. Returns the parsed URL. */
export function parseWebhookUrl(raw: string, allowLoopback: boolean): URL {
  if (raw.length > MAX_URL_LENGTH) throw new SafeFetchError('invalid_url', `URL longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SafeFetchError('invalid_url', 'not a valid URL');
  }
  if (url.protocol !== 'https:' && !(allowLoopback && url.protocol === 'http:')) throw new SafeFetchError('invalid_url', 'the URL must use https');
  if (url.username || url.password) throw new SafeFetchError('invalid_url', 'the URL must not carry credentials');
  if (!url.hostname) throw new SafeFetchError('invalid_url', 'the URL has no host');
  return url;
}

/** Whether an address may be connected to: public unicast, or loopback in development mode (the shared rules, publicAddress.ts). */
export function addressAllowed(address: string, allowLoopback: boolean): boolean {
  return publicAddressAllowed(address, { loopback: allowLoopback });
}

/**
 * Resolves and checks the URL's host; returns the address to connect to. Plain http is only for
 * loopback receivers in development mode.
 */
export async function checkDestination(url: URL, opts: SafeFetchOptions): Promise<{ address: string; family: number }> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await (opts.resolve ?? ((h) => dnsLookup(h, { all: true, verbatim: true })))(host);
    } catch (err) {
      throw new SafeFetchError('dns', `could not resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    if (addresses.length === 0) throw new SafeFetchError('dns', `could not resolve ${host}`);
  }
  // Every answer must pass: a name with one public and one private address is refused outright.
  for (const a of addresses) {
    if (!addressAllowed(a.address, opts.allowLoopback)) throw new SafeFetchError('refused_address', `${host} resolves to a private, loopback, link-local or reserved address`);
  }
  const chosen = addresses[0]!;
  if (url.protocol === 'http:' && ipaddr.process(chosen.address).range() !== 'loopback') throw new SafeFetchError('invalid_url', 'the URL must use https');
  return { address: ipaddr.process(chosen.address).toString(), family: ipaddr.process(chosen.address).kind() === 'ipv6' ? 6 : 4 };
}

const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) };

/** POSTs `body` to `rawUrl` under the rules above. Rejects with SafeFetchError; any HTTP status resolves. */
export async function safePost(rawUrl: string, headers: Record<string, string>, body: string, opts: SafeFetchOptions): Promise<SafeResponse> {
  const url = parseWebhookUrl(rawUrl, opts.allowLoopback);
  const started = performance.now();
  const dest = opts.destination ?? (await checkDestination(url, opts));
  // Pinned: whatever the name resolves to now, the socket goes to the address just checked.
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [dest]);
    else callback(null, dest.address, dest.family);
  };
  const responseTimeoutMs = opts.responseTimeoutMs ?? 3000;
  const connectTimeoutMs = Math.min(opts.connectTimeoutMs ?? 3000, responseTimeoutMs);
  const maxBodyBytes = opts.maxBodyBytes ?? 4096;
  const secure = url.protocol === 'https:';
  const payload = Buffer.from(body);

  return new Promise<SafeResponse>((resolve, reject) => {
    let settled = false;
    const finish = (err: SafeFetchError | null, res?: SafeResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(connectDeadline);
      if (err) {
        req.destroy();
        reject(err);
      } else resolve(res!);
    };
    const req = (secure ? https : http).request({
      protocol: url.protocol,
      // The name stays the Host header and the TLS server name; only the address is pinned.
      hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      lookup: pinned,
      agent: secure ? agents.https : agents.http,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length), 'user-agent': 'SocialLayer-Webhooks/1.0' },
    });
    const deadline = setTimeout(() => finish(new SafeFetchError('timeout', `no response within ${responseTimeoutMs} ms`)), responseTimeoutMs);
    const connectDeadline = setTimeout(() => finish(new SafeFetchError('timeout', `could not connect within ${connectTimeoutMs} ms`)), connectTimeoutMs);
    req.on('socket', (socket) => {
      // A reused keep-alive socket is already connected.
      if (!socket.connecting) clearTimeout(connectDeadline);
      else socket.once('connect', () => clearTimeout(connectDeadline));
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish(new SafeFetchError('network', err.code ?? err.message)));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => finish(null, { status, body: Buffer.concat(chunks).toString('utf8'), latencyMs: Math.round(performance.now() - started) });
      res.on('data', (chunk: Buffer) => {
        if (size < maxBodyBytes) chunks.push(chunk.subarray(0, maxBodyBytes - size));
        size += chunk.length;
        // Over the cap: stop reading and drop the connection rather than drain a large body.
        if (size > maxBodyBytes) {
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', done);
      res.on('aborted', done);
    });
    req.end(payload);
  });
}
