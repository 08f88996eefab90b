import type { FastifyInstance } from 'fastify';
import { AVATAR_SIZES, DEFAULT_AVATAR_COUNT, defaultAvatarPng } from '../../cdn/defaultAvatars.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { Errors } from '../ApiError.ts';
import { Type, type TypeBoxTypeProvider } from '../schemas/index.ts';

const TAGS = ['cdn'];
const FILE = /^(\d)\.png$/;
// Images are fetched without credentials (img tags), so the budget is the address's.
const IMAGES = { rateLimit: { bucket: 'cdn.avatars', limit: 600, windowMs: 10_000, key: 'address' as const } };
const Params = Type.Object({ file: Type.String({ maxLength: 16, description: '`{index}.png`, index 0-5: `(user_id >> 22) % 6`' }) });
const Query = Type.Object({
  size: Type.Optional(Type.Unsafe<number>({ type: 'integer', enum: [...AVATAR_SIZES], description: 'A power of two from 16 to 4096; above 1024 the 1024-pixel image is sent' })),
});

/**
 * The CDN part the client's UserHandle.avatarUrl points at, under the platform's origin: the
 * default avatars. Users cannot set avatars of their own yet (no account page or route stores
 * one), so `/avatars/{user_id}/{hash}` has nothing to serve and is not routed (404).
 */
export function avatarRoutes(app: FastifyInstance, _ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/embed/avatars/:file', { schema: { summary: 'Default avatar image (PNG)', tags: TAGS, params: Params, querystring: Query }, config: IMAGES }, async (req, reply) => {
    const match = FILE.exec(req.params.file);
    const index = match ? Number(match[1]) : -1;
    if (index < 0 || index >= DEFAULT_AVATAR_COUNT) throw Errors.notFound();
    const png = await defaultAvatarPng(index, req.query.size);
    return reply.type('image/png').header('cache-control', 'public, max-age=86400').send(png);
  });
}
