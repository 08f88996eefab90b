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

  // Needs no credential: keyed on the client address, the Authorization header ignored.
  r.get('/api/v10/gateway', { schema: { summary: 'Gateway URL', tags: TAGS, response: { 200: GatewayUrl } }, config: { rateLimit: { bucket: 'gateway.url', limit: 60, windowMs: 10_000, key: 'address' as const } } }, async (req) => ({ url: ctx.publicWsUrl() }));

  r.get('/api/v10/gateway/bot', { schema: { summary: 'Gateway URL, shards and session start limit (Bot)', tags: TAGS, security: BOT, response: { 200: GatewayBot } } }, async (req) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    return {
      url: ctx.publicWsUrl(),
      shards: 1,
      // What the Gateway enforces on Identify (gateway/SessionStartLimit.ts); unlimited when limits are off.
      session_start_limit: ctx.sessionStarts ? await ctx.sessionStarts.info(bot.applicationId) : { total: 1000, remaining: 1000, reset_after: 86_400_000, max_concurrency: 16 },
    };
  });
}
