import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../ServerContext.ts';
import { activityOrigin } from '../../activities/activityProxy.ts';
import { activityServiceFor } from '../../activities/ActivityService.ts';
import { authorizeActivity } from '../../activities/activityAuthorize.ts';
import { announceParticipants, embeddedEnded, expireWithGatewaySession } from '../../activities/activityLifetime.ts';
import { watchLobbyMembership } from '../../activities/activityLobbyMembership.ts';
import { Errors } from '../ApiError.ts';
import { DEFAULT_EVERYONE_PERMISSIONS } from '../../guilds/permissions.ts';
import { authenticate, isFirstParty, requireBearer } from '../auth.ts';
import { ActivitySchema, BEARER, BOT, IdParam, NoContent, NotFound, Snowflake, Type, type TypeBoxTypeProvider } from '../schemas/index.ts';
import { ActivityBody } from '../../social/activityCheck.ts';
import { requireOwnBot } from './commerceRouteHelpers.ts';

const TAGS = ['activities'];
const READ = { rateLimit: { bucket: 'activities.read', limit: 60, windowMs: 10_000 } };
const WRITE = { rateLimit: { bucket: 'activities.write', limit: 20, windowMs: 10_000 } };
const UNKNOWN_INSTANCE = { code: 0, message: 'Unknown Activity Instance' };

const InstanceSchema = Type.Object(
  {
    application_id: Snowflake(),
    instance_id: Snowflake(),
    launch_id: Snowflake(),
    location: Type.Object({ id: Type.String(), kind: Type.Union([Type.Literal('gc'), Type.Literal('pc'), Type.Literal('lobby')], { description: 'gc guild channel, pc private channel, lobby a lobby of the application (ours: channel_id is the lobby\'s ID)' }), channel_id: Snowflake(), guild_id: Type.Optional(Snowflake()) }),
    users: Type.Array(Snowflake()),
  },
  { title: 'ActivityInstance' },
);
const LaunchSchema = Type.Object(
  {
    instance: InstanceSchema,
    activity_origin: Type.String({ description: 'Where the activity is served: http(s)://<application_id>.<activity proxy host>' }),
    supported_platforms: Type.Array(Type.String()),
    orientation: Type.String(),
    participants: Type.Array(Type.Object({ id: Snowflake(), username: Type.String(), global_name: Type.Union([Type.String(), Type.Null()]), avatar: Type.Union([Type.String(), Type.Null()]) }), { description: 'Who is in the instance (for the SDK host\'s participant commands)' }),
    permissions: Type.String({ description: 'The user\'s permissions in the channel (GET_CHANNEL_PERMISSIONS), a decimal bitfield' }),
  },
  { title: 'ActivityLaunch' },
);
const AppParams = Type.Object({ applicationId: IdParam(NotFound.application) });
const InstanceParams = Type.Object({ applicationId: IdParam(NotFound.application), instanceId: IdParam(UNKNOWN_INSTANCE) });
const LaunchBody = Type.Object({
  channel_id: Type.Optional(Snowflake('A guild channel or DM to launch in')),
  lobby_id: Type.Optional(Snowflake('Or a lobby of the application the user is a member of')),
  platform: Type.Optional(Type.Union([Type.Literal('web'), Type.Literal('android'), Type.Literal('ios')], { description: 'Where the user runs it (the web app: ios/android by its user agent, else web); one the activity does not support is refused (50035 ACTIVITY_PLATFORM_UNSUPPORTED) before anything is joined. Absent: not checked' })),
});
const AuthorizeBody = Type.Object({
  scope: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 32 }),
  code_challenge: Type.Optional(Type.String({ maxLength: 128 })),
  code_challenge_method: Type.Optional(Type.String({ maxLength: 16 })),
  state: Type.Optional(Type.String({ maxLength: 1024 })),
  prompt: Type.Optional(Type.String({ maxLength: 16 })),
  consent: Type.Optional(Type.Boolean({ description: 'The user agreed in the web app\'s consent dialog just now' })),
});

/**
 * Activity instances (issue 17). Get Application Activity Instance is the public route the game's
 * backend verifies an instance with (Bot token). Launching and leaving are ours: the platform's
 * own web app does them for the signed-in user (the public client does the same internally).
 */
