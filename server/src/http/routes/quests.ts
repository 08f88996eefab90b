import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../ServerContext.ts';
import { currentWebUser, pageHeaders } from '../../accounts/webSession.ts';
import { messagePage } from '../../pages/accountPages.ts';
import { questListPage } from '../../pages/developerPortalQuests.ts';
import { questServiceFor } from '../../quests/QuestService.ts';
import { Errors } from '../ApiError.ts';
import { authenticate, requireBearer } from '../auth.ts';
import { BEARER, BEARER_OR_BOT, BOT, IdParam, Nullable, NotFound, Snowflake, Str, Type, type TypeBoxTypeProvider } from '../schemas/index.ts';
import { tokenActsForApp } from './appActsFor.ts';
import { requireOwnBot } from './commerceRouteHelpers.ts';

const TAGS = ['quests'];
const READ = { rateLimit: { bucket: 'quests.read', limit: 60, windowMs: 10_000 } };
const WRITE = { rateLimit: { bucket: 'quests.write', limit: 20, windowMs: 10_000 } };
const Iso = Type.String({ format: 'date-time' });

const QuestSchema = Type.Object(
  {
    id: Snowflake(),
    application_id: Snowflake(),
    name: Type.String(),
    description: Type.String(),
    starts_at: Iso,
    ends_at: Nullable(Iso),
    enrolled_at: Type.Optional(Nullable(Iso)),
    enrollments: Type.Optional(Type.Integer({ description: 'How many users enrolled (the application\'s own list)' })),
  },
  { title: 'Quest' },
);
const EnrollmentSchema = Type.Object({ quest_id: Snowflake(), user_id: Snowflake(), enrolled_at: Iso }, { title: 'QuestEnrollment' });
const AppParams = Type.Object({ applicationId: IdParam(NotFound.application) });
const QuestParams = Type.Object({ questId: IdParam({ code: 0, message: 'Unknown Quest' }) });
const CreateQuest = Type.Object({
  name: Str(1, 100),
  description: Type.Optional(Str(0, 1000)),
  // ISO 8601, checked by the service (DATE_INVALID), as for a member's communication_disabled_until.
  starts_at: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601: when enrolling opens; default now' })),
  ends_at: Type.Optional(Nullable(Type.String({ maxLength: 40, description: 'ISO 8601: when enrolling closes; default never' }))),
});

/**
 * Quests (ours; issue 15, the source of QUEST_USER_ENROLLMENT): the application's bot lists and
 * creates its quests; a user's token lists the open quests of a game (its own game's token, or
 * the first-party web app's for any game) and enrolls, which sends the webhook event once.
 */
export function questRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const quests = () => questServiceFor(ctx.store);
  /** A game's token acts on its own game's quests; the first-party web app's on any. */
  const mayAccess = (tokenApplicationId: string) => (applicationId: string) => tokenActsForApp(ctx.store, tokenApplicationId, applicationId);

  r.get(
    '/api/v10/applications/:applicationId/quests',
    {
      schema: {
        summary: 'An application\'s quests: all of them with enrollment counts for its bot, the open ones with the caller\'s enrollment for a user',
        tags: TAGS,
        security: BEARER_OR_BOT,
        params: AppParams,
        response: { 200: Type.Array(QuestSchema) },
      },
      config: READ,
    },
    async (req) => {
      const p = await authenticate(req, ctx.store);
      const appId = req.params.applicationId;
      if (p.kind === 'bot') {
        requireOwnBot(p, appId);
        return quests().ofApplication(appId);
      }
      if (!(await mayAccess(p.applicationId)(appId))) throw Errors.missingAccess();
      return quests().openFor(appId, p.userId);
    },
  );

  r.post(
    '/api/v10/applications/:applicationId/quests',
    { schema: { summary: 'Create a quest (its name, description and the window when enrolling is open)', tags: TAGS, security: BOT, params: AppParams, body: CreateQuest, response: { 200: QuestSchema } }, config: WRITE },
    async (req) => {
      requireOwnBot(await authenticate(req, ctx.store), req.params.applicationId);
      const b = req.body;
      return quests().create(req.params.applicationId, {
        name: b.name,
        ...(b.description !== undefined ? { description: b.description } : {}),
        ...(b.starts_at !== undefined ? { startsAt: Date.parse(b.starts_at) } : {}),
        ...(b.ends_at !== undefined ? { endsAt: b.ends_at === null ? null : Date.parse(b.ends_at) } : {}),
      });
    },
  );

  r.post(
    '/api/v10/quests/:questId/enroll',
    { schema: { summary: 'Enroll in a quest (once; again answers the same enrollment)', tags: TAGS, security: BEARER, params: QuestParams, response: { 200: EnrollmentSchema } }, config: WRITE },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      return quests().enroll(p.userId, req.params.questId, mayAccess(p.applicationId));
    },
  );
}

const PAGE_READ = { rateLimit: { bucket: 'pages.developers', limit: 300, windowMs: 60_000 } };

/** The portal's list of one of the signed-in developer's applications' quests. */
export function questPortalRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get('/developers/applications/:id/quests', { schema: { params: Type.Object({ id: Type.String({ maxLength: 32 }) }) }, config: PAGE_READ }, async (req, reply) => {
    const me = await currentWebUser(ctx, req);
    if (!me) return reply.redirect(`/login?next=${encodeURIComponent(req.url.split('#')[0]!)}`, 303);
    const row = await ctx.applications.getOwned(req.params.id, me.user.id).catch(() => undefined);
    if (!row) return pageHeaders(reply).code(404).send(messagePage('Unknown application', 'There is no such application among yours.'));
    const list = await questServiceFor(ctx.store).ofApplication(row.id);
    return pageHeaders(reply).send(questListPage({ app: { id: row.id, name: row.name }, csrf: me.csrf, quests: list, now: Date.now() }));
  });
}
