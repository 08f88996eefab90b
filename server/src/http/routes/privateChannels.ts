import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServerContext } from '../../ServerContext.ts';
import { privateChannelsFor } from '../../messages/privateChannels.ts';
import { ApiError } from '../ApiError.ts';
import { authenticate } from '../auth.ts';
import { BEARER_OR_BOT, NoContent, OptionalBody } from '../schemas/index.ts';
import { Described, DescribedList, Snowflake } from './guildRouteHelpers.ts';

const TAGS = ['Channels'];
const DM_READ = { bucket: 'dms.read', limit: 20, windowMs: 1_000 };
const DM_WRITE = { bucket: 'dms.open', limit: 10, windowMs: 10_000 };

/**
 * Create DM (`recipient_id`) or Create Group DM (`access_tokens` + `nicks`, the public form for
 * applications; `recipients`, the client's form for users, friends only). One body shape with
 * all three optional: which one is meant is read from what is there.
 */
const CreateBody = Type.Object({
  recipient_id: Type.Optional(Snowflake),
  recipients: Type.Optional(Type.Array(Snowflake, { minItems: 1, maxItems: 9 })),
  access_tokens: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { minItems: 1, maxItems: 10 })),
  nicks: Type.Optional(Type.Record(Type.String({ pattern: '^[0-9]{1,20}$' }), Type.String({ maxLength: 32 }))),
  name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
});

/**
 * A user through a Bearer token with the `guilds` scope, or a bot. With `gate`, also what
 * PrivateChannels.mayUse allows (bots and the first-party web app; no third-party Bearer token):
 * every route but the access_tokens forms, where the users' `gdm.join` grants are the consent.
 */
export async function privateCaller(req: FastifyRequest, ctx: ServerContext, gate = true): Promise<{ userId: string; bot: boolean; applicationId: string }> {
  const p = await authenticate(req, ctx.store);
  const c = p.kind === 'bot' ? { userId: p.botUserId, bot: true, applicationId: p.applicationId } : { userId: p.userId, bot: false, applicationId: p.applicationId };
  if (p.kind !== 'bot' && !p.scopes.includes('guilds')) throw new ApiError(403, 50001, 'Missing Access: the token lacks the guilds scope');
  if (gate && !(await privateChannelsFor(ctx.store, ctx.bus).mayUse(c))) throw new ApiError(403, 50001, 'Missing Access');
  return c;
}

/** DMs and group DMs of full accounts (issue 11); their messages use the channel message routes. */
export function privateChannelRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const s = privateChannelsFor(ctx.store, ctx.bus);

  r.post('/api/v10/users/@me/channels', {
    schema: { summary: 'Create DM or Create Group DM', tags: TAGS, security: BEARER_OR_BOT, body: CreateBody, response: { 200: Described('Channel') } },
    config: { rateLimit: DM_WRITE },
  }, async (req) => {
    const b = req.body;
    const c = await privateCaller(req, ctx, b.recipient_id !== undefined || b.access_tokens === undefined);
    if (b.recipient_id !== undefined) return s.openDm(c.userId, b.recipient_id);
    if (b.access_tokens === undefined && b.recipients === undefined) {
      throw new ApiError(400, 50035, 'Invalid Form Body', { recipient_id: { _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }] } } as never);
    }
    return s.createGroup(c, { ...(b.recipients ? { recipients: b.recipients } : {}), ...(b.access_tokens ? { access_tokens: b.access_tokens } : {}), ...(b.nicks ? { nicks: b.nicks } : {}), ...(b.name !== undefined ? { name: b.name } : {}) });
  });

  const RecipientParams = Type.Object({ channel_id: Type.String(), user_id: Type.String() });
  r.put('/api/v10/channels/:channel_id/recipients/:user_id', {
    schema: {
      summary: 'Group DM Add Recipient', tags: TAGS, security: BEARER_OR_BOT, params: RecipientParams,
      body: OptionalBody(Type.Object({ access_token: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })), nick: Type.Optional(Type.String({ maxLength: 32 })) })),
      response: { 204: NoContent },
    },
    config: { rateLimit: DM_WRITE },
  }, async (req, reply) => {
    await s.addRecipient(await privateCaller(req, ctx, false), req.params.channel_id, req.params.user_id, req.body ?? {});
    void reply.code(204);
  });

  r.delete('/api/v10/channels/:channel_id/recipients/:user_id', {
    schema: { summary: 'Group DM Remove Recipient', tags: TAGS, security: BEARER_OR_BOT, params: RecipientParams, response: { 204: NoContent } },
    config: { rateLimit: DM_WRITE },
  }, async (req, reply) => {
    const c = await privateCaller(req, ctx);
    await s.removeRecipient(c.userId, req.params.channel_id, req.params.user_id === '@me' ? c.userId : req.params.user_id);
    void reply.code(204);
  });

  r.get('/api/v10/users/@me/channels', {
    schema: { summary: 'The caller\'s DM and group DM channels', tags: TAGS, security: BEARER_OR_BOT, response: { 200: DescribedList('Channel') } },
    config: { rateLimit: DM_READ },
  }, async (req) => {
    // An approved application's dm_channels.read token lists the player's DMs (the route table let
    // nothing else of a third party's through); their messages stay closed to it.
    const p = await authenticate(req, ctx.store);
    if (p.kind === 'bearer' && p.scopes.includes('dm_channels.read')) return s.list(p.userId);
    return s.list((await privateCaller(req, ctx)).userId);
  });
}
