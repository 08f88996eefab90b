import Fastify, { type FastifyInstance } from 'fastify';
import { verifyKey } from 'discord-interactions';

/**
 * A small HTTP-interactions application for tests (issue 13): verifies every request with
 * discord-interactions' verifyKey, refuses timestamps older than 5 minutes, answers PING with
 * type 1 and commands with `answer`.
 */
export interface Seen { raw: string; signature: string; timestamp: string; body: any }

export class InteractionsApp {
  readonly app: FastifyInstance = Fastify();
  readonly seen: Seen[] = [];
  url = '';
  /** How to answer a verified command (default: a message). */
  answer: (body: any) => Promise<unknown> = async () => ({ type: 4, data: { content: 'answered over HTTP' } });
  /** Accept everything (a careless endpoint, which the platform must refuse). */
  careless = false;

  constructor(readonly publicKey: string) {
    this.app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    this.app.post('/interactions', async (req, reply) => {
      const raw = req.body as string;
      const signature = String(req.headers['x-signature-ed25519'] ?? '');
      const timestamp = String(req.headers['x-signature-timestamp'] ?? '');
      const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
      const valid = this.careless || (fresh && (await verifyKey(raw, signature, timestamp, this.publicKey)));
      if (!valid) return reply.code(401).send('invalid request signature');
      const body = JSON.parse(raw);
      this.seen.push({ raw, signature, timestamp, body });
      if (body.type === 1) return { type: 1 };
      return this.answer(body);
    });
  }

  async start(): Promise<void> {
    this.url = `${await this.app.listen({ port: 0, host: '127.0.0.1' })}/interactions`;
  }
}

