import type { FastifyInstance } from 'fastify';
import { profilesFor } from '../../accounts/applicationProfiles.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { ApiError, Errors } from '../ApiError.ts';
import { authenticate } from '../auth.ts';
import { ApplicationProfileSchema, BEARER_OR_BOT, Type, type TypeBoxTypeProvider } from '../schemas/index.ts';
import { rateLimit, UserParams } from './socialRouteHelpers.ts';

const TAGS = ['users'];
const READ = rateLimit('users.application-profiles', 60);

/**
 * Game profiles of a user's external identities (issue 19) for the caller's application: to the
 * application's bot (a game backend looking up its player, provider-issued IDs included) and to
 * the user themself (provider-issued IDs with `identify`). The SDK reads its own on READY's user.
 */
export function applicationProfileRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/api/v10/users/:userId/application-profiles',
    {
      schema: { summary: 'A user\'s game profiles for this application', tags: TAGS, security: BEARER_OR_BOT, params: UserParams, response: { 200: Type.Array(ApplicationProfileSchema) } },
      config: READ,
    },
    async (req) => {
      const p = await authenticate(req, ctx.store);
      const userId = req.params.userId;
      if (p.kind === 'bearer' && p.userId !== userId) throw new ApiError(403, 50013, 'Only the user themself and the application\'s bot may read application profiles');
      if (!(await ctx.store.users.get(userId))) throw Errors.unknownUser();
      return profilesFor(ctx.store, p, userId);
    },
  );
}
