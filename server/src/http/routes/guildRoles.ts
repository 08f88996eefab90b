import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Name, NoContent, OptionalBody } from '../schemas/index.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { guildServicesFor } from '../../guilds/GuildServices.ts';
import { Described, DescribedList, GUILD_READ, GUILD_WRITE, PermissionString, Snowflake, guildCaller } from './guildRouteHelpers.ts';

const GuildParams = Type.Object({ guild_id: Type.String() });
const RoleParams = Type.Object({ guild_id: Type.String(), role_id: Type.String() });
const Color = Type.Integer({ minimum: 0, maximum: 0xffffff });
const RoleBody = Type.Object({
  name: Type.Optional(Type.Union([Name(1, 100), Type.Null()])),
  // The public API takes the bitfield as a decimal string or, as its OpenAPI document types it,
  // an integer; null is the default set.
  permissions: Type.Optional(Type.Union([PermissionString, Type.Integer({ minimum: 0 }), Type.Null()])),
  color: Type.Optional(Type.Union([Color, Type.Null()])),
  colors: Type.Optional(Type.Object({ primary_color: Color, secondary_color: Type.Optional(Type.Union([Color, Type.Null()])), tertiary_color: Type.Optional(Type.Union([Color, Type.Null()])) })),
  hoist: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  mentionable: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  unicode_emoji: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
  icon: Type.Optional(Type.Null()),
});

/**
 * The body as the services take it: `permissions` a decimal string, and a null in a field whose
 * null the public API reads as "not given" (the OpenAPI document allows null for every field)
 * left out; `unicode_emoji` and `icon` keep null, which removes them.
 */
const KEEPS_NULL = new Set(['unicode_emoji', 'icon']);
function roleInput<B extends Record<string, unknown>>(body: B) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (v === null && !KEEPS_NULL.has(k)) continue;
    out[k] = k === 'permissions' ? String(v) : v;
  }
  return out as { [K in keyof B]?: K extends 'permissions' ? string : Exclude<B[K], K extends 'unicode_emoji' | 'icon' ? never : null> };
}

/** Roles: list, get one, member counts, create, modify, delete, reorder. */
export function guildRoleRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const s = guildServicesFor(ctx.store, ctx.bus);

  r.get('/api/v10/guilds/:guild_id/roles', { schema: { response: { 200: DescribedList('Role') }, params: GuildParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    return s.guilds.listRoles((await guildCaller(req, ctx)).userId, req.params.guild_id);
  });

  r.get('/api/v10/guilds/:guild_id/roles/member-counts', { schema: { response: { 200: Described('RoleMemberCounts') }, params: GuildParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    return s.guilds.roleMemberCounts((await guildCaller(req, ctx)).userId, req.params.guild_id);
  });

  r.get('/api/v10/guilds/:guild_id/roles/:role_id', { schema: { response: { 200: Described('Role') }, params: RoleParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    return s.guilds.getRole((await guildCaller(req, ctx)).userId, req.params.guild_id, req.params.role_id);
  });

  r.post('/api/v10/guilds/:guild_id/roles', { schema: { response: { 200: Described('Role') }, params: GuildParams, body: OptionalBody(RoleBody) }, config: { rateLimit: GUILD_WRITE } }, async (req) => {
    return s.guilds.createRole((await guildCaller(req, ctx)).userId, req.params.guild_id, roleInput(req.body ?? {}), req.audit);
  });

  r.patch('/api/v10/guilds/:guild_id/roles', {
    schema: { response: { 200: DescribedList('Role') }, params: GuildParams, body: Type.Array(Type.Object({ id: Snowflake, position: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 1000 }), Type.Null()])) }), { minItems: 1, maxItems: 250 }) },
    config: { rateLimit: GUILD_WRITE },
  }, async (req) => {
    return s.guilds.reorderRoles((await guildCaller(req, ctx)).userId, req.params.guild_id, req.body, req.audit);
  });

  r.patch('/api/v10/guilds/:guild_id/roles/:role_id', { schema: { response: { 200: Described('Role') }, params: RoleParams, body: RoleBody }, config: { rateLimit: GUILD_WRITE } }, async (req) => {
    return s.guilds.modifyRole((await guildCaller(req, ctx)).userId, req.params.guild_id, req.params.role_id, roleInput(req.body), req.audit);
  });

  r.delete('/api/v10/guilds/:guild_id/roles/:role_id', { schema: { response: { 204: NoContent }, params: RoleParams }, config: { rateLimit: GUILD_WRITE } }, async (req, reply) => {
    await s.guilds.deleteRole((await guildCaller(req, ctx)).userId, req.params.guild_id, req.params.role_id, req.audit);
    void reply.code(204);
  });
}
