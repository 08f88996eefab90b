import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isSnowflake, Limits, SocialLimits, type Metadata } from '@social-layer/protocol';
import type { ServerContext } from '../../ServerContext.ts';
import { SocialErrors } from '../../social/socialErrors.ts';
import { Errors } from '../ApiError.ts';
import { authenticate, requireBot } from '../auth.ts';
import { type Check, int, metadata, object, parse, str } from '../validate.ts';
import { pathUserId, queryInt, rateLimit, requireUserScope } from './socialRouteHelpers.ts';

const SEND = rateLimit('dms.send', 50);
const READ = rateLimit('dms.read', 30);
const MODERATION = rateLimit('moderation.write', 60);
const SCOPE = 'dm_channels.messages.write';

const sendBody = object({
  content: { check: str({ min: 1, max: Limits.messageContentMaxLength }), required: true },
  metadata: { check: metadata },
});
const editBody = object({ content: { check: str({ min: 1, max: Limits.messageContentMaxLength }), required: true } });
const limitQuery = object({ limit: { check: int({ min: 1, max: SocialLimits.directMessagesMaxPerRead }) } });

/** Moderation metadata (protocols.md 2.6): a free-form map of at most 5 keys, key <= 1024, value <= 2000. */
const moderationMetadata: Check<Metadata> = (v, path, errs) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return void errs.add(path, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType.');
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > SocialLimits.moderationMetadataMaxKeys) {
    return void errs.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${SocialLimits.moderationMetadataMaxKeys} or fewer in length.`);
  }
  let ok = true;
  const out: Metadata = {};
  for (const [k, val] of entries) {
    if (k.length > SocialLimits.moderationKeyMaxLength) {
      errs.add([...path, k], 'BASE_TYPE_MAX_LENGTH', `Keys must be ${SocialLimits.moderationKeyMaxLength} or fewer in length.`);
      ok = false;
    } else if (typeof val !== 'string' || val.length > SocialLimits.moderationValueMaxLength) {
      errs.add([...path, k], 'BASE_TYPE_BAD_LENGTH', `Must be a string of ${SocialLimits.moderationValueMaxLength} or fewer characters.`);
      ok = false;
    } else out[k] = val;
  }
  return ok ? out : undefined;
};

function messageId(req: FastifyRequest): string {
  const id = (req.params as { messageId: string }).messageId;
  if (!isSnowflake(id)) throw SocialErrors.unknownMessage();
  return id;
}

/**
 * Direct messages addressed by the other user (`/users/{id}/messages`, the SDK's shape: every DM
 * call names a recipient), summaries, and the two moderation-metadata endpoints.
 */
export function directMessageRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const dms = ctx.social.directMessages;

  /** SendUserMessage / SendUserMessageWithMetadata. */
  app.post('/api/v10/users/:userId/messages', SEND, async (req) => {
    const p = requireUserScope(await authenticate(req, ctx.store), SCOPE);
    const body = parse(sendBody, req.body);
    return dms.send(p.applicationId, p.userId, pathUserId(req), body);
  });

  /** GetUserMessagesWithLimit (HTTP side): newest first, 1-200 (default 50), 72 hours. */
  app.get('/api/v10/users/:userId/messages', READ, async (req) => {
    const p = requireUserScope(await authenticate(req, ctx.store), SCOPE);
    const otherId = pathUserId(req);
    const raw = queryInt(req, 'limit');
    const query = parse(limitQuery, raw === undefined ? {} : { limit: raw });
    return dms.history(p.applicationId, p.userId, otherId, query.limit ?? SocialLimits.directMessagesDefaultPerRead);
  });

  /** EditUserMessage: the author only (50005). */
  app.patch('/api/v10/users/:userId/messages/:messageId', SEND, async (req) => {
    const p = requireUserScope(await authenticate(req, ctx.store), SCOPE);
    const otherId = pathUserId(req);
    const id = messageId(req);
    const body = parse(editBody, req.body);
    return dms.edit(p.applicationId, p.userId, otherId, id, body.content);
  });

  /** DeleteUserMessage: the author only (50003). */
  app.delete('/api/v10/users/:userId/messages/:messageId', SEND, async (req, reply) => {
    const p = requireUserScope(await authenticate(req, ctx.store), SCOPE);
    await dms.delete(p.applicationId, p.userId, pathUserId(req), messageId(req));
    reply.code(204);
  });

  /** GetUserMessageSummaries. */
  app.get('/api/v10/users/@me/message-summaries', READ, async (req) => {
    const p = requireUserScope(await authenticate(req, ctx.store), SCOPE);
    return dms.summaries(p.applicationId, p.userId);
  });

  /** Moderation metadata of a game DM (Bot of the sending application). */
  app.put('/api/v10/channels/:channelId/messages/:messageId/moderation-metadata', MODERATION, async (req, reply) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    const channelId = (req.params as { channelId: string }).channelId;
    if (!isSnowflake(channelId)) throw Errors.notFound();
    const body = parse(moderationMetadata, req.body);
    await dms.setModerationMetadata(bot.applicationId, channelId, messageId(req), body);
    reply.code(204);
  });

  /** Moderation metadata of a lobby message (Bot of the lobby's application). */
  app.put('/api/v10/lobbies/:id/messages/:messageId/moderation-metadata', MODERATION, async (req, reply) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    const lobbyId = (req.params as { id: string }).id;
    if (!isSnowflake(lobbyId)) throw Errors.unknownLobby();
    const body = parse(moderationMetadata, req.body);
    await dms.setLobbyModerationMetadata(bot.applicationId, lobbyId, messageId(req), body);
    reply.code(204);
  });
}
