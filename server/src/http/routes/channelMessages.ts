import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import type { ServerContext } from '../../ServerContext.ts';
import { ApiError } from '../ApiError.ts';
import { authenticate } from '../auth.ts';
import { messageServiceFor, type MessageCaller, type UploadedFile } from '../../messages/MessageService.ts';
import { MAX_ANY_ATTACHMENT_BYTES } from '../../messages/attachmentLimits.ts';
import { MAX_ATTACHMENTS } from '../../messages/attachments.ts';
import { readMultipartBody } from '../multipartBody.ts';
import { Embed } from '../../messages/embeds.ts';
import { Snowflake } from './guildRouteHelpers.ts';
import { BEARER_OR_BOT, NoContent, OptionalBody, Wire, parseWith } from '../schemas/index.ts';
import type { APIMessage, APIUser } from 'discord-api-types/v10';

/** Path IDs stay plain strings: a malformed one is the resource's 404, as with the guild routes. */
const ChannelParams = Type.Object({ channel_id: Type.String() });
const MessageParams = Type.Object({ channel_id: Type.String(), message_id: Type.String() });
const ReactionParams = Type.Object({ channel_id: Type.String(), message_id: Type.String(), emoji: Type.String({ maxLength: 100 }) });
const UserReactionParams = Type.Object({ channel_id: Type.String(), message_id: Type.String(), emoji: Type.String({ maxLength: 100 }), user_id: Type.String() });

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const AllowedMentions = Type.Object({
  parse: Type.Optional(Type.Array(Type.Union([Type.Literal('users'), Type.Literal('roles'), Type.Literal('everyone')]), { maxItems: 3 })),
  users: Type.Optional(Type.Array(Snowflake, { maxItems: 100 })),
  roles: Type.Optional(Type.Array(Snowflake, { maxItems: 100 })),
  replied_user: Type.Optional(Type.Boolean()),
});
/**
 * Components: a tree of many shapes, which the validator's unknown-field stripping would prune,
 * so the schema takes them as they are and messages/components.ts checks each type's fields with
 * the same 50035 paths.
 */
const Components = Type.Array(Type.Unknown({ description: 'A message component (action row, button, select, or a V2 type)' }), { maxItems: 40 });

/** `attachments[]` of a request: pairs with `files[id]` on create; names kept ones on edit. */
const AttachmentMeta = Type.Object({
  id: Type.Union([Snowflake, Type.Integer({ minimum: 0 })]),
  filename: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  description: Type.Optional(Type.String({ maxLength: 1024 })),
  is_spoiler: Type.Optional(Type.Boolean()),
});
// Every field may be null, which the public API reads as "not given" (its OpenAPI document allows
// null for each; conformance.test): the route drops the nulls before the service sees the body.
const CreateBody = Type.Object({
  content: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  nonce: Type.Optional(Nullable(Type.Union([Type.String({ maxLength: 25 }), Type.Integer()]))),
  enforce_nonce: Type.Optional(Nullable(Type.Boolean())),
  tts: Type.Optional(Nullable(Type.Boolean())),
  embeds: Type.Optional(Nullable(Type.Array(Embed, { maxItems: 10 }))),
  embed: Type.Optional(Nullable(Embed)),
  components: Type.Optional(Nullable(Components)),
  flags: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  allowed_mentions: Type.Optional(Nullable(AllowedMentions)),
  message_reference: Type.Optional(Nullable(Type.Object({
    type: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)])),
    message_id: Type.Optional(Snowflake),
    channel_id: Type.Optional(Snowflake),
    guild_id: Type.Optional(Snowflake),
    fail_if_not_exists: Type.Optional(Type.Boolean()),
  }))),
  sticker_ids: Type.Optional(Nullable(Type.Array(Snowflake, { maxItems: 3 }))),
  attachments: Type.Optional(Nullable(Type.Array(AttachmentMeta, { maxItems: 10 }))),
  /** The public poll create request; taken as it is (the validator would strip unknown fields) and checked by messages/polls.ts with 50035 paths. */
  poll: Type.Optional(Type.Unknown({ description: 'Poll create request: question {text}, answers [{poll_media: {text, emoji?}}], duration (hours), allow_multiselect, layout_type' })),
});
const EditBody = Type.Object({
  content: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  embeds: Type.Optional(Nullable(Type.Array(Embed, { maxItems: 10 }))),
  components: Type.Optional(Nullable(Components)),
  flags: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  allowed_mentions: Type.Optional(Nullable(AllowedMentions)),
  attachments: Type.Optional(Nullable(Type.Array(AttachmentMeta, { maxItems: 10 }))),
});
const HistoryQuery = Type.Object({
  before: Type.Optional(Snowflake),
  after: Type.Optional(Snowflake),
  around: Type.Optional(Snowflake),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});

