import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerContext } from '../../ServerContext.ts';
import { currentWebUser, pageHeaders, sameOrigin } from '../../accounts/webSession.ts';
import { activityOrigin } from '../../activities/activityProxy.ts';
import { activityServiceFor } from '../../activities/ActivityService.ts';
import { messagePage } from '../../pages/accountPages.ts';
import { activitySettingsFromForm, activitySettingsPage } from '../../pages/developerPortalActivities.ts';
import { errorLines } from '../../pages/developerPortalParts.ts';
import { ApiError } from '../ApiError.ts';
import { FormField, HtmlPage, pageRoute, Redirect, Type, type TypeBoxTypeProvider } from '../schemas/index.ts';

const READ = { rateLimit: { bucket: 'pages.developers', limit: 300, windowMs: 60_000 } };
const WRITE = { rateLimit: { bucket: 'pages.developers.write', limit: 120, windowMs: 60_000 } };
const AppParams = Type.Object({ id: Type.String({ maxLength: 32 }) });

/**
 * The portal's activity settings page (issue 17): same protection as the other portal pages
 * (session cookie, CSRF token, Origin check; another developer's application reads as unknown).
 */
export function activityPortalRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const activities = () => activityServiceFor(ctx.store, ctx.urlPolicy);
  const unknownApp = (reply: FastifyReply) => pageHeaders(reply).code(404).send(messagePage('Unknown application', 'There is no such application among yours.'));
  const owned = async (req: FastifyRequest, reply: FastifyReply, post: boolean) => {
    const id = (req.params as { id: string }).id;
    const me = await currentWebUser(ctx, req);
    if (!me) {
      void reply.redirect(`/login?next=${encodeURIComponent(post ? '/developers' : req.url.split('#')[0]!)}`, 303);
      return undefined;
    }
    const form = req.body instanceof URLSearchParams ? req.body : new URLSearchParams();
    if (post && (!sameOrigin(ctx, req) || form.get('csrf') !== me.csrf)) {
      void pageHeaders(reply).code(403).send(messagePage('Not allowed', 'This form has expired. Reload the page and try again.'));
      return undefined;
    }
    const row = await ctx.applications.getOwned(id, me.user.id).catch(() => undefined);
    if (!row) {
      void unknownApp(reply);
      return undefined;
    }
    return { me, row, form };
  };

  r.get('/developers/applications/:id/activities', { ...pageRoute({ summary: 'Developer portal: an application\'s activity settings', params: AppParams, response: { 200: HtmlPage('The settings form'), 303: Redirect('Not signed in: to /login') } }), config: READ }, async (req, reply) => {
    const o = await owned(req, reply, false);
    if (!o) return reply;
    const saved = (req.query as Record<string, string | undefined>).saved === '1';
    return pageHeaders(reply).send(activitySettingsPage({ app: { id: o.row.id, name: o.row.name }, csrf: o.me.csrf, settings: await activities().settings(o.row.id), proxyOrigin: activityOrigin(ctx, o.row.id), ...(saved ? { notice: 'Activity settings saved.' } : {}) }));
  });

  r.post(
    '/developers/applications/:id/activities',
    {
      ...pageRoute({
        summary: 'Save an application\'s activity settings (all fields checked before anything is written)',
        params: AppParams,
        body: Type.Object({ csrf: FormField('The session\'s CSRF token'), enabled: FormField('1 to enable'), root_target: FormField('Target of the root mapping'), orientation: FormField('unlocked, portrait or landscape') }, { additionalProperties: true }),
        response: { 303: Redirect('Saved: back to the page'), 400: HtmlPage('The form with the problems named'), 403: HtmlPage('Expired form or another origin') },
      }),
      config: WRITE,
    },
    async (req, reply) => {
      const o = await owned(req, reply, true);
      if (!o) return reply;
      const edit = activitySettingsFromForm(o.form);
      try {
        await activities().updateSettings(o.row.id, edit);
        return reply.redirect(`/developers/applications/${o.row.id}/activities?saved=1`, 303);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        const errors = err.errors ? errorLines(err.errors) : [err.message];
        return pageHeaders(reply).code(400).send(activitySettingsPage({ app: { id: o.row.id, name: o.row.name }, csrf: o.me.csrf, settings: edit, proxyOrigin: activityOrigin(ctx, o.row.id), errors }));
      }
    },
  );
}
