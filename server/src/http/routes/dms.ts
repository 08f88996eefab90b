import type { FastifyInstance } from 'fastify';
import { Limits, SocialLimits } from '@social-layer/protocol';
import type { ServerContext } from '../../ServerContext.ts';
import { authenticate, requireBot } from '../auth.ts';
import {
  BEARER,
  BOT,
  DirectMessageSchema,
  IdParam,
  Int,
  MessageSummarySchema,
  Metadata,
  NoContent,
  NotFound,
  Str,
  StringMap,
  Type,
  type TypeBoxTypeProvider,
} from '../schemas/index.ts';
import { rateLimit, requireUserScope, UserParams } from './socialRouteHelpers.ts';

const SEND = rateLimit('dms.send', 50);
const READ = rateLimit('dms.read', 30);
const MODERATION = rateLimit('moderation.write', 60);
const SCOPE = 'dm_channels.messages.write';
const TAGS = ['direct messages'];

const SendBody = Type.Object({ content: Str(1, Limits.messageContentMaxLength), metadata: Type.Optional(Metadata()) });
const EditBody = Type.Object({ content: Str(1, Limits.messageContentMaxLength) });
const LimitQuery = Type.Object({ limit: Type.Optional(Int(1, SocialLimits.directMessagesMaxPerRead, `Default ${SocialLimits.directMessagesDefaultPerRead}`)) });

/** Moderation metadata (protocols.md 2.6): a free-form map of at most 5 keys, key <= 1024, value <= 2000. */
const ModerationMetadata = StringMap({
  maxKeys: SocialLimits.moderationMetadataMaxKeys,
  keyMaxLength: SocialLimits.moderationKeyMaxLength,
  valueMaxLength: SocialLimits.moderationValueMaxLength,
  valueError: { code: 'BASE_TYPE_BAD_LENGTH', message: `Must be a string of ${SocialLimits.moderationValueMaxLength} or fewer characters.` },
  description: `At most ${SocialLimits.moderationMetadataMaxKeys} keys; keys <= ${SocialLimits.moderationKeyMaxLength}, values <= ${SocialLimits.moderationValueMaxLength} characters`,
});

const MessageId = IdParam(NotFound.message, 'Message ID; anything else answers 10008');
const UserMessageParams = Type.Object({ userId: UserParams.properties.userId, messageId: MessageId });

/**
 * Direct messages addressed by the other user (`/users/{id}/messages`, the SDK's shape: every DM
 * call names a recipient), summaries, and the two moderation-metadata endpoints.
 */