/** The public Message object (documentation; the handler's value is discord-api-types' APIMessage). */
export const MessageSchema = Wire<APIMessage>(Type.Object(
  {
    id: Snowflake,
    channel_id: Snowflake,
    type: Type.Integer(),
    author: Type.Object({ id: Snowflake }, { additionalProperties: true }),
    content: Type.String(),
    timestamp: Type.String(),
    edited_timestamp: Nullable(Type.String()),
    tts: Type.Boolean(),
    mention_everyone: Type.Boolean(),
    mentions: Type.Array(Type.Object({ id: Snowflake }, { additionalProperties: true })),
    mention_roles: Type.Array(Snowflake),
    attachments: Type.Array(Type.Object({}, { additionalProperties: true })),
    embeds: Type.Array(Type.Object({}, { additionalProperties: true })),
    components: Type.Array(Type.Object({}, { additionalProperties: true })),
    pinned: Type.Boolean(),
    flags: Type.Integer(),
    nonce: Type.Optional(Type.String()),
    reactions: Type.Optional(Type.Array(Type.Object({ count: Type.Integer(), me: Type.Boolean(), emoji: Type.Object({}, { additionalProperties: true }) }, { additionalProperties: true }))),
    message_reference: Type.Optional(Type.Object({ type: Type.Integer(), message_id: Snowflake, channel_id: Snowflake }, { additionalProperties: true })),
    message_snapshots: Type.Optional(Type.Array(Type.Object({ message: Type.Object({}, { additionalProperties: true }) }))),
    referenced_message: Type.Optional(Nullable(Type.Object({ id: Snowflake }, { additionalProperties: true }))),
  },
  { title: 'Message', additionalProperties: true },
));
const PinsPage = Type.Object({ items: Type.Array(Type.Object({ pinned_at: Type.String(), message: MessageSchema })), has_more: Type.Boolean() }, { title: 'ChannelPins' });
const Users = Wire<APIUser[]>(Type.Array(Type.Object({ id: Snowflake }, { additionalProperties: true })));
const TAGS = ['Messages'];
const doc = (summary: string, response: Record<number, unknown>) => ({ summary, tags: TAGS, security: BEARER_OR_BOT, response });
const ok = (summary: string, schema: unknown) => doc(summary, { 200: schema });
const none = (summary: string) => doc(summary, { 204: NoContent });

/** Media types served inline by extension; every other file is a download. */
const SAFE_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
  mp4: 'video/mp4', webm: 'video/webm', mp3: 'audio/mpeg', ogg: 'audio/ogg', wav: 'audio/wav', txt: 'text/plain; charset=utf-8',
};

/** A Create Message body without its null fields (null is "not given"). */
function withoutNulls<B extends Record<string, unknown>>(body: B): { [K in keyof B]?: Exclude<B[K], null> } {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null)) as { [K in keyof B]?: Exclude<B[K], null> };
}

/** Reads a multipart Create Message (the shared reader, with `content` as a plain field too): `payload_json` checked like the JSON body, and each `files[n]`. */
async function readUpload(req: FastifyRequest, maxFileBytes: number, tempDir: string | undefined): Promise<{ payload: Static<typeof CreateBody>; files: UploadedFile[] }> {
  const { body, files } = await readMultipartBody(req, { contentField: true, maxFileBytes, ...(tempDir ? { tempDir } : {}) });
  return { payload: parseWith(CreateBody, body), files };
}

