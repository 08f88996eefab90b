/**
 * The fan-out benchmarks' peers (`lobby-fanout`, `presence-fanout`): a bare node:http server with
 * a `ws` server on it, no platform behind either.
 * - `broadcast(frame)` writes one frame to every socket: the floor of a fan-out, `raw_ws`, timed
 *   from the broadcast's start.
 * - `POST /messages?bytes=N` with `{ content }`: the least a server can do when the message comes
 *   in as an HTTP request, as a lobby message does (protocols.md 2.6, `POST
 *   /lobbies/{id}/messages`). It reads and parses the body, builds a LOBBY_MESSAGE_CREATE frame of
 *   N bytes around the content, writes it to every socket and answers with the frame: no token,
 *   no storage, no validation. `raw_http`, timed from the sender's request, as ours is. What it
 *   adds to `raw_ws` is what the request alone costs any server of this API on this machine.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { paddedFrame } from '../fanout.ts';

export interface RawFanoutPeer {
  /** The port of both the HTTP route and the `ws` server. */
  port: number;
  /** Writes `frame` to every socket. */
  broadcast(frame: string): void;
  close(): Promise<void>;
}

export async function startRawFanoutPeer(): Promise<RawFanoutPeer> {
  const http = createServer((req, res) => onRequest(req, res));
  const wss = new WebSocketServer({ server: http });
  let seq = 0;
  const broadcast = (frame: string) => {
    for (const ws of wss.clients) ws.send(frame);
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://peer');
    if (req.method !== 'POST' || url.pathname !== '/messages') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { content } = JSON.parse(Buffer.concat(chunks).toString()) as { content: string };
      const frame = paddedFrame({ op: 0, t: 'LOBBY_MESSAGE_CREATE', s: ++seq, d: { content, pad: '' } } as { d: { pad: string } }, Number(url.searchParams.get('bytes') ?? 0));
      broadcast(frame);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(frame) }).end(frame);
    });
  };
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  return {
    port: (http.address() as AddressInfo).port,
    broadcast,
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
