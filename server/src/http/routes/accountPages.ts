import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LOGIN_PATTERN } from '../../accounts/AccountService.ts';
import { clearSessionCookie, currentWebUser, isSecure, pageHeaders, safeNext, sameOrigin, setSessionCookie } from '../../accounts/webSession.ts';
import { accountPage, messagePage, signInPage, signUpPage } from '../../pages/accountPages.ts';
import { PLATFORM_CSS } from '../../pages/html.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { FormField, HtmlPage, IdParam, NotFound, pageRoute, Redirect, Type } from '../schemas/index.ts';

const PAGE_LIMIT = { config: { rateLimit: { bucket: 'pages.auth', limit: 30, windowMs: 60_000 } } };
// Sign-in is also budgeted per username, so one account cannot be guessed at from many addresses.
const LOGIN_LIMIT = { config: { rateLimit: { ...PAGE_LIMIT.config.rateLimit, alsoKeyOnField: 'login' } } };

export function formOf(req: FastifyRequest): URLSearchParams {
  return req.body instanceof URLSearchParams ? req.body : new URLSearchParams();
}

function field(form: URLSearchParams, name: string, max: number): string | undefined {
  const v = form.get(name);
  return v === null || v.length > max ? undefined : v;
}

const Next = Type.Object({ next: FormField('Same-site path to return to after signing in') });
const SignUpForm = Type.Object({
  login: FormField('Username: 2-32 letters, digits, dots or underscores'),
  password: FormField('At least 8 characters'),
  display_name: FormField('Display name (up to 32 characters)'),
  email: FormField('Optional'),
  next: FormField('Where to go afterwards'),
});
const SignInForm = Type.Object({ login: FormField('Username'), password: FormField('Password'), next: FormField('Where to go afterwards') });
const CsrfForm = Type.Object({ csrf: FormField('The page\'s CSRF token') });
const PAGE_ERRORS = { 400: HtmlPage('The form again, with what was wrong'), 403: HtmlPage('Not sent from this site, or the form expired') };

/**
 * The platform's own pages for full accounts: sign-up and sign-in (scrypt-hashed passwords,
 * see accounts/passwords.ts), sign-out, and the account page listing connected games, where a
 * game can be unlinked or removed (what openConnectedGamesSettingsInDiscord opens).
 */
