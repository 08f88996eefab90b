import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RelationshipType, SocialLimits } from '@social-layer/protocol';
import type { ServerContext } from '../../ServerContext.ts';
import type { RelationshipScope } from '../../social/RelationshipService.ts';
import { authenticate } from '../auth.ts';
import { object, parse, str } from '../validate.ts';
import { choice } from '../../social/activityCheck.ts';
import { pathUserId, queryBool, queryInt, rateLimit, requireUserScope } from './socialRouteHelpers.ts';

const READ = rateLimit('relationships.read', 60);
const WRITE = rateLimit('relationships.write', 30);

const byUsernameBody = object({ username: { check: str({ min: 1, max: SocialLimits.usernameMaxLength }), required: true } });
/** `type` 1 (or none) sends or accepts a friend request; 2 blocks (platform only). */
const putBody = object({ type: { check: choice([RelationshipType.Friend, RelationshipType.Blocked]) } });
const gamePutBody = object({ type: { check: choice([RelationshipType.Friend]) } });
/**
 * `?type=` on PUT and DELETE names the relationship the caller expects to be in, so each SDK
 * operation fails with its own error (and changes nothing) when the state is not what it needs:
 * PUT ?type=3 accepts only; DELETE ?type=1 removes a friend, 2 unblocks, 3 rejects, 4 cancels.
 */
const expectedQuery = object({
  type: {
    check: choice([RelationshipType.Friend, RelationshipType.Blocked, RelationshipType.PendingIncoming, RelationshipType.PendingOutgoing]),
  },
});

/**
 * Relationship routes in the public API's style: `/users/@me/relationships` for platform
 * relationships (across games) and `/users/@me/game-relationships` for this game's own.
 */
export function relationshipRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const svc = ctx.social.relationships;

  app.get('/api/v10/users/@me/relationships', READ, async (req) => {
    const p = requireUserScope(await authenticate(req, ctx.store), 'relationships.read');
    return svc.list(p.applicationId, p.userId);
  });

  for (const [base, scope] of [
    ['/api/v10/users/@me/relationships', 'platform'],
    ['/api/v10/users/@me/game-relationships', 'game'],
  ] as const) {
    // Send (or accept) by unique username.
    app.post(base, WRITE, async (req, reply) => {
      const p = requireUserScope(await authenticate(req, ctx.store), 'relationships.write');
      const body = parse(byUsernameBody, req.body);
      await svc.sendRequest(p.applicationId, p.userId, scope, { username: body.username });
      reply.code(204);
    });

    app.put(`${base}/:userId`, WRITE, async (req, reply) => {
      const p = requireUserScope(await authenticate(req, ctx.store), 'relationships.write');
      const otherId = pathUserId(req);
      const body = parse(scope === 'platform' ? putBody : gamePutBody, req.body ?? {});
      const expected = expectedType(req);
      if (body.type === RelationshipType.Blocked) await svc.block(p.applicationId, p.userId, otherId);
      else if (expected === RelationshipType.PendingIncoming) await svc.accept(p.applicationId, p.userId, scope, otherId);
      else await svc.sendRequest(p.applicationId, p.userId, scope, { id: otherId });
      reply.code(204);
    });

    app.delete(`${base}/:userId`, WRITE, async (req, reply) => remove(req, reply, scope));
  }

  async function remove(req: FastifyRequest, reply: FastifyReply, scope: RelationshipScope): Promise<void> {
    const p = requireUserScope(await authenticate(req, ctx.store), 'relationships.write');
    const otherId = pathUserId(req);
    const expected = expectedType(req);
    if (scope === 'platform' && queryBool(req, 'with_game')) await svc.removeBoth(p.applicationId, p.userId, otherId);
    else if (expected === RelationshipType.Friend) await svc.removeFriend(p.applicationId, p.userId, scope, otherId);
    else if (expected === RelationshipType.PendingIncoming) await svc.reject(p.applicationId, p.userId, scope, otherId);
    else if (expected === RelationshipType.PendingOutgoing) await svc.cancel(p.applicationId, p.userId, scope, otherId);
    else if (expected === RelationshipType.Blocked && scope === 'platform') await svc.unblock(p.applicationId, p.userId, otherId);
    else await svc.removeAny(p.applicationId, p.userId, scope, otherId);
    reply.code(204);
  }
}

function expectedType(req: FastifyRequest): number | undefined {
  const raw = queryInt(req, 'type');
  return raw === undefined ? undefined : parse(expectedQuery, { type: raw }).type;
}
