import type { FastifyInstance } from 'fastify';
import { RelationshipType, SocialLimits } from '@social-layer/protocol';
import type { ServerContext } from '../../ServerContext.ts';
import { authenticate } from '../auth.ts';
import { BEARER, Choice, isTrue, NoContent, OptionalBody, QueryBool, RelationshipSchema, Str, Type, type TypeBoxTypeProvider } from '../schemas/index.ts';
import { rateLimit, requireUserScope, UserParams } from './socialRouteHelpers.ts';

const READ = rateLimit('relationships.read', 60);
const WRITE = rateLimit('relationships.write', 30);
const TAGS = ['relationships'];

const ByUsernameBody = Type.Object({ username: Str(1, SocialLimits.usernameMaxLength, { description: 'Unique username' }) });
/** `type` 1 (or none) sends or accepts a friend request; 2 blocks (platform only). */
const PutBody = OptionalBody(Type.Object({ type: Type.Optional(Choice([RelationshipType.Friend, RelationshipType.Blocked], '1 friend request (default), 2 block')) }));
const GamePutBody = OptionalBody(Type.Object({ type: Type.Optional(Choice([RelationshipType.Friend], '1 friend request (default)')) }));
/**
 * `?type=` on PUT and DELETE names the relationship the caller expects to be in, so each SDK
 * operation fails with its own error (and changes nothing) when the state is not what it needs:
 * PUT ?type=3 accepts only; DELETE ?type=1 removes a friend, 2 unblocks, 3 rejects, 4 cancels.
 */
const Expected = Choice(
  [RelationshipType.Friend, RelationshipType.Blocked, RelationshipType.PendingIncoming, RelationshipType.PendingOutgoing],
  'The relationship the caller expects to be in; a mismatch changes nothing and answers its code',
);
const PutQuery = Type.Object({ type: Type.Optional(Expected) });
const DeleteQuery = Type.Object({ type: Type.Optional(Expected), with_game: Type.Optional(QueryBool('Platform only: also remove the game friendship')) });

/**
 * Relationship routes in the public API's style: `/users/@me/relationships` for platform
 * relationships (across games) and `/users/@me/game-relationships` for this game's own.
 */
export function relationshipRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const svc = ctx.social.relationships;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/api/v10/users/@me/relationships',
    { schema: { summary: 'Relationships (platform and this game\'s)', tags: TAGS, security: BEARER, response: { 200: Type.Array(RelationshipSchema) } }, config: READ },
    async (req) => {
      const p = requireUserScope(await authenticate(req, ctx.store), 'relationships.read');
      return svc.list(p.applicationId, p.userId);
    },
  );

  for (const [base, scope] of [
    ['/api/v10/users/@me/relationships', 'platform'],
    ['/api/v10/users/@me/game-relationships', 'game'],
  ] as const) {
    const what = scope === 'platform' ? 'friend request' : 'game friend request';

    // Send (or accept) by unique username.
    r.post(base, { schema: { summary: `Send (or accept) a ${what} by username`, tags: TAGS, security: BEARER, body: ByUsernameBody, response: { 204: NoContent } }, config: WRITE }, async (req, reply) => {
      const p = requireUserScope(await authenticate(req, ctx.store), 'relationships.write');
      await svc.sendRequest(p.applicationId, p.userId, scope, { username: req.body.username });
      reply.code(204);
    });

    r.put(
      `${base}/:userId`,
      {
        schema: {
          summary: scope === 'platform' ? 'Send or accept a friend request (?type=3: accept only), or block (type 2)' : 'Send or accept a game friend request (?type=3: accept only)',
          tags: TAGS,
          security: BEARER,
          params: UserParams,
          querystring: PutQuery,
          body: scope === 'platform' ? PutBody : GamePutBody,
          response: { 204: NoContent },
        },
        config: WRITE,
      },
      async (req, reply) => {
        const p = requireUserScope(await authenticate(req, ctx.store), 'relationships.write');
        const otherId = req.params.userId;
        const body = req.body ?? {};
        if (body.type === RelationshipType.Blocked) await svc.block(p.applicationId, p.userId, otherId);
        else if (req.query.type === RelationshipType.PendingIncoming) await svc.accept(p.applicationId, p.userId, scope, otherId);
        else await svc.sendRequest(p.applicationId, p.userId, scope, { id: otherId });
        reply.code(204);
      },
    );

    r.delete(
      `${base}/:userId`,
      {
        schema: {
          summary: scope === 'platform' ? 'Remove a friend (?type=1), unblock (2), reject (3), cancel (4), or whatever is there' : 'Remove a game friend (?type=1), reject (3), cancel (4), or whatever is there',
          tags: TAGS,
          security: BEARER,
          params: UserParams,
          querystring: DeleteQuery,
          response: { 204: NoContent },
        },
        config: WRITE,
      },
      async (req, reply) => {
        const p = requireUserScope(await authenticate(req, ctx.store), 'relationships.write');
        const otherId = req.params.userId;
        const expected = req.query.type;
        if (scope === 'platform' && isTrue(req.query.with_game)) await svc.removeBoth(p.applicationId, p.userId, otherId);
        else if (expected === RelationshipType.Friend) await svc.removeFriend(p.applicationId, p.userId, scope, otherId);
        else if (expected === RelationshipType.PendingIncoming) await svc.reject(p.applicationId, p.userId, scope, otherId);
        else if (expected === RelationshipType.PendingOutgoing) await svc.cancel(p.applicationId, p.userId, scope, otherId);
        else if (expected === RelationshipType.Blocked && scope === 'platform') await svc.unblock(p.applicationId, p.userId, otherId);
        else await svc.removeAny(p.applicationId, p.userId, scope, otherId);
        reply.code(204);
      },
    );
  }
}
