import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../ServerContext.ts';
import { authenticate, requireBot } from '../auth.ts';
import { BOT, Type, type TypeBoxTypeProvider } from '../schemas/index.ts';

const TAGS = ['gateway'];
const GatewayUrl = Type.Object({ url: Type.String({ description: 'WebSocket URL; append ?v=10&encoding=json' }) }, { title: 'Gateway' });
const GatewayBot = Type.Object(
  {
    url: Type.String(),
    shards: Type.Integer(),
    session_start_limit: Type.Object({
      total: Type.Integer(),
      remaining: Type.Integer(),
      reset_after: Type.Integer({ description: 'ms until the limit resets' }),
      max_concurrency: Type.Integer(),
    }),
  },
  { title: 'GatewayBot' },
);

/** Gateway URL discovery (protocols.md 1.1). The URL has no query: clients append `?v=10&encoding=json`. */
export function gatewayRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/api/v10/gateway', { schema: { summary: 'Gateway URL', tags: TAGS, response: { 200: GatewayUrl } } }, async (req) => ({ url: ctx.publicWsUrl(req.raw) }));

  r.get('/api/v10/gateway/bot', { schema: { summary: 'Gateway URL, shards and session start limit (Bot)', tags: TAGS, security: BOT, response: { 200: GatewayBot } } }, async (req) => {
    requireBot(await authenticate(req, ctx.store));
    return {
      url: ctx.publicWsUrl(req.raw),
      shards: 1,
      session_start_limit: { total: 1000, remaining: 1000, reset_after: 86_400_000, max_concurrency: 1 },
    };
  });
}
