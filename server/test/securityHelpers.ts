// Helpers of the security and attack suites: HTTP from a chosen loopback source address (Linux
// routes all of 127.0.0.0/8 to lo, so 127.0.0.2 and 127.0.0.3 are two different clients to the
// server), and raw sockets for slow-client attacks.
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function httpFrom(
  base: string,
  method: string,
  path: string,
  opts: { localAddress?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  // The path goes out as written (`//etc/passwd`, `/../x`): no URL parsing, no normalization.
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...(opts.body !== undefined ? { 'content-length': String(Buffer.byteLength(opts.body)) } : {}), ...opts.headers },
        localAddress: opts.localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.end(opts.body);
  });
}

/** Form body for page routes. */
export function form(fields: Record<string, string>): { headers: Record<string, string>; body: string } {
  return { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() };
}

/** A TCP socket to the server from `localAddress`, resolved once connected. */
export function rawSocket(base: string, localAddress?: string): Promise<Socket> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const s = connect({ host: url.hostname, port: Number(url.port), localAddress }, () => resolve(s));
    s.once('error', reject);
  });
}

/** Resolves when the socket closes (by either side), with what it received. */
export function closed(socket: Socket): Promise<string> {
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  return new Promise((resolve) => {
    if (socket.destroyed) resolve(received);
    socket.once('close', () => resolve(received));
  });
}
