import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServerContext } from '../../ServerContext.ts';
import { Errors } from '../ApiError.ts';
import { authenticate } from '../auth.ts';
import { userConnections } from '../../guilds/connections.ts';
import { guildServicesFor } from '../../guilds/GuildServices.ts';
import { GUILD_TAG_PATTERN } from '../../guilds/primaryGuild.ts';
import { Described, DescribedList, GUILD_READ, GUILD_WRITE, GuildErrors, Snowflake, guildCaller } from './guildRouteHelpers.ts';
import { ImageDataUri, Name, NoContent } from '../schemas/index.ts';

const GuildParams = Type.Object({ guild_id: Type.String() });
/** An image as a data URI (the public upload form); the guild keeps its hash. */
const ImageData = Type.Union([ImageDataUri(60_000), Type.Null()]);

/** Guilds: create (users only), get, modify, the caller's guilds, leave, prune. */
export function guildRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const s = guildServicesFor(ctx.store, ctx.bus);

  // POST /guilds is removed for apps (spec, restricted since 2025-07-15): bots get 20001.
  r.post('/api/v10/guilds', {
    schema: { response: { 201: Described('Guild') }, body: Type.Object({ name: Name(2, 100), icon: Type.Optional(ImageData) }) },
   
    config: { rateLimit: { bucket: 'guilds.create', limit: 10, windowMs: 60_000 } },
  }, async (req, reply) => {
    const p = await authenticate(req, ctx.store);
    if (p.kind === 'bot') throw GuildErrors.botsCannotUse();
    const caller = await guildCaller(req, ctx);
    if ((await ctx.store.guilds.ofUser(caller.userId, { limit: 200 })).length >= 100) throw GuildErrors.maxGuilds();
    void reply.code(201);
    return s.guilds.createGuild(caller.userId, { name: req.body.name.trim(), icon: req.body.icon ?? null });
  });

  r.get('/api/v10/guilds/:guild_id', {
    schema: { response: { 200: Described('Guild') }, params: GuildParams, querystring: Type.Object({ with_counts: Type.Optional(Type.Boolean()) }) },
   
    config: { rateLimit: GUILD_READ },
  }, async (req) => {
    const caller = await guildCaller(req, ctx);
    return s.guilds.getGuild(caller.userId, req.params.guild_id, req.query.with_counts === true);
  });

  r.patch('/api/v10/guilds/:guild_id', {
    schema: { response: { 200: Described('Guild') },
      params: GuildParams,
      body: Type.Object({
        name: Type.Optional(Name(2, 100)),
        icon: Type.Optional(ImageData),
        banner: Type.Optional(ImageData),
        description: Type.Optional(Type.Union([Type.String({ maxLength: 300 }), Type.Null()])),
        owner_id: Type.Optional(Snowflake),
        system_channel_id: Type.Optional(Type.Union([Snowflake, Type.Null()])),
        features: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 })),
        // The guild tag members may show as their `primary_guild` (spec: 1 to 4 characters); null removes it.
        tag: Type.Optional(Type.Union([Type.String({ pattern: GUILD_TAG_PATTERN }), Type.Null()])),
        badge: Type.Optional(ImageData),
      }),
    },
   
    config: { rateLimit: GUILD_WRITE },
  }, async (req) => {
    const caller = await guildCaller(req, ctx);
    return s.guilds.modifyGuild(caller.userId, req.params.guild_id, req.body, req.audit);
  });

  // Each guild includes `banner`; a Bearer token needs the `guilds` scope (spec).
  r.get('/api/v10/users/@me/guilds', {
    schema: { response: { 200: DescribedList('PartialGuild') },
      querystring: Type.Object({
        before: Type.Optional(Snowflake),
        after: Type.Optional(Snowflake),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
        with_counts: Type.Optional(Type.Boolean()),
      }),
    },
   
    config: { rateLimit: GUILD_READ },
  }, async (req) => {
    const caller = await guildCaller(req, ctx);
    return s.guilds.userGuilds(caller.userId, { ...req.query, withCounts: req.query.with_counts === true });
  });

  // The user's linked identities as public connections (scope `connections`); see guilds/connections.ts.
  r.get('/api/v10/users/@me/connections', { schema: { response: { 200: DescribedList('Connection') } }, config: { rateLimit: GUILD_READ } }, async (req) => {
    const p = await authenticate(req, ctx.store);
    if (p.kind === 'bot') throw GuildErrors.botsCannotUse();
    if (!p.scopes.includes('connections')) throw Errors.missingScope('connections');
    return userConnections(ctx.store, p.userId);
  });

  r.delete('/api/v10/users/@me/guilds/:guild_id', { schema: { response: { 204: NoContent }, params: GuildParams }, config: { rateLimit: GUILD_WRITE } }, async (req, reply) => {
    const caller = await guildCaller(req, ctx);
    await s.members.leave(caller.userId, req.params.guild_id);
    void reply.code(204);
  });

  const PruneQuery = Type.Object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 })), include_roles: Type.Optional(Type.String({ maxLength: 2100 })) });
  r.get('/api/v10/guilds/:guild_id/prune', { schema: { response: { 200: Described('PruneCount') }, params: GuildParams, querystring: PruneQuery }, config: { rateLimit: GUILD_READ } }, async (req) => {
    const caller = await guildCaller(req, ctx);
    return s.members.pruneCount(caller.userId, req.params.guild_id, req.query.days ?? 7, splitIds(req.query.include_roles));
  });

  r.post('/api/v10/guilds/:guild_id/prune', {
    schema: { response: { 200: Described('PruneResult') },
      params: GuildParams,
      body: Type.Object({
        days: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 })),
        compute_prune_count: Type.Optional(Type.Boolean()),
        include_roles: Type.Optional(Type.Array(Snowflake, { maxItems: 100 })),
        reason: Type.Optional(Type.String({ maxLength: 512 })),
      }),
    },
   
    config: { rateLimit: GUILD_WRITE },
  }, async (req) => {
    const caller = await guildCaller(req, ctx);
    return s.members.beginPrune(caller.userId, req.params.guild_id, req.body.days ?? 7, req.body.include_roles ?? [], req.body.compute_prune_count !== false, req.audit);
  });
}

/** `include_roles` in a query: comma-separated IDs. */
function splitIds(v: string | undefined): string[] {
  if (!v) return [];
  const ids = v.split(',').map((x) => x.trim()).filter(Boolean);
  ids.forEach((id, i) => {
    if (!/^\d{1,20}$/.test(id)) throw GuildErrors.invalidForm(['include_roles', String(i)], 'NUMBER_TYPE_COERCE', 'Not a role ID');
  });
  return ids;
}
