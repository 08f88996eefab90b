import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerContext } from '../../ServerContext.ts';
import { authenticate } from '../auth.ts';
import { Errors } from '../ApiError.ts';
import { BEARER_OR_BOT, NoContent, QueryBool, Type, type TypeBoxTypeProvider, isTrue } from '../schemas/index.ts';
import { CommandService } from '../../interactions/CommandService.ts';

const TAGS = ['Application commands'];
const READ = { rateLimit: { bucket: 'commands.read', limit: 50, windowMs: 10_000 } };
const WRITE = { rateLimit: { bucket: 'commands.write', limit: 50, windowMs: 10_000 } };

/** The public ApplicationCommand object (documentation; handlers answer CommandWire). */
export const CommandSchema = Type.Object(
  {
    id: Type.String(),
    application_id: Type.String(),
    guild_id: Type.Optional(Type.String()),
    type: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    version: Type.String(),
  },
  { title: 'ApplicationCommand', additionalProperties: true },
);
/** Bodies are trees with many optional shapes: taken as they are and checked by commandRules.ts (50035 paths). */
const CommandBody = Type.Unknown({ description: 'An application command (name, type, description, options, ...)' });
const AppParams = Type.Object({ applicationId: Type.String({ maxLength: 20 }) });
const GuildParams = Type.Object({ applicationId: Type.String({ maxLength: 20 }), guildId: Type.String({ maxLength: 20 }) });
const CmdParams = Type.Object({ applicationId: Type.String({ maxLength: 20 }), commandId: Type.String({ maxLength: 20 }) });
const GuildCmdParams = Type.Object({ applicationId: Type.String({ maxLength: 20 }), guildId: Type.String({ maxLength: 20 }), commandId: Type.String({ maxLength: 20 }) });

/**
 * The application's own Bot token, or a Bearer token of that application with the
 * `applications.commands.update` scope (client credentials), may manage its commands.
 */
async function commandOwner(req: FastifyRequest, ctx: ServerContext, applicationId: string): Promise<string> {
  const p = await authenticate(req, ctx.store);
  if (p.applicationId !== applicationId) throw Errors.missingAccess();
  if (p.kind === 'bearer' && !p.scopes.includes('applications.commands.update')) throw Errors.missingScope('applications.commands.update');
  return applicationId;
}

/** Global and guild application commands (issue 13). */
export function applicationCommandRoutes(app: FastifyInstance, ctx: ServerContext): CommandService {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const s = new CommandService(ctx.store);
  const doc = (summary: string, response: Record<number, unknown>) => ({ summary, tags: TAGS, security: BEARER_OR_BOT, response });

  for (const guild of [false, true]) {
    const base = guild ? '/api/v10/applications/:applicationId/guilds/:guildId/commands' : '/api/v10/applications/:applicationId/commands';
    const kind = guild ? 'Guild' : 'Global';
    const scopeOf = (params: object) => (guild ? (params as { guildId: string }).guildId : null);
    r.get(base, { schema: { ...doc(`Get ${kind} Application Commands`, { 200: Type.Array(CommandSchema) }), params: guild ? GuildParams : AppParams, querystring: Type.Object({ with_localizations: Type.Optional(QueryBool()) }) }, config: READ }, async (req) => {
      const appId = await commandOwner(req, ctx, req.params.applicationId);
      return s.list(appId, scopeOf(req.params), { withLocalizations: isTrue(req.query.with_localizations) });
    });
    r.post(base, { schema: { ...doc(`Create ${kind} Application Command (an existing name and type is replaced: 200)`, { 200: CommandSchema, 201: CommandSchema }), params: guild ? GuildParams : AppParams, body: CommandBody }, config: WRITE }, async (req, reply) => {
      const appId = await commandOwner(req, ctx, req.params.applicationId);
      const { command, created } = await s.create(appId, scopeOf(req.params), req.body);
      return reply.code(created ? 201 : 200).send(command);
    });
    r.put(base, { schema: { ...doc(`Bulk Overwrite ${kind} Application Commands`, { 200: Type.Array(CommandSchema) }), params: guild ? GuildParams : AppParams, body: Type.Array(CommandBody, { maxItems: 250 }) }, config: WRITE }, async (req) => {
      const appId = await commandOwner(req, ctx, req.params.applicationId);
      return s.overwrite(appId, scopeOf(req.params), req.body);
    });
    r.get(`${base}/:commandId`, { schema: { ...doc(`Get ${kind} Application Command`, { 200: CommandSchema }), params: guild ? GuildCmdParams : CmdParams }, config: READ }, async (req) => {
      const appId = await commandOwner(req, ctx, req.params.applicationId);
      return s.get(appId, scopeOf(req.params), req.params.commandId);
    });
    r.patch(`${base}/:commandId`, { schema: { ...doc(`Edit ${kind} Application Command`, { 200: CommandSchema }), params: guild ? GuildCmdParams : CmdParams, body: CommandBody }, config: WRITE }, async (req) => {
      const appId = await commandOwner(req, ctx, req.params.applicationId);
      return s.edit(appId, scopeOf(req.params), req.params.commandId, req.body);
    });
    r.delete(`${base}/:commandId`, { schema: { ...doc(`Delete ${kind} Application Command`, { 204: NoContent }), params: guild ? GuildCmdParams : CmdParams }, config: WRITE }, async (req, reply) => {
      const appId = await commandOwner(req, ctx, req.params.applicationId);
      await s.delete(appId, scopeOf(req.params), req.params.commandId);
      return reply.code(204).send();
    });
  }
  return s;
}
