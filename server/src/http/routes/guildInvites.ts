import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { NoContent, OptionalBody, parseWith } from '../schemas/index.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { authenticate } from '../auth.ts';
import { guildServicesFor } from '../../guilds/GuildServices.ts';
import { parseTargetUsersCsv } from '../../guilds/GuildInviteService.ts';
import { Described, DescribedList, GUILD_READ, GUILD_WRITE, GuildErrors, Snowflake, guildCaller } from './guildRouteHelpers.ts';

const ChannelParams = Type.Object({ channel_id: Type.String() });
const GuildParams = Type.Object({ guild_id: Type.String() });
const CodeParams = Type.Object({ code: Type.String() });
/** A target-users CSV of 10,000 IDs is about 200 KB. */
const MAX_CSV_BYTES = 512 * 1024;
const InviteBody = Type.Object({
  max_age: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800 })),
  max_uses: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  temporary: Type.Optional(Type.Boolean()),
  unique: Type.Optional(Type.Boolean()),
  role_ids: Type.Optional(Type.Array(Snowflake, { maxItems: 250 })),
  // JSON form of the target-user list (the multipart upload is the CSV file target_users_file).
  target_user_ids: Type.Optional(Type.Array(Snowflake, { maxItems: 10_000 })),
});

/** Reads a multipart invite request: `payload_json` (checked like the JSON body) and the CSV `target_users_file`. */
async function readUpload(req: FastifyRequest): Promise<{ payload: Static<typeof InviteBody>; targetUsers: string[] | undefined }> {
  let payload: unknown = {};
  let csv: string | undefined;
  let truncated = false;
  for await (const part of req.parts()) {
    if (part.type === 'field') {
      if (part.fieldname === 'payload_json' && typeof part.value === 'string') {
        try {
          payload = JSON.parse(part.value);
        } catch {
          throw GuildErrors.invalidForm(['payload_json'], 'BASE_TYPE_INVALID', 'payload_json is not JSON');
        }
      }
    } else if (part.fieldname === 'target_users_file' && csv === undefined) {
      csv = (await part.toBuffer()).toString('utf8');
      truncated = part.file.truncated;
    } else {
      await part.toBuffer();
    }
  }
  if (truncated) throw GuildErrors.invalidForm(['target_users_file'], 'BASE_TYPE_MAX_LENGTH', `The file is larger than ${MAX_CSV_BYTES / 1024} KiB`);
  // Checked as a JSON body is (the schema, and no __proto__, NUL or lone surrogate anywhere).
  return { payload: parseWith(InviteBody, payload), targetUsers: csv === undefined ? undefined : parseTargetUsersCsv(csv) };
}

/**
 * Guild invites (the game invites of issue 6 are in invites.ts): create with `max_age`,
 * `max_uses`, `role_ids` and target users; list per channel and guild; get, accept, delete; the
 * target-user list as CSV.
 */
export function guildInviteRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const s = guildServicesFor(ctx.store, ctx.bus);

  // Create Channel Invite and Update Target Users take JSON, or multipart/form-data with the
  // CSV file `target_users_file` (and the JSON fields in `payload_json`, the public convention).
  // The multipart parser lives in this scope only, with limits that end a large upload early.
  void app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: MAX_CSV_BYTES, files: 1, fields: 2, fieldSize: 16_384, parts: 3, headerPairs: 50 } });
    const m = scope.withTypeProvider<TypeBoxTypeProvider>();

    m.post('/api/v10/channels/:channel_id/invites', {
      schema: { response: { 200: Described('Invite') }, params: ChannelParams, body: OptionalBody(InviteBody) },
      config: { rateLimit: GUILD_WRITE },
    }, async (req) => {
      const caller = await guildCaller(req, ctx);
      const upload = req.isMultipart() ? await readUpload(req) : undefined;
      const body = upload ? upload.payload : (req.body ?? {});
      return s.invites.create(caller.userId, req.params.channel_id, body, upload?.targetUsers ?? body.target_user_ids, req.audit);
    });

    m.put('/api/v10/invites/:code/target-users', {
      schema: { response: { 204: NoContent }, params: CodeParams, body: OptionalBody(Type.Object({ target_user_ids: Type.Array(Snowflake, { maxItems: 10_000 }) })) },
      config: { rateLimit: GUILD_WRITE },
    }, async (req, reply) => {
      const caller = await guildCaller(req, ctx);
      const ids = req.isMultipart() ? (await readUpload(req)).targetUsers : req.body?.target_user_ids;
      if (!ids) throw GuildErrors.invalidForm(['target_users_file'], 'BASE_TYPE_REQUIRED', 'This field is required');
      await s.invites.updateTargetUsers(caller.userId, req.params.code, ids);
      void reply.code(204);
    });
  });

  r.get('/api/v10/channels/:channel_id/invites', { schema: { response: { 200: DescribedList('Invite') }, params: ChannelParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    return s.invites.channelInvites((await guildCaller(req, ctx)).userId, req.params.channel_id);
  });

  r.get('/api/v10/guilds/:guild_id/invites', { schema: { response: { 200: DescribedList('Invite') }, params: GuildParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    return s.invites.guildInvites((await guildCaller(req, ctx)).userId, req.params.guild_id);
  });

  r.get('/api/v10/invites/:code', {
    schema: { response: { 200: Described('Invite') }, params: CodeParams, querystring: Type.Object({ with_counts: Type.Optional(Type.Boolean()), with_expiration: Type.Optional(Type.Boolean()) }) },
    config: { rateLimit: GUILD_READ },
  }, async (req) => {
    await authenticate(req, ctx.store);
    return s.invites.get(req.params.code, req.query.with_counts === true);
  });

  // Accepting is a user's act (bots join through installation): POST /invites/{code}.
  r.post('/api/v10/invites/:code', { schema: { response: { 200: Described('Invite') }, params: CodeParams }, config: { rateLimit: GUILD_WRITE } }, async (req) => {
    const caller = await guildCaller(req, ctx);
    if (caller.bot) throw GuildErrors.botsCannotUse();
    return s.invites.accept(caller.userId, req.params.code);
  });

  r.delete('/api/v10/invites/:code', { schema: { response: { 200: Described('Invite') }, params: CodeParams }, config: { rateLimit: GUILD_WRITE } }, async (req) => {
    return s.invites.delete((await guildCaller(req, ctx)).userId, req.params.code, req.audit);
  });

  // Get Target Users: a CSV whose only header is `user_id` (spec).
  r.get('/api/v10/invites/:code/target-users', { schema: { response: { 200: Type.Unsafe<string>({ type: 'string', description: 'CSV (text/csv): the header user_id, then one ID per line' }) }, params: CodeParams }, config: { rateLimit: GUILD_READ } }, async (req, reply) => {
    const csv = await s.invites.targetUsersCsv((await guildCaller(req, ctx)).userId, req.params.code);
    void reply.type('text/csv; charset=utf-8');
    return csv;
  });

  r.get('/api/v10/invites/:code/target-users/job-status', { schema: { response: { 200: Described('TargetUsersJobStatus') }, params: CodeParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    return s.invites.targetUsersJobStatus((await guildCaller(req, ctx)).userId, req.params.code);
  });

}
