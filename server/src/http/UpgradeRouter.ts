import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) => void;

/**
 * One `upgrade` listener for the HTTP server, routing WebSocket upgrades by path to the Gateway,
 * the voice gateway and the voice media sockets. Unknown paths are refused.
 */
export class UpgradeRouter {
  private readonly routes = new Map<string, UpgradeHandler>();
  /** Checked before the paths: a handler that takes an upgrade by its Host (the activity proxy host, issue 17) returns true. */
  private readonly interceptors: ((req: IncomingMessage, socket: Duplex, head: Buffer) => boolean)[] = [];

  constructor(server: Server) {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      for (const take of this.interceptors) if (take(req, socket, head)) return;
      const url = new URL(req.url ?? '/', 'http://localhost');
      const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
      const handler = this.routes.get(path);
      if (!handler) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
      }
      handler(req, socket, head, url);
    });
  }

  intercept(handler: (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean): void {
    this.interceptors.push(handler);
  }

  route(path: string, handler: UpgradeHandler): void {
    this.routes.set(path, handler);
  }
}