/** Rate budgets per caller (the public ones are per channel; ours are per caller and route family). */
export const MESSAGE_READ = { bucket: 'messages.read', limit: 50, windowMs: 1_000 };
export const MESSAGE_WRITE = { bucket: 'messages.write', limit: 10, windowMs: 1_000 };
export const MESSAGE_REACT = { bucket: 'messages.reactions', limit: 10, windowMs: 1_000 };
export const MESSAGE_BULK = { bucket: 'messages.bulk', limit: 2, windowMs: 1_000 };

/**
 * Who acts: a bot, or the person through the web app's session (routeAccess.ts admits no other
 * kind to the message routes; the `guilds` check below holds a first-party token to it too). In
 * DMs and group DMs MessageService also asks PrivateChannels.mayUse.
 */
export async function messageCaller(req: FastifyRequest, ctx: ServerContext): Promise<MessageCaller> {
  const p = await authenticate(req, ctx.store);
  const auditReason = req.audit?.reason ?? null;
  if (p.kind === 'bot') return { userId: p.botUserId, bot: true, applicationId: p.applicationId, auditReason };
  if (!p.scopes.includes('guilds')) throw new ApiError(403, 50001, 'Missing Access: the token lacks the guilds scope');
  return { userId: p.userId, bot: false, applicationId: p.applicationId, scopes: p.scopes, auditReason };
}

