import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServerContext } from '../../ServerContext.ts';
import { Errors } from '../ApiError.ts';
import { authenticate, requireBot } from '../auth.ts';
import { guildServicesFor } from '../../guilds/GuildServices.ts';
import { Described, DescribedList, GUILD_READ, GUILD_WRITE, GuildErrors, Snowflake, guildCaller } from './guildRouteHelpers.ts';
import { ImageDataUri, NoContent } from '../schemas/index.ts';
import { attachmentStoreFor } from '../../messages/attachmentStoreFor.ts';

const GuildParams = Type.Object({ guild_id: Type.String() });
const GuildEmojiParams = Type.Object({ guild_id: Type.String(), emoji_id: Type.String() });
const AppParams = Type.Object({ application_id: Type.String() });
const AppEmojiParams = Type.Object({ application_id: Type.String(), emoji_id: Type.String() });
/** Emoji names: 2-32 of letters, digits and underscores (the public rule). */
const EmojiName = Type.String({ minLength: 2, maxLength: 32, pattern: '^[A-Za-z0-9_]+$' });
/** A data URI of at most 256 KiB of image (a little more as base64). */
const EmojiImage = ImageDataUri(360_000);

/** Guild emojis, application emojis (bot token), and the images at the CDN path /emojis/{id}.{ext}. */
export function emojiRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const s = guildServicesFor(ctx.store, ctx.bus);
  // Images are stored like message attachments: the data folder's attachment store (issue 10).
  if (ctx.dataDir && !s.emojis.files) s.emojis.files = attachmentStoreFor({ dataDir: ctx.dataDir });
  // An emoji image is larger than the JSON body limit elsewhere: these two routes take up to 400 KB.
  const imageBody = { bodyLimit: 400_000 };

  r.get('/api/v10/guilds/:guild_id/emojis', { schema: { response: { 200: DescribedList('Emoji') }, params: GuildParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    return s.emojis.listGuild((await guildCaller(req, ctx)).userId, req.params.guild_id);
  });
  r.get('/api/v10/guilds/:guild_id/emojis/:emoji_id', { schema: { response: { 200: Described('Emoji') }, params: GuildEmojiParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    return s.emojis.getGuild((await guildCaller(req, ctx)).userId, req.params.guild_id, req.params.emoji_id);
  });
  r.post('/api/v10/guilds/:guild_id/emojis', {
    ...imageBody,
    schema: { response: { 201: Described('Emoji') }, params: GuildParams, body: Type.Object({ name: EmojiName, image: EmojiImage, roles: Type.Optional(Type.Array(Snowflake, { maxItems: 250 })) }) },
    config: { rateLimit: GUILD_WRITE },
  }, async (req, reply) => {
    void reply.code(201);
    return s.emojis.createGuild((await guildCaller(req, ctx)).userId, req.params.guild_id, req.body);
  });
  r.patch('/api/v10/guilds/:guild_id/emojis/:emoji_id', {
    schema: { response: { 200: Described('Emoji') }, params: GuildEmojiParams, body: Type.Object({ name: Type.Optional(EmojiName), roles: Type.Optional(Type.Union([Type.Array(Snowflake, { maxItems: 250 }), Type.Null()])) }) },
    config: { rateLimit: GUILD_WRITE },
  }, async (req) => {
    return s.emojis.modifyGuild((await guildCaller(req, ctx)).userId, req.params.guild_id, req.params.emoji_id, req.body);
  });
  r.delete('/api/v10/guilds/:guild_id/emojis/:emoji_id', { schema: { response: { 204: NoContent }, params: GuildEmojiParams }, config: { rateLimit: GUILD_WRITE } }, async (req, reply) => {
    await s.emojis.deleteGuild((await guildCaller(req, ctx)).userId, req.params.guild_id, req.params.emoji_id);
    void reply.code(204);
  });

  // Application emojis: managed with the application's own bot token (spec, Authentication 8).
  const ownApp = async (req: { params: { application_id: string } } & Parameters<typeof authenticate>[0]) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    if (bot.applicationId !== req.params.application_id) throw GuildErrors.missingAccess();
    return bot;
  };
  r.get('/api/v10/applications/:application_id/emojis', { schema: { response: { 200: Described('ApplicationEmojis') }, params: AppParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    const bot = await ownApp(req);
    return s.emojis.listApplication(bot.applicationId);
  });
  r.get('/api/v10/applications/:application_id/emojis/:emoji_id', { schema: { response: { 200: Described('Emoji') }, params: AppEmojiParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    const bot = await ownApp(req);
    return s.emojis.getApplication(bot.applicationId, req.params.emoji_id);
  });
  r.post('/api/v10/applications/:application_id/emojis', {
    ...imageBody,
    schema: { response: { 201: Described('Emoji') }, params: AppParams, body: Type.Object({ name: EmojiName, image: EmojiImage }) },
    config: { rateLimit: GUILD_WRITE },
  }, async (req, reply) => {
    const bot = await ownApp(req);
    void reply.code(201);
    return s.emojis.createApplication(bot.applicationId, bot.botUserId, req.body);
  });
  r.patch('/api/v10/applications/:application_id/emojis/:emoji_id', {
    schema: { response: { 200: Described('Emoji') }, params: AppEmojiParams, body: Type.Object({ name: EmojiName }) },
    config: { rateLimit: GUILD_WRITE },
  }, async (req) => {
    const bot = await ownApp(req);
    return s.emojis.modifyApplication(bot.applicationId, req.params.emoji_id, req.body.name);
  });
  r.delete('/api/v10/applications/:application_id/emojis/:emoji_id', { schema: { response: { 204: NoContent }, params: AppEmojiParams }, config: { rateLimit: GUILD_WRITE } }, async (req, reply) => {
    const bot = await ownApp(req);
    await s.emojis.deleteApplication(bot.applicationId, req.params.emoji_id);
    void reply.code(204);
  });

  // The image, at the public CDN path shape (no token: emoji images are public).
  r.get('/emojis/:file', { schema: { response: { 200: Type.Unsafe<string>({ type: 'string', description: 'The image bytes (image/png, gif, webp or jpeg; a Buffer, sent as is)' }) }, params: Type.Object({ file: Type.String({ maxLength: 40 }) }) }, config: { rateLimit: { bucket: 'emojis.image', limit: 100, windowMs: 1_000, key: 'address' as const } } }, async (req, reply) => {
    const m = /^(\d{1,20})\.(png|gif|webp|jpg|jpeg)$/.exec(req.params.file);
    const img = m ? await s.emojis.image(m[1]!) : undefined;
    if (!img) throw Errors.notFound();
    void reply.header('content-type', img.type).header('cache-control', 'public, max-age=86400').header('x-content-type-options', 'nosniff');
    return reply.send(img.bytes as unknown as string);
  });
}
