import multipart from '@fastify/multipart';
import { questServiceFor } from '../../quests/QuestService.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { setSecretFlash, takeSecretFlash } from '../../accounts/secretFlash.ts';
import { currentWebUser, isSecure, pageHeaders, sameOrigin } from '../../accounts/webSession.ts';
import { imageDataUriFromBytes, MAX_ICON_BYTES } from '../../applications/applicationImages.ts';
import { messagePage } from '../../pages/accountPages.ts';
import { DEVELOPER_CSS, portalAppPage, portalListPage } from '../../pages/developerPortal.ts';
import { errorLines } from '../../pages/developerPortalParts.ts';
import { PORTAL_SECTIONS } from '../../pages/developerPortalSections.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { ApiError } from '../ApiError.ts';
import { FormField, HtmlPage, pageRoute, Redirect } from '../schemas/index.ts';

// Page requests carry a cookie, not a token, so these budgets are per client address: sized for
// a team behind one address saving settings, not for a script.
const READ = { rateLimit: { bucket: 'pages.developers', limit: 300, windowMs: 60_000 } };
const WRITE = { rateLimit: { bucket: 'pages.developers.write', limit: 120, windowMs: 60_000 } };
const AppParams = Type.Object({ id: Type.String({ maxLength: 32 }) });
const SectionParams = Type.Object({ id: Type.String({ maxLength: 32 }), section: Type.String({ maxLength: 32 }) });

function formOf(req: FastifyRequest): URLSearchParams {
  return req.body instanceof URLSearchParams ? req.body : new URLSearchParams();
}

/**
 * The developer portal's pages. Same protection as the account pages: the session cookie,
 * the per-session CSRF token in every form and the Origin check on every POST; an application
 * that is not the signed-in user's reads as unknown.
 */
