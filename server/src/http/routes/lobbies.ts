import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Limits, isSnowflake } from '@social-layer/protocol';
import type { ServerContext } from '../../ServerContext.ts';
import { Errors } from '../ApiError.ts';
import { authenticate, requireBearer, requireBot } from '../auth.ts';
import { array, bool, int, metadata, nullable, object, parse, snowflake, str } from '../validate.ts';

const SCOPE = 'sdk.social_layer';

/** Budgets per caller; see RateLimiter for why they are sized for play, not for pre-approval. */
const WRITE = { config: { rateLimit: { bucket: 'lobbies.write', limit: 60, windowMs: 10_000 } } };
const READ = { config: { rateLimit: { bucket: 'lobbies.read', limit: 60, windowMs: 10_000 } } };
const SEND = { config: { rateLimit: { bucket: 'lobbies.messages.send', limit: 50, windowMs: 10_000 } } };
const HISTORY = { config: { rateLimit: { bucket: 'lobbies.messages.read', limit: 30, windowMs: 10_000 } } };

const createOrJoinBody = object({
  secret: { check: str({ min: 1, max: Limits.lobbySecretMaxLength }), required: true },
  idle_timeout_seconds: { check: int({ min: Limits.idleTimeoutMinSeconds, max: Limits.idleTimeoutMaxSeconds }) },
  lobby_metadata: { check: nullable(metadata) },
  member_metadata: { check: nullable(metadata) },
});

const messageBody = object({
  content: { check: str({ min: 1, max: Limits.messageContentMaxLength }), required: true },
  metadata: { check: metadata },
  flags: { check: int({ min: 0, max: 0 }) },
});

const memberFields = {
  metadata: { check: nullable(metadata) },
  flags: { check: int({ min: 0, max: 1 }) },
  additional_name: { check: nullable(str({ min: Limits.additionalNameMinLength, max: Limits.additionalNameMaxLength })) },
};
const memberBody = object(memberFields);
const bulkBody = array(object({ id: { check: snowflake, required: true }, remove_member: { check: bool }, ...memberFields }), { min: 1, max: Limits.bulkMembersMax });

const createBody = object({
  metadata: { check: nullable(metadata) },
  members: { check: array(object({ id: { check: snowflake, required: true }, ...memberFields }), { min: 0, max: Limits.bulkMembersMax }) },
  idle_timeout_seconds: { check: int({ min: Limits.idleTimeoutMinSeconds, max: Limits.idleTimeoutMaxSeconds }) },
});

const limitQuery = object({ limit: { check: int({ min: 1, max: Limits.lobbyMessagesMaxPerRead }) } });

/** Path IDs that are not snowflakes cannot name a lobby: the same 404 as an unknown one. */
function lobbyId(req: FastifyRequest): string {
  const id = (req.params as { id: string }).id;
  if (!isSnowflake(id)) throw Errors.unknownLobby();
  return id;
}

/** Lobby routes of protocols.md 2.6. */
export function lobbyRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.put('/api/v10/lobbies', WRITE, async (req) => {
    const p = requireBearer(await authenticate(req, ctx.store), SCOPE);
    const body = parse(createOrJoinBody, req.body);
    return ctx.lobbies.createOrJoin(p.applicationId, p.userId, {
      secret: body.secret,
      lobbyMetadata: body.lobby_metadata,
      memberMetadata: body.member_metadata,
      idleTimeoutSeconds: body.idle_timeout_seconds,
    });
  });

  app.post('/api/v10/lobbies', WRITE, async (req, reply) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    const body = parse(createBody, req.body);
    const lobby = await ctx.lobbies.createServerLobby(bot.applicationId, {
      metadata: body.metadata ?? null,
      idleTimeoutSeconds: body.idle_timeout_seconds,
      members: (body.members ?? []).map((m) => ({ userId: m.id, remove: false, change: { metadata: m.metadata, flags: m.flags, additionalName: m.additional_name } })),
    });
    reply.code(200);
    return lobby;
  });

  app.get('/api/v10/lobbies/:id', READ, async (req) => {
    const p = await authenticate(req, ctx.store);
    const id = lobbyId(req);
    return ctx.lobbies.get(p.applicationId, id, p.kind === 'bearer' ? p.userId : null);
  });

  app.delete('/api/v10/lobbies/:id', WRITE, async (req, reply) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    const id = (req.params as { id: string }).id;
    if (isSnowflake(id)) await ctx.lobbies.deleteLobby(bot.applicationId, id);
    reply.code(204);
  });

  app.delete('/api/v10/lobbies/:id/members/@me', WRITE, async (req, reply) => {
    const p = requireBearer(await authenticate(req, ctx.store), SCOPE);
    await ctx.lobbies.leave(p.applicationId, lobbyId(req), p.userId);
    reply.code(204);
  });

  app.put('/api/v10/lobbies/:id/members/:userId', WRITE, async (req) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    const id = lobbyId(req);
    const userId = (req.params as { userId: string }).userId;
    if (!isSnowflake(userId)) throw Errors.unknownUser();
    const body = parse(memberBody, req.body ?? {});
    const [member] = await ctx.lobbies.upsertMembers(bot.applicationId, id, [
      { userId, remove: false, change: { metadata: body.metadata, flags: body.flags, additionalName: body.additional_name } },
    ]);
    return member;
  });

  app.delete('/api/v10/lobbies/:id/members/:userId', WRITE, async (req, reply) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    const id = lobbyId(req);
    const userId = (req.params as { userId: string }).userId;
    if (!isSnowflake(userId)) throw Errors.unknownUser();
    await ctx.lobbies.upsertMembers(bot.applicationId, id, [{ userId, remove: true, change: {} }]);
    reply.code(204);
  });

  app.post('/api/v10/lobbies/:id/members/bulk', WRITE, async (req) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    const id = lobbyId(req);
    const body = parse(bulkBody, req.body);
    const seen = new Set<string>();
    for (const m of body) {
      if (seen.has(m.id)) throw Errors.invalidForm({ _errors: [{ code: 'DUPLICATE_MEMBER', message: `Member ${m.id} appears more than once.` }] });
      seen.add(m.id);
    }
    return ctx.lobbies.upsertMembers(
      bot.applicationId,
      id,
      body.map((m) => ({ userId: m.id, remove: m.remove_member === true, change: { metadata: m.metadata, flags: m.flags, additionalName: m.additional_name } })),
    );
  });

  app.post('/api/v10/lobbies/:id/messages', SEND, async (req) => {
    const p = requireBearer(await authenticate(req, ctx.store), SCOPE);
    const id = lobbyId(req);
    const body = parse(messageBody, req.body);
    return ctx.lobbies.sendMessage(p.applicationId, id, p.userId, body);
  });

  app.get('/api/v10/lobbies/:id/messages', HISTORY, async (req) => {
    const p = requireBearer(await authenticate(req, ctx.store), SCOPE);
    const id = lobbyId(req);
    const raw = (req.query as Record<string, string | undefined>).limit;
    const query = parse(limitQuery, raw === undefined ? {} : { limit: /^-?\d+$/.test(raw) ? Number(raw) : raw });
    return ctx.lobbies.history(p.applicationId, id, p.userId, query.limit ?? Limits.lobbyMessagesDefaultPerRead);
  });
}