/** Messages in guild channels (issue 11): history, create, edit, delete, bulk delete, reactions, typing, pins. */
export function channelMessageRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const s = messageServiceFor(ctx.store, ctx.bus, { publicUrl: () => ctx.publicHttpUrl(), ...(ctx.dataDir ? { dataDir: ctx.dataDir } : {}) });

  r.get('/api/v10/channels/:channel_id/messages', { schema: { ...ok('Get Channel Messages', Type.Array(MessageSchema)), params: ChannelParams, querystring: HistoryQuery }, config: { rateLimit: MESSAGE_READ } }, async (req) => {
    const q = req.query;
    // One cursor at most: the public API takes the first of around, before, after.
    const cursor = q.around ? { around: q.around } : q.before ? { before: q.before } : q.after ? { after: q.after } : {};
    return s.list(await messageCaller(req, ctx), req.params.channel_id, { ...cursor, ...(q.limit ? { limit: q.limit } : {}) });
  });

  // Create Message takes JSON, or multipart/form-data with `payload_json` and `files[n]` (the
  // public convention). The parser lives in this scope only; a file over the caller's limit there
  // (10 MiB, raised by boost and paid levels) is cut off at it and answered 413 / 40005 unstored.
  void app.register(async (scope) => {
    await scope.register(multipart, {
      throwFileSizeLimit: false,
      limits: { fileSize: MAX_ANY_ATTACHMENT_BYTES + 1, files: MAX_ATTACHMENTS, fields: 4, fieldSize: 64 * 1024, parts: MAX_ATTACHMENTS + 4, headerPairs: 50 },
    });
    const m = scope.withTypeProvider<TypeBoxTypeProvider>();
    m.post('/api/v10/channels/:channel_id/messages', {
      schema: { ...ok('Create Message', MessageSchema), consumes: ['application/json', 'multipart/form-data'], params: ChannelParams, body: OptionalBody(CreateBody) },
      config: { rateLimit: MESSAGE_WRITE },
    }, async (req) => {
      const caller = await messageCaller(req, ctx);
      const upload = req.isMultipart() ? await readUpload(req, await s.mayUpload(caller, req.params.channel_id), ctx.dataDir) : undefined;
      const { embed, ...body } = withoutNulls(upload ? upload.payload : (req.body ?? {}));
      // `embed` (singular) is the deprecated form of `embeds`.
      const embeds = body.embeds ?? (embed ? [embed] : undefined);
      return s.create(caller, req.params.channel_id, { ...body, ...(embeds ? { embeds } : {}) } as never, upload?.files ?? []);
    });
  });

  // Attachments on the CDN path, with the signed query the message carries; anything else is 404.
  r.get('/attachments/:channel_id/:attachment_id/:filename', {
    schema: {
      summary: 'Attachment (CDN, signed URL)',
      tags: TAGS,
      params: Type.Object({ channel_id: Type.String(), attachment_id: Type.String(), filename: Type.String() }),
      querystring: Type.Object({ ex: Type.Optional(Type.String({ maxLength: 16 })), is: Type.Optional(Type.String({ maxLength: 16 })), hm: Type.Optional(Type.String({ maxLength: 64 })) }),
    },
    config: { rateLimit: MESSAGE_READ },
  }, async (req, reply) => {
    const bytes = await s.attachmentBytes(req.params.channel_id, req.params.attachment_id, req.query);
    if (!bytes) throw new ApiError(404, 0, '404: Not Found');
    const type = SAFE_TYPES[(/\.([A-Za-z0-9]{1,8})$/.exec(req.params.filename)?.[1] ?? '').toLowerCase()];
    // Uploaded bytes are never rendered as a page of ours: a fixed type list, nosniff, a sandbox.
    void reply
      .header('content-type', type ?? 'application/octet-stream')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cache-control', 'private, max-age=3600');
    if (!type) void reply.header('content-disposition', 'attachment');
    return reply.send(bytes);
  });

  r.post('/api/v10/channels/:channel_id/messages/bulk-delete', {
    schema: { ...none('Bulk Delete Messages'), params: ChannelParams, body: Type.Object({ messages: Type.Array(Snowflake, { minItems: 2, maxItems: 100, uniqueItems: true }) }) },
    config: { rateLimit: MESSAGE_BULK },
  }, async (req, reply) => {
    await s.bulkDelete(await messageCaller(req, ctx), req.params.channel_id, req.body.messages);
    void reply.code(204);
  });

  // Pins, new routes (static segment `pins` wins over `:message_id`).
  r.get('/api/v10/channels/:channel_id/messages/pins', {
    schema: { ...ok('Get Channel Pins', PinsPage), params: ChannelParams, querystring: Type.Object({ before: Type.Optional(Type.String({ maxLength: 64 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })) }) },
    config: { rateLimit: MESSAGE_READ },
  }, async (req) => s.pins(await messageCaller(req, ctx), req.params.channel_id, req.query));
  r.put('/api/v10/channels/:channel_id/messages/pins/:message_id', { schema: { ...none('Pin Message'), params: MessageParams }, config: { rateLimit: MESSAGE_WRITE } }, async (req, reply) => {
    await s.setPinned(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id, true);
    void reply.code(204);
  });
  r.delete('/api/v10/channels/:channel_id/messages/pins/:message_id', { schema: { ...none('Unpin Message'), params: MessageParams }, config: { rateLimit: MESSAGE_WRITE } }, async (req, reply) => {
    await s.setPinned(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id, false);
    void reply.code(204);
  });
  // Deprecated pin routes: still answer, same rules.
  r.get('/api/v10/channels/:channel_id/pins', { schema: { ...ok('Get Pinned Messages (deprecated)', Type.Array(MessageSchema)), params: ChannelParams }, config: { rateLimit: MESSAGE_READ } }, async (req) => s.pinsLegacy(await messageCaller(req, ctx), req.params.channel_id));
  r.put('/api/v10/channels/:channel_id/pins/:message_id', { schema: { ...none('Pin Message (deprecated route)'), params: MessageParams }, config: { rateLimit: MESSAGE_WRITE } }, async (req, reply) => {
    await s.setPinned(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id, true);
    void reply.code(204);
  });
  r.delete('/api/v10/channels/:channel_id/pins/:message_id', { schema: { ...none('Unpin Message (deprecated route)'), params: MessageParams }, config: { rateLimit: MESSAGE_WRITE } }, async (req, reply) => {
    await s.setPinned(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id, false);
    void reply.code(204);
  });

  r.get('/api/v10/channels/:channel_id/messages/:message_id', { schema: { ...ok('Get Channel Message', MessageSchema), params: MessageParams }, config: { rateLimit: MESSAGE_READ } }, async (req) => {
    return s.get(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id);
  });
  r.patch('/api/v10/channels/:channel_id/messages/:message_id', { schema: { ...ok('Edit Message', MessageSchema), params: MessageParams, body: EditBody }, config: { rateLimit: MESSAGE_WRITE } }, async (req) => {
    return s.edit(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id, req.body as never);
  });
  r.delete('/api/v10/channels/:channel_id/messages/:message_id', { schema: { ...none('Delete Message'), params: MessageParams }, config: { rateLimit: MESSAGE_WRITE } }, async (req, reply) => {
    await s.delete(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id);
    void reply.code(204);
  });

  // Crosspost Message (announcement channels; no channel follows them here, see MessageService.crosspost).
  r.post('/api/v10/channels/:channel_id/messages/:message_id/crosspost', { schema: { ...ok('Crosspost Message', MessageSchema), params: MessageParams }, config: { rateLimit: MESSAGE_WRITE } }, async (req) => {
    return s.crosspost(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id);
  });

  // Reactions.
  r.put('/api/v10/channels/:channel_id/messages/:message_id/reactions/:emoji/@me', { schema: { ...none('Create Reaction'), params: ReactionParams }, config: { rateLimit: MESSAGE_REACT } }, async (req, reply) => {
    await s.addReaction(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id, req.params.emoji);
    void reply.code(204);
  });
  r.delete('/api/v10/channels/:channel_id/messages/:message_id/reactions/:emoji/@me', { schema: { ...none('Delete Own Reaction'), params: ReactionParams }, config: { rateLimit: MESSAGE_REACT } }, async (req, reply) => {
    await s.removeReaction(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id, req.params.emoji, '@me');
    void reply.code(204);
  });
  // Clients that percent-encode the path (reactions/x/%40me) land here with user_id '@me' too.
  r.delete('/api/v10/channels/:channel_id/messages/:message_id/reactions/:emoji/:user_id', { schema: { ...none('Delete User Reaction'), params: UserReactionParams }, config: { rateLimit: MESSAGE_REACT } }, async (req, reply) => {
    await s.removeReaction(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id, req.params.emoji, req.params.user_id);
    void reply.code(204);
  });
  r.get('/api/v10/channels/:channel_id/messages/:message_id/reactions/:emoji', {
    schema: { ...ok('Get Reactions', Users), params: ReactionParams, querystring: Type.Object({ after: Type.Optional(Snowflake), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })), type: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)])) }) },
    config: { rateLimit: MESSAGE_READ },
  }, async (req) => s.reactions(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id, req.params.emoji, req.query));
  r.delete('/api/v10/channels/:channel_id/messages/:message_id/reactions/:emoji', { schema: { ...none('Delete All Reactions for Emoji'), params: ReactionParams }, config: { rateLimit: MESSAGE_REACT } }, async (req, reply) => {
    await s.removeAllReactions(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id, req.params.emoji);
    void reply.code(204);
  });
  r.delete('/api/v10/channels/:channel_id/messages/:message_id/reactions', { schema: { ...none('Delete All Reactions'), params: MessageParams }, config: { rateLimit: MESSAGE_REACT } }, async (req, reply) => {
    await s.removeAllReactions(await messageCaller(req, ctx), req.params.channel_id, req.params.message_id);
    void reply.code(204);
  });

  r.post('/api/v10/channels/:channel_id/typing', { schema: { ...none('Trigger Typing Indicator'), params: ChannelParams }, config: { rateLimit: MESSAGE_WRITE } }, async (req, reply) => {
    await s.typing(await messageCaller(req, ctx), req.params.channel_id);
    void reply.code(204);
  });
}
