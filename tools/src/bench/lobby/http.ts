/**
 * A keep-alive JSON client on node:http for the timed sends. fetch (undici) costs the shared
 * process about as much CPU per request as the server's own route does, and that cost is the
 * benchmark's client, not the platform; a game's sends come from its own browser.
 * `BENCH_HTTP=fetch` uses fetch instead, to compare.
 */
import { Agent, request } from 'node:http';
import { apiJson } from '../fanout.ts';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export function postJson(method: string, url: string, token: string | null, body?: unknown): Promise<any> {
  if (process.env.BENCH_HTTP === 'fetch') return apiJson(method, url, token, body);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        agent,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if ((res.statusCode ?? 0) >= 300) reject(new Error(`${method} ${url}: ${res.statusCode} ${text}`));
          else resolve(text.length === 0 ? undefined : JSON.parse(text));
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export function closeHttp(): void {
  agent.destroy();
}
