/**
 * Child process: the floor. A bare `dgram` socket that forwards each packet, unchanged, to the
 * other members of the sender's call (looked up by the RTP SSRC): no crypto, no checks, no copy.
 * With RAW_LITERAL_LOOKUP=1 its socket answers dgram's per-send address lookup at once, as the
 * relay's media socket does (UdpMediaSocket.ts), so that trick is in the floor too.
 */
import dgram from 'node:dgram';
import { createMediaSocket } from '../../../../server/src/voice/UdpMediaSocket.ts';
import { serve } from '../childProcess.ts';

const socket = process.env.RAW_LITERAL_LOOKUP === '1' ? createMediaSocket('127.0.0.1') : dgram.createSocket('udp4');
let routes = new Map<number, { port: number; address: string }[]>();
let forwarded = 0;
let inbound = 0;

socket.on('message', (msg) => {
  if (msg.length < 12) return;
  const peers = routes.get(msg.readUInt32BE(8));
  if (!peers) return;
  inbound++;
  for (let i = 0; i < peers.length; i++) {
    socket.send(msg, peers[i]!.port, peers[i]!.address);
    forwarded++;
  }
});
await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));

serve((m) => {
  if (m.type === 'routes') {
    routes = new Map((m.routes as [number, { port: number; address: string }[]][]).map(([ssrc, peers]) => [ssrc, peers]));
    return {};
  }
  if (m.type === 'sample') {
    const cpu = process.cpuUsage();
    return { cpuUs: cpu.user + cpu.system, forwarded, inbound, dropped: 0, at: performance.now() };
  }
  if (m.type === 'stop') {
    socket.close();
    setImmediate(() => process.exit(0));
    return {};
  }
  throw new Error(`unknown request ${m.type}`);
});
process.send!({ type: 'ready', port: socket.address().port });
