import type { FastifyInstance } from 'fastify';
import { Limits } from '@social-layer/protocol';
import type { ServerContext } from '../../ServerContext.ts';
import { Errors } from '../ApiError.ts';
import { authenticate, requireBearer, requireBot } from '../auth.ts';
import {
  BEARER,
  BEARER_OR_BOT,
  BOT,
  Bool,
  IdParam,
  Int,
  LobbyMemberSchema,
  LobbyMessageSchema,
  LobbySchema,
  Metadata,
  NoContent,
  NotFound,
  Nullable,
  OptionalBody,
  Snowflake,
  Str,
  Type,
  type TypeBoxTypeProvider,
} from '../schemas/index.ts';

const SCOPE = 'sdk.social_layer';

/** Budgets per caller; see RateLimiter for why they are sized for play, not for pre-approval. */
const WRITE = { rateLimit: { bucket: 'lobbies.write', limit: 60, windowMs: 10_000 } };
const READ = { rateLimit: { bucket: 'lobbies.read', limit: 60, windowMs: 10_000 } };
const SEND = { rateLimit: { bucket: 'lobbies.messages.send', limit: 50, windowMs: 10_000 } };
const HISTORY = { rateLimit: { bucket: 'lobbies.messages.read', limit: 30, windowMs: 10_000 } };

const TAGS = ['lobbies'];
const LobbyParams = Type.Object({ id: IdParam(NotFound.lobby, 'Lobby ID; anything else answers 10031') });
const MemberParams = Type.Object({ id: IdParam(NotFound.lobby), userId: IdParam(NotFound.user, 'User ID; anything else answers 10013') });

const IdleTimeout = Int(Limits.idleTimeoutMinSeconds, Limits.idleTimeoutMaxSeconds, 'Seconds with nobody connected before the lobby is deleted (default 300)');

const CreateOrJoinBody = Type.Object({
  secret: Str(1, Limits.lobbySecretMaxLength, { description: 'Lobby secret: the same secret joins the same lobby (per application)' }),
  idle_timeout_seconds: Type.Optional(IdleTimeout),
  lobby_metadata: Type.Optional(Nullable(Metadata())),
  member_metadata: Type.Optional(Nullable(Metadata())),
});

const MessageBody = Type.Object({
  content: Str(1, Limits.messageContentMaxLength),
  metadata: Type.Optional(Metadata()),
  flags: Type.Optional(Int(0, 0)),
});

const memberFields = {
  metadata: Type.Optional(Nullable(Metadata())),
  flags: Type.Optional(Int(0, 1, 'Bit 0: CanLinkLobby')),
  additional_name: Type.Optional(Nullable(Str(Limits.additionalNameMinLength, Limits.additionalNameMaxLength))),
};
const MemberBody = Type.Object(memberFields);
const BulkBody = Type.Array(Type.Object({ id: Snowflake(), remove_member: Type.Optional(Bool()), ...memberFields }), { minItems: 1, maxItems: Limits.bulkMembersMax });

const CreateBody = Type.Object({
  metadata: Type.Optional(Nullable(Metadata())),
  members: Type.Optional(Type.Array(Type.Object({ id: Snowflake(), ...memberFields }), { minItems: 0, maxItems: Limits.bulkMembersMax })),
  idle_timeout_seconds: Type.Optional(IdleTimeout),
});

const LimitQuery = Type.Object({ limit: Type.Optional(Int(1, Limits.lobbyMessagesMaxPerRead, `Default ${Limits.lobbyMessagesDefaultPerRead}`)) });

