import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { APIUser } from 'discord-api-types/v10';
import type { ServerContext } from '../../ServerContext.ts';
import { pollVotesFor } from '../../messages/PollVotes.ts';
import { BEARER_OR_BOT, NoContent, Wire } from '../schemas/index.ts';
import { Snowflake } from './guildRouteHelpers.ts';
import { MESSAGE_READ, MESSAGE_REACT, MESSAGE_WRITE, MessageSchema, messageCaller } from './channelMessages.ts';

const PollParams = Type.Object({ channel_id: Type.String(), message_id: Type.String() });
const AnswerParams = Type.Object({ channel_id: Type.String(), message_id: Type.String(), answer_id: Type.Integer({ minimum: 1, maximum: 10 }) });
const VotersQuery = Type.Object({ after: Type.Optional(Snowflake), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) });
const VoteBody = Type.Object({ answer_ids: Type.Array(Type.Union([Type.String({ pattern: '^[0-9]{1,2}$' }), Type.Integer({ minimum: 1, maximum: 10 })]), { maxItems: 10 }) });
const Voters = Wire<{ users: APIUser[] }>(Type.Object({ users: Type.Array(Type.Object({ id: Snowflake }, { additionalProperties: true })) }, { title: 'PollAnswerVoters' }));
const TAGS = ['Polls'];

/**
 * Polls on channel messages: Get Answer Voters and End Poll (public), and the vote the public
 * client sends (`PUT .../answers/@me {answer_ids}`: the caller's answers become these; empty
 * withdraws). Votes count toward `results.answer_counts` of the message.
 */
export function pollRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const votes = pollVotesFor(ctx.store, ctx.bus);
  r.get('/api/v10/channels/:channel_id/polls/:message_id/answers/:answer_id', {
    schema: { summary: 'Get Answer Voters', tags: TAGS, security: BEARER_OR_BOT, params: AnswerParams, querystring: VotersQuery, response: { 200: Voters } },
    config: { rateLimit: MESSAGE_READ },
  }, async (req) => votes.voters(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id, req.params.answer_id, req.query));
  r.post('/api/v10/channels/:channel_id/polls/:message_id/expire', {
    schema: { summary: 'End Poll', tags: TAGS, security: BEARER_OR_BOT, params: PollParams, response: { 200: MessageSchema } },
    config: { rateLimit: MESSAGE_WRITE },
  }, async (req) => votes.expire(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id));
  r.put('/api/v10/channels/:channel_id/polls/:message_id/answers/@me', {
    schema: { summary: 'Vote in a poll (the public client\'s route): the caller\'s answers become answer_ids', tags: TAGS, security: BEARER_OR_BOT, params: PollParams, body: VoteBody, response: { 204: NoContent } },
    config: { rateLimit: MESSAGE_REACT },
  }, async (req, reply) => {
    await votes.vote(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id, req.body.answer_ids);
    void reply.code(204);
  });
}
