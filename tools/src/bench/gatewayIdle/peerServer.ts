/**
 * The peer of gateway-idle: a bare fastify + ws process that does what an idle Gateway session
 * needs on the wire and nothing else: Hello with the same heartbeat interval, a READY-sized answer
 * to Identify, ACK to heartbeats, and the same per-socket heartbeat deadline (1.5 intervals).
 */
import Fastify from 'fastify';
import { WebSocketServer } from 'ws';
import { answerMemoryRequests } from './memory.ts';

const HEARTBEAT_INTERVAL_MS = 41_250;
const app = Fastify({ logger: false });
app.get('/health', async () => ({ ok: true }));
await app.ready();
const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
let sessions = 0;
app.server.on('upgrade', (req, socket, head) => {
  if (!req.url?.startsWith('/gateway')) return socket.destroy();
  wss.handleUpgrade(req, socket, head, (ws) => {
    let seq = 0;
    let deadline: NodeJS.Timeout = setTimeout(() => ws.close(4009), HEARTBEAT_INTERVAL_MS * 1.5);
    ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: HEARTBEAT_INTERVAL_MS }, s: null, t: null }));
    ws.on('message', (data) => {
      let msg: { op?: number; d?: { token?: string } };
      try {
        msg = JSON.parse(data.toString());
      } catch {
        return ws.close(4002);
      }
      if (msg.op === 1) {
        clearTimeout(deadline);
        deadline = setTimeout(() => ws.close(4009), HEARTBEAT_INTERVAL_MS * 1.5);
        ws.send('{"op":11,"d":null,"s":null,"t":null}');
      } else if (msg.op === 2) {
        sessions++;
        const ready = { v: 10, user: { id: String(sessions), username: `guest_${sessions}` }, session_id: String(Math.random()).slice(2), resume_gateway_url: 'ws://127.0.0.1/gateway', guilds: [], lobbies: [] };
        ws.send(`{"op":0,"t":"READY","s":${++seq},"d":${JSON.stringify(ready)}}`);
      }
    });
    ws.on('close', () => clearTimeout(deadline));
    ws.on('error', () => {});
  });
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address() as { port: number };
answerMemoryRequests();
process.send!({ type: 'listening', url: `http://127.0.0.1:${address.port}` });
process.once('SIGTERM', () => void app.close().finally(() => process.exit(0)));
