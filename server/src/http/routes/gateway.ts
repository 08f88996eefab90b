import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../ServerContext.ts';
import { authenticate, requireBot } from '../auth.ts';

/** Gateway URL discovery (protocols.md 1.1). The URL has no query: clients append `?v=10&encoding=json`. */
export function gatewayRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/api/v10/gateway', async (req) => ({ url: ctx.publicWsUrl(req.raw) }));

  app.get('/api/v10/gateway/bot', async (req) => {
    requireBot(await authenticate(req, ctx.store));
    return {
      url: ctx.publicWsUrl(req.raw),
      shards: 1,
      session_start_limit: { total: 1000, remaining: 1000, reset_after: 86_400_000, max_concurrency: 1 },
    };
  });
}