export function activityRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const activities = () => activityServiceFor(ctx.store, ctx.urlPolicy);
  const announce = (applicationId: string, instanceId: string, also: string[] = []) => announceParticipants(ctx, activities(), applicationId, instanceId, also);
  // A crashed browser's participation ends with its web app's Gateway session (activityLifetime.ts).
  const expiry = expireWithGatewaySession(ctx, activities());
  app.addHook('onClose', async () => expiry.stop());
  // Leaving a lobby leaves its instance (activityLobbyMembership.ts).
  const lobbyWatch = watchLobbyMembership(ctx, activities);
  app.addHook('onClose', async () => lobbyWatch.stop());
  /** A participant of this application's instance, or 404 (unknown instance) / 403 (not in it). */
  const participantOf = async (applicationId: string, instanceId: string, userId: string) => {
    await activities().instance(applicationId, instanceId);
    if (!(await activities().isParticipant(instanceId, userId))) throw Errors.missingAccess();
  };
  /** Only the platform's first-party client launches activities for a user. */
  const firstPartyUser = async (applicationId: string) => {
    if (!(await isFirstParty(ctx.store, applicationId))) throw Errors.missingAccess();
  };

  r.get(
    '/api/v10/applications/:applicationId/activity-instances/:instanceId',
    { schema: { summary: 'Get Application Activity Instance: where it runs and who is in it', tags: TAGS, security: BOT, params: InstanceParams, response: { 200: InstanceSchema } }, config: READ },
    async (req) => {
      requireOwnBot(await authenticate(req, ctx.store), req.params.applicationId);
      return activities().instance(req.params.applicationId, req.params.instanceId);
    },
  );

  r.post(
    '/api/v10/applications/:applicationId/activity-instances',
    { schema: { summary: 'Launch the activity in a channel, or join the instance already running there (the web app\'s token)', tags: TAGS, security: BEARER, params: AppParams, body: LaunchBody, response: { 200: LaunchSchema } }, config: WRITE },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      await firstPartyUser(p.applicationId);
      const outcome: { joined?: boolean } = {};
      const { channel_id, lobby_id } = req.body;
      // Exactly one place: a channel or a lobby (50035 at the body otherwise, nothing made).
      if ((channel_id === undefined) === (lobby_id === undefined)) throw Errors.invalidForm({ channel_id: { _errors: [{ code: 'ACTIVITY_LOCATION_REQUIRED', message: 'Give channel_id or lobby_id, not both' }] } });
      // Supported platforms (activity settings): checked before the user is let in anywhere.
      if (req.body.platform !== undefined) {
        const { enabled, supported_platforms: supported } = await activities().settings(req.params.applicationId);
        // (An application without activities is refused by the launch itself, with its own error.)
        if (enabled && !supported.includes(req.body.platform)) throw Errors.invalidForm({ platform: { _errors: [{ code: 'ACTIVITY_PLATFORM_UNSUPPORTED', message: `Supported platforms: ${supported.join(', ')}` }] } });
      }
      const instance = await activities().launch(req.params.applicationId, p.userId, channel_id ?? { lobby_id: lobby_id! }, outcome);
      if (lobby_id !== undefined) await lobbyWatch.watch(req.params.applicationId, lobby_id, instance.instance_id, p.userId);
      // Only a change is announced: launching again (the page rereading the instance) is quiet.
      if (outcome.joined) {
        await announce(req.params.applicationId, instance.instance_id);
        await ctx.social.presence.setEmbedded(req.params.applicationId, p.userId, true);
      }
      const settings = await activities().settings(req.params.applicationId);
      const users = await ctx.store.users.getMany(instance.users);
      const participants = instance.users.flatMap((id) => {
        const u = users.get(id);
        return u ? [{ id: u.id, username: u.username, global_name: u.global_name ?? null, avatar: u.avatar ?? null }] : [];
      });
      // In a lobby, which has no roles, what @everyone gets in a new guild (as in a DM).
      const permissions = channel_id !== undefined ? await activities().channelPermissions(p.userId, channel_id) : DEFAULT_EVERYONE_PERMISSIONS.toString();
      return { instance, activity_origin: activityOrigin(ctx, req.params.applicationId), supported_platforms: settings.supported_platforms, orientation: settings.orientation, participants, permissions };
    },
  );

  r.get(
    '/api/v10/channels/:channelId/activities',
    {
      schema: {
        summary: 'The activity shelf of a channel (ours): activities installed in the guild or authorized by the user, with the instance running there (the web app\'s token)',
        tags: TAGS,
        security: BEARER,
        params: Type.Object({ channelId: IdParam({ code: 10003, message: 'Unknown Channel' }) }),
        response: { 200: Type.Array(Type.Object({ application_id: Snowflake(), name: Type.String(), icon: Type.Union([Type.String(), Type.Null()]), instance: Type.Union([Type.Object({ instance_id: Snowflake(), users: Type.Array(Snowflake()) }), Type.Null()]) }, { title: 'ActivityShelfEntry' })) },
      },
      config: READ,
    },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      await firstPartyUser(p.applicationId);
      return activities().shelf(p.userId, req.params.channelId);
    },
  );

  r.get(
    '/api/v10/users/@me/activity-lobbies',
    {
      schema: {
        summary: 'The lobby shelf (ours): the lobbies the user is in whose game has an activity, with the instance running there (the web app\'s token)',
        tags: TAGS,
        security: BEARER,
        response: { 200: Type.Array(Type.Object({ lobby_id: Snowflake(), application_id: Snowflake(), name: Type.String(), icon: Type.Union([Type.String(), Type.Null()]), member_count: Type.Integer(), instance: Type.Union([Type.Object({ instance_id: Snowflake(), users: Type.Array(Snowflake()) }), Type.Null()]) }, { title: 'ActivityLobbyShelfEntry' })) },
      },
      config: READ,
    },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      await firstPartyUser(p.applicationId);
      return activities().lobbyShelf(p.userId);
    },
  );

  r.post(
    '/api/v10/applications/:applicationId/activity-instances/:instanceId/authorize',
    {
      schema: {
        summary: 'AUTHORIZE for an activity: an OAuth2 code (no redirect) for a participant; without consent given now, only for scopes granted before',
        tags: TAGS,
        security: BEARER,
        params: InstanceParams,
        body: AuthorizeBody,
        response: { 200: Type.Object({ code: Type.String() }, { title: 'ActivityAuthorization' }) },
      },
      config: WRITE,
    },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      await firstPartyUser(p.applicationId);
      const b = req.body;
      return authorizeActivity(ctx.store, activities(), req.params.applicationId, req.params.instanceId, p.userId, { scope: b.scope, consent: b.consent === true, ...(b.code_challenge !== undefined ? { code_challenge: b.code_challenge } : {}), ...(b.code_challenge_method !== undefined ? { code_challenge_method: b.code_challenge_method } : {}), ...(b.prompt !== undefined ? { prompt: b.prompt } : {}) });
    },
  );

  r.delete(
    '/api/v10/applications/:applicationId/activity-instances/:instanceId/participants/@me',
    { schema: { summary: 'Leave an activity instance (the last one out ends it)', tags: TAGS, security: BEARER, params: InstanceParams, response: { 204: Type.Null() } }, config: WRITE },
    async (req, reply) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      await firstPartyUser(p.applicationId);
      await activities().leave(req.params.applicationId, req.params.instanceId, p.userId);
      lobbyWatch.forget(req.params.instanceId, p.userId);
      await announce(req.params.applicationId, req.params.instanceId, [p.userId]);
      await embeddedEnded(ctx, activities(), req.params.applicationId, p.userId);
      return reply.code(204).send(null);
    },
  );

  /** SET_ACTIVITY (the SDK command): the participant's rich presence for this application, as UpdateRichPresence checks it. */
  r.put(
    '/api/v10/applications/:applicationId/activity-instances/:instanceId/activity',
    { schema: { summary: 'SET_ACTIVITY for an activity (ours, the web app\'s token, a participant): the user\'s rich presence in this application until the activity closes', tags: TAGS, security: BEARER, params: InstanceParams, body: ActivityBody, response: { 200: ActivitySchema } }, config: WRITE },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      await firstPartyUser(p.applicationId);
      await participantOf(req.params.applicationId, req.params.instanceId, p.userId);
      await ctx.social.presence.setEmbedded(req.params.applicationId, p.userId, true);
      return ctx.social.presence.setActivity(req.params.applicationId, p.userId, req.body);
    },
  );

  /** SET_ACTIVITY with `activity: null`: clears it (the application still shows as played while the activity runs). */
  r.delete(
    '/api/v10/applications/:applicationId/activity-instances/:instanceId/activity',
    { schema: { summary: 'Clear the rich presence an activity set (ours, the web app\'s token, a participant)', tags: TAGS, security: BEARER, params: InstanceParams, response: { 204: NoContent } }, config: WRITE },
    async (req, reply) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      await firstPartyUser(p.applicationId);
      await participantOf(req.params.applicationId, req.params.instanceId, p.userId);
      await ctx.social.presence.clearActivity(req.params.applicationId, p.userId);
      return reply.code(204).send();
    },
  );
}
