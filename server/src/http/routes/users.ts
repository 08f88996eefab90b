import type { FastifyInstance } from 'fastify';
import { Limits } from '@social-layer/protocol';
import type { ServerContext } from '../../ServerContext.ts';
import { userToWire } from '../../storage/UserRepo.ts';
import { Errors } from '../ApiError.ts';
import { authenticate, requireBearer } from '../auth.ts';
import { nullable, object, parse, str } from '../validate.ts';

const patchBody = object({
  global_name: { check: nullable(str({ min: Limits.displayNameMinLength, max: Limits.displayNameMaxLength })) },
});

export function userRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/api/v10/users/@me', { config: { rateLimit: { bucket: 'users.me', limit: 60, windowMs: 10_000 } } }, async (req) => {
    const p = await authenticate(req, ctx.store);
    const user = await ctx.store.users.get(p.kind === 'bot' ? p.botUserId : p.userId);
    if (!user) throw Errors.unknownUser();
    // The real premium_type only with identify.premium (spec, User premium_type); 0 otherwise.
    const premium = p.kind === 'bearer' && p.scopes.includes('identify.premium') ? (user.premium_type ?? 0) : 0;
    return { ...userToWire(user), premium_type: premium };
  });

  /** Display-name updates (UpdateProvisionalAccountDisplayName); co-members see the new name. */
  app.patch('/api/v10/users/@me', { config: { rateLimit: { bucket: 'users.me.write', limit: 10, windowMs: 10_000 } } }, async (req) => {
    const p = requireBearer(await authenticate(req, ctx.store));
    const body = parse(patchBody, req.body);
    if (body.global_name !== undefined) {
      await ctx.store.users.setGlobalName(p.userId, body.global_name);
      await ctx.lobbies.announceUserChange(p.applicationId, p.userId);
    }
    return userToWire((await ctx.store.users.get(p.userId))!);
  });
}