export function accountPageRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/assets/platform.css', pageRoute({ summary: 'The pages\' style sheet', response: { 200: { description: 'CSS', content: { 'text/css': { schema: Type.String() } } } } }), async (_req, reply) => reply.header('content-type', 'text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(PLATFORM_CSS));

  app.get('/signup', pageRoute({ summary: 'Sign-up page', querystring: Next, response: { 200: HtmlPage('Sign-up form') } }), async (req, reply) => {
    const next = (req.query as Record<string, string | undefined>).next;
    return pageHeaders(reply).send(signUpPage({ next: safeNext(next) }));
  });

  app.post('/signup', { ...pageRoute({ summary: 'Create a full account and sign in', body: SignUpForm, response: { 303: Redirect('Signed in: to `next`'), ...PAGE_ERRORS, 409: HtmlPage('Username taken') } }), ...PAGE_LIMIT }, async (req, reply) => {
    if (!sameOrigin(ctx, req)) return pageHeaders(reply).code(403).send(messagePage('Not allowed', 'This form must be sent from this site.'));
    const form = formOf(req);
    const next = safeNext(form.get('next'));
    const login = (field(form, 'login', 32) ?? '').trim();
    const password = field(form, 'password', 256) ?? '';
    const displayName = (field(form, 'display_name', 32) ?? '').trim();
    const email = (field(form, 'email', 254) ?? '').trim();
    const again = (error: string, status = 400) => pageHeaders(reply).code(status).send(signUpPage({ next, error, login, displayName, email }));
    if (!LOGIN_PATTERN.test(login.toLowerCase())) return again('Usernames are 2 to 32 letters, digits, dots or underscores.');
    if (password.length < 8) return again('Passwords need at least 8 characters.');
    if (email && !/^[^\s@]+@[^\s@]+$/.test(email)) return again('That email address does not look right.');
    const user = await ctx.accounts.signUp({ login, password, displayName, email });
    if (user === 'taken') return again('That username is taken.', 409);
    const session = await ctx.store.accounts.openSession(user.id, 30 * 24 * 3600 * 1000);
    setSessionCookie(reply, session.cookie, isSecure(ctx, req));
    return reply.redirect(next, 303);
  });

  app.get('/login', pageRoute({ summary: 'Sign-in page', querystring: Next, response: { 200: HtmlPage('Sign-in form') } }), async (req, reply) => {
    const next = (req.query as Record<string, string | undefined>).next;
    return pageHeaders(reply).send(signInPage({ next: safeNext(next) }));
  });

  app.post('/login', { ...pageRoute({ summary: 'Sign in', body: SignInForm, response: { 303: Redirect('Signed in: to `next`'), 401: HtmlPage('Wrong username or password'), 403: HtmlPage('Banned, or not sent from this site') } }), ...LOGIN_LIMIT }, async (req, reply) => {
    if (!sameOrigin(ctx, req)) return pageHeaders(reply).code(403).send(messagePage('Not allowed', 'This form must be sent from this site.'));
    const form = formOf(req);
    const next = safeNext(form.get('next'));
    const login = (field(form, 'login', 32) ?? '').trim();
    const result = await ctx.accounts.signIn(login, field(form, 'password', 256) ?? '');
    if (result === 'invalid') return pageHeaders(reply).code(401).send(signInPage({ next, login, error: 'Wrong username or password.' }));
    if (result === 'banned') return pageHeaders(reply).code(403).send(signInPage({ next, login, error: 'This account is banned.' }));
    const session = await ctx.store.accounts.openSession(result.id, 30 * 24 * 3600 * 1000);
    setSessionCookie(reply, session.cookie, isSecure(ctx, req));
    return reply.redirect(next, 303);
  });

  app.post('/logout', pageRoute({ summary: 'Sign out', body: CsrfForm, response: { 303: Redirect('To /login') } }), async (req, reply) => {
    const me = await currentWebUser(ctx, req);
    if (me && sameOrigin(ctx, req) && formOf(req).get('csrf') === me.csrf) await ctx.store.accounts.closeSession(me.cookie);
    clearSessionCookie(reply);
    return reply.redirect('/login', 303);
  });

  app.get('/account', pageRoute({ summary: 'Account page: connected games', querystring: Type.Object({ done: FormField('unlinked or removed: the notice to show') }), response: { 200: HtmlPage('Account page'), 303: Redirect('Not signed in: to /login') } }), async (req, reply) => {
    const me = await currentWebUser(ctx, req);
    if (!me) return reply.redirect(`/login?next=${encodeURIComponent('/account')}`, 303);
    const notice = (req.query as Record<string, string | undefined>).done;
    return pageHeaders(reply).send(await renderAccount(ctx, me, notice === 'unlinked' ? 'The game was unlinked.' : notice === 'removed' ? 'The app was removed.' : undefined));
  });

  const change = (action: 'unlink' | 'remove') => async (req: FastifyRequest, reply: FastifyReply) => {
    const me = await currentWebUser(ctx, req);
    if (!me) return reply.redirect('/login', 303);
    if (!sameOrigin(ctx, req) || formOf(req).get('csrf') !== me.csrf) return pageHeaders(reply).code(403).send(messagePage('Not allowed', 'This form has expired. Reload the page and try again.'));
    const appId = (req.params as { id: string }).id;
    if (!/^\d{1,20}$/.test(appId)) return pageHeaders(reply).code(404).send(messagePage('Unknown game', 'That game is not connected.'));
    if (action === 'unlink') await ctx.accounts.unlink(appId, me.user.id);
    else await ctx.accounts.deauthorize(appId, me.user.id);
    return reply.redirect(`/account?done=${action === 'unlink' ? 'unlinked' : 'removed'}`, 303);
  };
  const changeRoute = (summary: string) =>
    pageRoute({
      summary,
      params: Type.Object({ id: IdParam(NotFound.application, 'Application ID') }),
      body: CsrfForm,
      response: { 303: Redirect('Back to /account'), 403: HtmlPage('The form expired'), 404: HtmlPage('Not a connected game') },
    });
  app.post('/account/applications/:id/unlink', changeRoute('Unlink a game (its provisional identity stays)'), change('unlink'));
  app.post('/account/applications/:id/remove', changeRoute('Remove a game\'s authorization'), change('remove'));
}

async function renderAccount(ctx: ServerContext, me: { user: { id: string; username: string; global_name: string | null }; csrf: string }, notice?: string): Promise<string> {
  const rows = await ctx.store.oauth.authorizationsOf(me.user.id);
  return accountPage({
    name: me.user.global_name ?? me.user.username,
    username: me.user.username,
    csrf: me.csrf,
    notice,
    games: rows.map((r) => ({ id: r.application_id, name: r.name, scopes: r.scopes.split(' '), since: new Date(Number(r.created_at)) })),
  });
}