export function directMessageRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const dms = ctx.social.directMessages;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  /** SendUserMessage / SendUserMessageWithMetadata. */
  r.post(
    '/api/v10/users/:userId/messages',
    { schema: { summary: 'Send a direct message (SendUserMessage)', tags: TAGS, security: BEARER, params: UserParams, body: SendBody, response: { 200: DirectMessageSchema } }, config: SEND },
    async (req) => {
      const p = requireUserScope(await authenticate(req, ctx.store), SCOPE);
      return dms.send(p.applicationId, p.userId, req.params.userId, req.body);
    },
  );

  /** GetUserMessagesWithLimit (HTTP side): newest first, 1-200 (default 50), 72 hours. */
  r.get(
    '/api/v10/users/:userId/messages',
    { schema: { summary: 'Direct message history with a user (newest first, 72 h)', tags: TAGS, security: BEARER, params: UserParams, querystring: LimitQuery, response: { 200: Type.Array(DirectMessageSchema) } }, config: READ },
    async (req) => {
      const p = requireUserScope(await authenticate(req, ctx.store), SCOPE);
      return dms.history(p.applicationId, p.userId, req.params.userId, req.query.limit ?? SocialLimits.directMessagesDefaultPerRead);
    },
  );

  /** EditUserMessage: the author only (50005). */
  r.patch(
    '/api/v10/users/:userId/messages/:messageId',
    { schema: { summary: 'Edit your direct message (EditUserMessage)', tags: TAGS, security: BEARER, params: UserMessageParams, body: EditBody, response: { 200: DirectMessageSchema } }, config: SEND },
    async (req) => {
      const p = requireUserScope(await authenticate(req, ctx.store), SCOPE);
      return dms.edit(p.applicationId, p.userId, req.params.userId, req.params.messageId, req.body.content);
    },
  );

  /** DeleteUserMessage: the author only (50003). */
  r.delete(
    '/api/v10/users/:userId/messages/:messageId',
    { schema: { summary: 'Delete your direct message (DeleteUserMessage)', tags: TAGS, security: BEARER, params: UserMessageParams, response: { 204: NoContent } }, config: SEND },
    async (req, reply) => {
      const p = requireUserScope(await authenticate(req, ctx.store), SCOPE);
      await dms.delete(p.applicationId, p.userId, req.params.userId, req.params.messageId);
      reply.code(204);
    },
  );

  /** GetUserMessageSummaries. */
  r.get(
    '/api/v10/users/@me/message-summaries',
    { schema: { summary: 'Latest message per conversation (GetUserMessageSummaries)', tags: TAGS, security: BEARER, response: { 200: Type.Array(MessageSummarySchema) } }, config: READ },
    async (req) => {
      const p = requireUserScope(await authenticate(req, ctx.store), SCOPE);
      return dms.summaries(p.applicationId, p.userId);
    },
  );

  /** Moderation metadata of a game DM (Bot of the sending application). */
  r.put(
    '/api/v10/channels/:channelId/messages/:messageId/moderation-metadata',
    {
      schema: {
        summary: 'Set moderation metadata of a game DM',
        tags: TAGS,
        security: BOT,
        params: Type.Object({ channelId: IdParam(NotFound.any, 'DM channel ID'), messageId: MessageId }),
        body: ModerationMetadata,
        response: { 204: NoContent },
      },
      config: MODERATION,
    },
    async (req, reply) => {
      const bot = requireBot(await authenticate(req, ctx.store));
      await dms.setModerationMetadata(bot.applicationId, req.params.channelId, req.params.messageId, req.body);
      reply.code(204);
    },
  );

  /** Moderation metadata of a game DM named by its two users (Bot of the sending application). */
  r.put(
    '/api/v10/partner-sdk/dms/:user_id_1/:user_id_2/messages/:messageId/moderation-metadata',
    {
      schema: {
        summary: 'Set moderation metadata of a game DM, by its two users',
        tags: TAGS,
        security: BOT,
        params: Type.Object({ user_id_1: IdParam(NotFound.message, 'One user of the conversation'), user_id_2: IdParam(NotFound.message, 'The other user'), messageId: MessageId }),
        body: ModerationMetadata,
        response: { 204: NoContent },
      },
      config: MODERATION,
    },
    async (req, reply) => {
      const bot = requireBot(await authenticate(req, ctx.store));
      await dms.setModerationMetadataBetween(bot.applicationId, req.params.user_id_1, req.params.user_id_2, req.params.messageId, req.body);
      reply.code(204);
    },
  );

  /** Moderation metadata of a lobby message (Bot of the lobby's application). */
  r.put(
    '/api/v10/lobbies/:id/messages/:messageId/moderation-metadata',
    {
      schema: {
        summary: 'Set moderation metadata of a lobby message',
        tags: ['lobbies'],
        security: BOT,
        params: Type.Object({ id: IdParam(NotFound.lobby, 'Lobby ID; anything else answers 10031'), messageId: MessageId }),
        body: ModerationMetadata,
        response: { 204: NoContent },
      },
      config: MODERATION,
    },
    async (req, reply) => {
      const bot = requireBot(await authenticate(req, ctx.store));
      await dms.setLobbyModerationMetadata(bot.applicationId, req.params.id, req.params.messageId, req.body);
      reply.code(204);
    },
  );
}