export function developerPortalRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/assets/developers.css', { ...pageRoute({ summary: 'The developer portal\'s style sheet', response: { 200: { description: 'CSS', content: { 'text/css': { schema: Type.String() } } } } }), config: READ }, async (_req, reply) =>
    reply.header('content-type', 'text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(DEVELOPER_CSS),
  );

  /** The signed-in developer; for a POST (`csrf` given), only with this session's CSRF token from our origin. */
  const signedIn = async (req: FastifyRequest, reply: FastifyReply, post: boolean, csrf: string | null = formOf(req).get('csrf')) => {
    const me = await currentWebUser(ctx, req);
    if (!me) {
      void reply.redirect(`/login?next=${encodeURIComponent(post ? '/developers' : req.url.split('#')[0]!)}`, 303);
      return undefined;
    }
    if (post && (!sameOrigin(ctx, req) || csrf !== me.csrf)) {
      void pageHeaders(reply).code(403).send(messagePage('Not allowed', 'This form has expired. Reload the page and try again.'));
      return undefined;
    }
    return me;
  };

  const listView = async (userId: string, csrf: string, extra: { error?: string; name?: string } = {}) => {
    const apps = await ctx.applications.listOwned(userId);
    return portalListPage({ csrf, apps: apps.map((a) => ({ id: a.id, name: a.name, icon: a.icon ?? null, approval: a.approval ?? 'approved' })), ...extra });
  };

  const unknownApp = (reply: FastifyReply) => pageHeaders(reply).code(404).send(messagePage('Unknown application', 'There is no such application among yours.'));

  r.get('/developers', { ...pageRoute({ summary: 'Developer portal: the signed-in developer\'s applications', response: { 200: HtmlPage('Applications and the create form'), 303: Redirect('Not signed in: to /login') } }), config: READ }, async (req, reply) => {
    const me = await signedIn(req, reply, false);
    if (!me) return reply;
    return pageHeaders(reply).send(await listView(me.user.id, me.csrf));
  });

  r.post('/developers/applications', { ...pageRoute({ summary: 'Create an application (its secrets are shown once, on the page it redirects to)', body: Type.Object({ csrf: FormField('The session\'s CSRF token'), name: FormField('Application name, 2 to 32 characters') }), response: { 303: Redirect('Created: to the application\'s page, which shows its client secret and bot token this once'), 400: HtmlPage('The list with the problems named'), 403: HtmlPage('Expired form or another origin') } }), config: WRITE }, async (req, reply) => {
    const me = await signedIn(req, reply, true);
    if (!me) return reply;
    const name = (formOf(req).get('name') ?? '').slice(0, 200);
    try {
      const created = await ctx.applications.createOwned(me.user.id, name);
      // Redirect, so a reload of the page that shows the secrets creates nothing; they reach it
      // sealed in a one-time cookie (secretFlash.ts), never in the URL.
      const to = `/developers/applications/${created.id}`;
      setSecretFlash(reply, me.cookie, { page: to, values: { kind: 'created', clientSecret: created.clientSecret, botToken: created.botToken } }, isSecure(ctx, req));
      return reply.redirect(to, 303);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const error = errorLines(err.errors).join(' ') || err.message;
      return pageHeaders(reply).code(400).send(await listView(me.user.id, me.csrf, { error, name }));
    }
  });

  r.get('/developers/applications/:id', { schema: { params: AppParams }, config: READ }, async (req, reply) => {
    const me = await signedIn(req, reply, false);
    if (!me) return reply;
    const flash = takeSecretFlash(req, reply, `/developers/applications/${req.params.id}`);
    const row = await ctx.applications.getOwned(req.params.id, me.user.id).catch(() => undefined);
    if (!row) return unknownApp(reply);
    const saved = (req.query as Record<string, string | undefined>).saved;
    const section = PORTAL_SECTIONS.find((s) => s.id === saved);
    const shown =
      flash?.kind === 'created' ? { created: { clientSecret: flash.clientSecret!, botToken: flash.botToken! } }
      : flash?.kind === 'secret' ? { stateOf: flash.section!, state: { secret: { label: flash.label!, value: flash.value! } } }
      : section ? { stateOf: section.id, state: { notice: 'Saved.' } }
      : {};
    return pageHeaders(reply).send(portalAppPage({ app: await ctx.applications.toWire(row), csrf: me.csrf, origin: ctx.publicHttpUrl(), ...shown }));
  });

  r.post('/developers/applications/:id/:section', { schema: { params: SectionParams }, config: WRITE }, async (req, reply) => {
    const me = await signedIn(req, reply, true);
    if (!me) return reply;
    const row = await ctx.applications.getOwned(req.params.id, me.user.id).catch(() => undefined);
    if (!row) return unknownApp(reply);
    const section = PORTAL_SECTIONS.find((s) => s.id === req.params.section);
    if (!section) return unknownApp(reply);
    const app = await ctx.applications.toWire(row);
    try {
      const outcome = await section.submit(formOf(req), { app, applications: ctx.applications, commerce: ctx.commerce, quests: questServiceFor(ctx.store) });
      // Every form redirects, so a reload cannot resend it; a new secret goes to the page sealed
      // in a one-time cookie (secretFlash.ts), never in the URL.
      if ('secret' in outcome) {
        setSecretFlash(reply, me.cookie, { page: `/developers/applications/${app.id}`, values: { kind: 'secret', section: section.id, ...outcome.secret } }, isSecure(ctx, req));
        return reply.redirect(`/developers/applications/${app.id}#${section.id}`, 303);
      }
      return reply.redirect(`/developers/applications/${app.id}?saved=${section.id}#${section.id}`, 303);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const errors = err.errors ? errorLines(err.errors) : [err.message];
      return pageHeaders(reply).code(400).send(portalAppPage({ app, csrf: me.csrf, origin: ctx.publicHttpUrl(), stateOf: section.id, state: { errors } }));
    }
  });

  // The icon upload is the one multipart form: its parser lives in this scope only, with limits
  // that stop a large upload early (one file of the icon size, a few small fields).
  void app.register(async (scope) => {
    await scope.register(multipart, { throwFileSizeLimit: false, limits: { fileSize: MAX_ICON_BYTES, files: 1, fields: 4, fieldSize: 200, parts: 5, headerPairs: 50 } });
    scope.withTypeProvider<TypeBoxTypeProvider>().post('/developers/applications/:id/icon', { schema: { params: AppParams }, config: WRITE }, async (req, reply) => {
      if (!(await currentWebUser(ctx, req))) return reply.redirect('/login?next=%2Fdevelopers', 303);
      let csrf: string | null = null;
      let bytes: Buffer | undefined;
      let tooLarge = false;
      for await (const part of req.parts()) {
        if (part.type === 'field') {
          if (part.fieldname === 'csrf' && typeof part.value === 'string') csrf = part.value;
        } else if (part.fieldname === 'icon' && bytes === undefined) {
          bytes = await part.toBuffer();
          tooLarge = part.file.truncated;
        } else {
          await part.toBuffer();
        }
      }
      const me = await signedIn(req, reply, true, csrf);
      if (!me) return reply;
      const row = await ctx.applications.getOwned(req.params.id, me.user.id).catch(() => undefined);
      if (!row) return unknownApp(reply);
      const app = await ctx.applications.toWire(row);
      const refuse = (message: string) =>
        pageHeaders(reply).code(400).send(portalAppPage({ app, csrf: me.csrf, origin: ctx.publicHttpUrl(), stateOf: 'general', state: { errors: [message] } }));
      if (!bytes || bytes.length === 0) return refuse('Choose an image file.');
      if (tooLarge) return refuse(`The image is larger than ${MAX_ICON_BYTES / 1024} KiB.`);
      const dataUri = imageDataUriFromBytes(bytes);
      if (!dataUri) return refuse('That file is not a PNG, JPEG, GIF or WebP image.');
      try {
        await ctx.applications.update(app.id, { icon: dataUri });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        return refuse(errorLines(err.errors).join(' ') || err.message);
      }
      return reply.redirect(`/developers/applications/${app.id}?saved=general#general`, 303);
    });
  });
}
