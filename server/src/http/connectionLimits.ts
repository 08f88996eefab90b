import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Slow-client limits of the HTTP server (issue 9, security fix 3). Node's defaults let a request
 * take 300 s and fastify turns even that off, so a body trickled a byte at a time held a socket
 * and a request slot forever.
 *
 * - The whole request (headers and body) must arrive within `requestTimeoutMs`; Node checks every
 *   `checkIntervalMs`, so a trickled body is cut (408) after at most the sum: 22 s.
 * - Headers must arrive within `headersTimeoutMs`.
 * - An idle keep-alive connection closes after `keepAliveTimeoutMs`.
 * Upgraded sockets (Gateway, voice) leave Node's HTTP bookkeeping at the upgrade, so these limits
 * never touch a WebSocket; their own heartbeats watch them.
 */
export const HTTP_TIMEOUTS = {
  requestTimeoutMs: 20_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 2_000,
} as const;

/** The fastify options that apply HTTP_TIMEOUTS to its Node server. */
export function httpServerOptions(): { requestTimeout: number; keepAliveTimeout: number; http: ServerOptions } {
  return {
    requestTimeout: HTTP_TIMEOUTS.requestTimeoutMs,
    keepAliveTimeout: HTTP_TIMEOUTS.keepAliveTimeoutMs,
    http: { headersTimeout: HTTP_TIMEOUTS.headersTimeoutMs, connectionsCheckingInterval: HTTP_TIMEOUTS.checkIntervalMs },
  };
}

/** Default cap on simultaneous TCP connections (HTTP and WebSocket alike) from one client address. */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 128;

/**
 * Caps simultaneous connections per client address: one address opening hundreds of slow sockets
 * gets the excess closed at once and cannot starve everyone else of file descriptors and request
 * slots. Counts the socket's peer address (the server trusts no proxy header); behind a load
 * balancer, the balancer's own limits apply instead.
 */
export function capConnectionsPerAddress(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
