import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyKey } from 'discord-interactions';

/** One request as the receiver saw it. */
export interface ReceivedWebhook {
  raw: string;
  body: any;
  signature: string;
  timestamp: string;
  /** discord-interactions' verifyKey over timestamp + raw body, and the timestamp is fresh. */
  verified: boolean;
  /** What the receiver answered. */
  status: number;
  /** When the request arrived, and when it was answered. */
  arrivedAt: number;
  at: number;
}

/**
 * A webhook receiver as a game backend would write one: it verifies every request with the
 * public `discord-interactions` package against the application's verify_key, refuses stale
 * timestamps (replays) with 401, answers PING with 204, and answers events with what `respond`
 * says (204 by default). Loopback only.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  publicKey = '';
  /** Status for a verified event; a function may fail some requests on purpose. */
  respond: (body: any) => number | Promise<number> = () => 204;
  /** Stale timestamps are refused, as receivers should (the signature alone does not stop a replay). */
  maxAgeSeconds = 300;
  private waiters: (() => void)[] = [];

  private constructor(readonly server: http.Server, readonly url: string) {}

  static async start(path = '/webhooks'): Promise<WebhookReceiver> {
    let self: WebhookReceiver | undefined;
    const server = http.createServer((req, res) => {
      const arrivedAt = Date.now();
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void self!.handle(req, Buffer.concat(chunks).toString('utf8'), res, arrivedAt));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    self = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    return self;
  }

  async check(raw: string, signature: string, timestamp: string): Promise<boolean> {
    if (!(await verifyKey(raw, signature, timestamp, this.publicKey))) return false;
    return Math.abs(Date.now() / 1000 - Number(timestamp)) <= this.maxAgeSeconds;
  }

  private async handle(req: http.IncomingMessage, raw: string, res: http.ServerResponse, arrivedAt: number): Promise<void> {
    const signature = String(req.headers['x-signature-ed25519'] ?? '');
    const timestamp = String(req.headers['x-signature-timestamp'] ?? '');
    const verified = await this.check(raw, signature, timestamp);
    let body: any = null;
    try {
      body = JSON.parse(raw);
    } catch {}
    let status = 401;
    if (verified) status = body?.type === 0 ? 204 : await this.respond(body);
    this.received.push({ raw, body, signature, timestamp, verified, status, arrivedAt, at: Date.now() });
    res.writeHead(status, { 'content-type': 'application/json' }).end(status === 204 ? undefined : '{"error":"nope"}');
    for (const w of this.waiters.splice(0)) w();
  }

  /** Verified events answered with 2xx. */
  events(): ReceivedWebhook[] {
    return this.received.filter((r) => r.verified && r.body?.type === 1 && r.status >= 200 && r.status < 300);
  }

  async waitFor(predicate: () => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`webhook receiver: condition not met in ${timeoutMs} ms (received ${this.received.length})`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 100);
      });
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}
