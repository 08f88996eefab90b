/**
 * `lobby-join`'s peer: the wire work of Identify and of a create-or-join, with no platform behind
 * it. A bare node:http server with a `ws` server on `/gateway` that
 * - answers a socket's HELLO-Identify exchange with a READY of ours' size;
 * - answers `PUT /api/v10/lobbies` { secret } (the caller named by its bearer token) with the
 *   whole lobby, sends the joiner the same lobby as LOBBY_CREATE, and sends each member already
 *   there a LOBBY_MEMBER_ADD of the joiner, in that order, as ours does.
 * Members are padded to ours' size, each member's JSON built once and the lobby's joined from them
 * on every join: the least a server that must send the lobby does. Member adds are held up to
 * 16 ms per socket (the socket corked) and leave in one write, as ours' write coalescer holds
 * roster frames (server/src/gateway/writeCoalescer.ts). No accounts, no storage, no validation, no
 * sequence numbers kept: the floor for the same bytes, as `ws.send` is in `lobby-fanout`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * Ours' sizes in `lobby-join`: what a guest is sent after HELLO when it identifies (READY and its
 * own PRESENCE_UPDATE, here one frame), and one lobby member as the lobby object carries it. The
 * bench prints the KB each side sent per client, so a drift shows.
 */
const READY_BYTES = 745;
const MEMBER_BYTES = 227;

/** As long as ours' write coalescer holds a roster frame. */
const HOLD_MS = 16;

const padded = (head: string, bytes: number, tail: string): string => head + 'x'.repeat(Math.max(0, bytes - head.length - tail.length)) + tail;

interface RawLobby {
  id: string;
  memberJson: string[];
  tokens: string[];
}

export interface RawJoinPeer {
  /** The peer's HTTP origin (its Gateway is `ws://.../gateway`). */
  url: string;
  close(): Promise<void>;
}

export async function startRawJoinPeer(): Promise<RawJoinPeer> {
  const sockets = new Map<string, WebSocket>();
  const lobbies = new Map<string, RawLobby>();
  let nextId = 0;
  const snowflake = () => String(1_300_000_000_000_000_000n + BigInt(++nextId));
  const ready = padded('{"op":0,"t":"READY","s":1,"d":{"pad":"', READY_BYTES, '"}}');
  // Sockets corked for held member adds, uncorked together when the hold ends.
  const held = new Set<Socket>();
  let holdTimer: NodeJS.Timeout | null = null;
  const sendHeld = (ws: WebSocket, frame: string) => {
    // ws's own socket: the public API has no cork, and this is a benchmark's peer.
    const socket = (ws as unknown as { _socket: Socket })._socket;
    if (!held.has(socket)) {
      socket.cork();
      held.add(socket);
    }
    ws.send(frame);
    holdTimer ??= setTimeout(() => {
      holdTimer = null;
      for (const s of held) s.uncork();
      held.clear();
    }, HOLD_MS);
  };

  const join = (token: string, secret: string): string => {
    let lobby = lobbies.get(secret);
    if (!lobby) lobbies.set(secret, (lobby = { id: snowflake(), memberJson: [], tokens: [] }));
    const id = snowflake();
    const member = padded(`{"id":"${id}","metadata":null,"flags":0,"connected":true,"user":{"id":"${id}","username":"`, MEMBER_BYTES, '","bot":false}}');
    lobby.memberJson.push(member);
    const json = `{"id":"${lobby.id}","application_id":"1","metadata":null,"members":[${lobby.memberJson.join(',')}],"voice_states":[]}`;
    sockets.get(token)?.send(`{"op":0,"t":"LOBBY_CREATE","s":2,"d":${json}}`);
    const add = `{"op":0,"t":"LOBBY_MEMBER_ADD","s":3,"d":{"lobby_id":"${lobby.id}","member":${member}}}`;
    for (const t of lobby.tokens) {
      const ws = sockets.get(t);
      if (ws) sendHeld(ws, add);
    }
    lobby.tokens.push(token);
    return json;
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (req.method !== 'PUT' || req.url !== '/api/v10/lobbies' || !token) {
        res.writeHead(404).end();
        return;
      }
      const json = join(token, (JSON.parse(Buffer.concat(chunks).toString()) as { secret: string }).secret);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) }).end(json);
    });
  });
  const wss = new WebSocketServer({ server, path: '/gateway' });
  wss.on('connection', (ws) => {
    ws.send('{"op":10,"d":{"heartbeat_interval":60000}}');
    ws.once('message', (data: Buffer) => {
      const token = (JSON.parse(data.toString()) as { d: { token: string } }).d.token;
      sockets.set(token, ws);
      ws.send(ready);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      if (holdTimer) clearTimeout(holdTimer);
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