/** Lobby routes of protocols.md 2.6. */
export function lobbyRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.put(
    '/api/v10/lobbies',
    { schema: { summary: 'Create or join a lobby by secret', tags: TAGS, security: BEARER, body: CreateOrJoinBody, response: { 200: LobbySchema } }, config: WRITE },
    async (req, reply) => {
      const p = requireBearer(await authenticate(req, ctx.store), SCOPE);
      const body = req.body;
      const { json } = await ctx.lobbies.createOrJoin(p.applicationId, p.userId, {
        secret: body.secret,
        lobbyMetadata: body.lobby_metadata,
        memberMetadata: body.member_metadata,
        idleTimeoutSeconds: body.idle_timeout_seconds,
      });
      // Already serialized (the joiner's LOBBY_CREATE is the same string): fastify sends a string with
      // a JSON content type as is. (`as never`: the typed reply expects the Lobby object.)
      return reply.type('application/json; charset=utf-8').send(json as never);
    },
  );

  r.post(
    '/api/v10/lobbies',
    { schema: { summary: 'Create a lobby (server side)', tags: TAGS, security: BOT, body: CreateBody, response: { 200: LobbySchema } }, config: WRITE },
    async (req, reply) => {
      const bot = requireBot(await authenticate(req, ctx.store));
      const body = req.body;
      const lobby = await ctx.lobbies.createServerLobby(bot.applicationId, {
        metadata: body.metadata ?? null,
        idleTimeoutSeconds: body.idle_timeout_seconds,
        members: (body.members ?? []).map((m) => ({ userId: m.id, remove: false, change: { metadata: m.metadata, flags: m.flags, additionalName: m.additional_name } })),
      });
      reply.code(200);
      return lobby;
    },
  );

  r.get(
    '/api/v10/lobbies/:id',
    { schema: { summary: 'Get a lobby', tags: TAGS, security: BEARER_OR_BOT, params: LobbyParams, response: { 200: LobbySchema } }, config: READ },
    async (req) => {
      const p = await authenticate(req, ctx.store);
      return ctx.lobbies.get(p.applicationId, req.params.id, p.kind === 'bearer' ? p.userId : null);
    },
  );

  // Modify Lobby. `flags` and `override_event_webhooks_url` (the document's newer fields) are not
  // kept by this server: null or left out is accepted, a value is refused by name (50035).
  r.patch(
    '/api/v10/lobbies/:id',
    {
      schema: {
        summary: 'Modify a lobby (members replaces the member list)',
        tags: TAGS,
        security: BOT,
        params: LobbyParams,
        body: Type.Object({
          metadata: Type.Optional(Nullable(Metadata())),
          members: Type.Optional(Nullable(Type.Array(Type.Object({ id: Snowflake(), ...memberFields }), { maxItems: Limits.bulkMembersMax }))),
          idle_timeout_seconds: Type.Optional(Nullable(IdleTimeout)),
          flags: Type.Optional(Nullable(Type.Integer())),
          override_event_webhooks_url: Type.Optional(Nullable(Type.String({ maxLength: 512 }))),
        }),
        response: { 200: LobbySchema },
      },
      config: WRITE,
    },
    async (req) => {
      const bot = requireBot(await authenticate(req, ctx.store));
      const body = req.body;
      for (const field of ['flags', 'override_event_webhooks_url'] as const) {
        if (body[field] != null) throw Errors.invalidForm({ [field]: { _errors: [{ code: 'UNSUPPORTED', message: `This server does not keep a lobby's ${field}.` }] } });
      }
      const seen = new Set<string>();
      for (const m of body.members ?? []) {
        if (seen.has(m.id)) throw Errors.invalidForm({ _errors: [{ code: 'DUPLICATE_MEMBER', message: `Member ${m.id} appears more than once.` }] });
        seen.add(m.id);
      }
      return ctx.lobbies.modifyLobby(bot.applicationId, req.params.id, {
        ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
        ...(body.idle_timeout_seconds != null ? { idleTimeoutSeconds: body.idle_timeout_seconds } : {}),
        ...(body.members != null ? { members: body.members.map((m) => ({ userId: m.id, change: { metadata: m.metadata, flags: m.flags, additionalName: m.additional_name } })) } : {}),
      });
    },
  );

  // Deleting what cannot exist succeeds, as deleting what no longer exists does: no snowflake check.
  r.delete(
    '/api/v10/lobbies/:id',
    { schema: { summary: 'Delete a lobby', tags: TAGS, security: BOT, params: Type.Object({ id: Type.String({ maxLength: 64, description: 'Lobby ID' }) }), response: { 204: NoContent } }, config: WRITE },
    async (req, reply) => {
      const bot = requireBot(await authenticate(req, ctx.store));
      if (/^\d{1,20}$/.test(req.params.id) && BigInt(req.params.id) < 1n << 64n) await ctx.lobbies.deleteLobby(bot.applicationId, req.params.id);
      reply.code(204);
    },
  );

  r.delete(
    '/api/v10/lobbies/:id/members/@me',
    { schema: { summary: 'Leave a lobby', tags: TAGS, security: BEARER, params: LobbyParams, response: { 204: NoContent } }, config: WRITE },
    async (req, reply) => {
      const p = requireBearer(await authenticate(req, ctx.store), SCOPE);
      await ctx.lobbies.leave(p.applicationId, req.params.id, p.userId);
      reply.code(204);
    },
  );

  r.put(
    '/api/v10/lobbies/:id/members/:userId',
    { schema: { summary: 'Add or update a member', tags: TAGS, security: BOT, params: MemberParams, body: OptionalBody(MemberBody), response: { 200: LobbyMemberSchema } }, config: WRITE },
    async (req) => {
      const bot = requireBot(await authenticate(req, ctx.store));
      const body = req.body ?? {};
      const [member] = await ctx.lobbies.upsertMembers(bot.applicationId, req.params.id, [
        { userId: req.params.userId, remove: false, change: { metadata: body.metadata, flags: body.flags, additionalName: body.additional_name } },
      ]);
      return member!;
    },
  );

  r.delete(
    '/api/v10/lobbies/:id/members/:userId',
    { schema: { summary: 'Remove a member', tags: TAGS, security: BOT, params: MemberParams, response: { 204: NoContent } }, config: WRITE },
    async (req, reply) => {
      const bot = requireBot(await authenticate(req, ctx.store));
      await ctx.lobbies.upsertMembers(bot.applicationId, req.params.id, [{ userId: req.params.userId, remove: true, change: {} }]);
      reply.code(204);
    },
  );

  r.post(
    '/api/v10/lobbies/:id/members/bulk',
    { schema: { summary: 'Add, update or remove 1-25 members at once', tags: TAGS, security: BOT, params: LobbyParams, body: BulkBody, response: { 200: Type.Array(LobbyMemberSchema) } }, config: WRITE },
    async (req) => {
      const bot = requireBot(await authenticate(req, ctx.store));
      const body = req.body;
      const seen = new Set<string>();
      for (const m of body) {
        if (seen.has(m.id)) throw Errors.invalidForm({ _errors: [{ code: 'DUPLICATE_MEMBER', message: `Member ${m.id} appears more than once.` }] });
        seen.add(m.id);
      }
      return ctx.lobbies.upsertMembers(
        bot.applicationId,
        req.params.id,
        body.map((m) => ({ userId: m.id, remove: m.remove_member === true, change: { metadata: m.metadata, flags: m.flags, additionalName: m.additional_name } })),
      );
    },
  );

  r.post(
    '/api/v10/lobbies/:id/messages',
    { schema: { summary: 'Send a lobby message', tags: TAGS, security: BEARER, params: LobbyParams, body: MessageBody, response: { 200: LobbyMessageSchema } }, config: SEND },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store), SCOPE);
      return ctx.lobbies.sendMessage(p.applicationId, req.params.id, p.userId, req.body);
    },
  );

  r.get(
    '/api/v10/lobbies/:id/messages',
    { schema: { summary: 'Lobby message history (newest first, 72 h)', tags: TAGS, security: BEARER, params: LobbyParams, querystring: LimitQuery, response: { 200: Type.Array(LobbyMessageSchema) } }, config: HISTORY },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store), SCOPE);
      return ctx.lobbies.history(p.applicationId, req.params.id, p.userId, req.query.limit ?? Limits.lobbyMessagesDefaultPerRead);
    },
  );
}
