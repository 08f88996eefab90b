/**
 * One client process of gateway-idle: opens a Gateway socket per token it is given (from its own
 * loopback source address, so the ephemeral ports of one address are not the limit), identifies,
 * waits for READY, then heartbeats at the Hello's interval and stays idle until told to stop.
 */
import WebSocket from 'ws';

interface Job {
  url: string;
  tokens: string[];
  localAddress: string;
  /** Handshakes in flight at once. */
  concurrency: number;
}

const sockets: WebSocket[] = [];
let failed = 0;

function open(job: Job, token: string): Promise<void> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${job.url.replace(/^http/, 'ws')}/gateway?v=10&encoding=json`, { localAddress: job.localAddress, perMessageDeflate: false });
    let seq: number | null = null;
    let done = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      if (!ok) failed++;
      resolve();
    };
    ws.on('message', (data) => {
      const f = JSON.parse(data.toString()) as { op: number; t?: string; s?: number | null; d?: { heartbeat_interval?: number } };
      if (typeof f.s === 'number') seq = f.s;
      if (f.op === 10) {
        ws.send(JSON.stringify({ op: 2, d: { token, properties: { os: 'linux', browser: 'bench', device: 'bench' } } }));
        const interval = f.d!.heartbeat_interval!;
        // Jittered like real clients, so 20,000 heartbeats do not land in one tick.
        setTimeout(function beat() {
          if (ws.readyState !== ws.OPEN) return;
          ws.send(JSON.stringify({ op: 1, d: seq }));
          setTimeout(beat, interval).unref();
        }, Math.random() * interval).unref();
      } else if (f.t === 'READY') {
        sockets.push(ws);
        finish(true);
      }
    });
    ws.on('error', () => finish(false));
    ws.on('close', () => finish(false));
  });
}

process.on('message', async (msg: { type: string; job?: Job }) => {
  if (msg.type === 'stop') {
    for (const ws of sockets) ws.terminate();
    process.exit(0);
  }
  if (msg.type !== 'open' || !msg.job) return;
  const job = msg.job;
  let next = 0;
  const worker = async () => {
    while (next < job.tokens.length) await open(job, job.tokens[next++]!);
  };
  await Promise.all(Array.from({ length: job.concurrency }, worker));
  process.send!({ type: 'opened', ready: sockets.length, failed });
});
process.send!({ type: 'started' });
