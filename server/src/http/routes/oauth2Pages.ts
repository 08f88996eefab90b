import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { currentWebUser, pageHeaders, sameOrigin } from '../../accounts/webSession.ts';
import type { AuthorizeRequest } from '../../oauth2/OAuthService.ts';
import { messagePage } from '../../pages/accountPages.ts';
import { activatePage, consentPage, deviceConsentPage } from '../../pages/oauthPages.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { formOf } from './accountPages.ts';
import { botAuthorizeGet } from './guildBotAuthorize.ts';
import { FormField, HtmlPage, pageRoute, Redirect, Type } from '../schemas/index.ts';

/** The request parameters the consent form carries back (everything but csrf and decision). */
const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'scope', 'state', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'nonce', 'prompt', 'integration_type'];

const AuthorizeFields = Type.Object({
  response_type: FormField('code'),
  client_id: FormField('Application ID'),
  scope: FormField('Space-separated scopes'),
  state: FormField('Returned unchanged'),
  redirect_uri: FormField('One of the application\'s redirect URIs'),
  code_challenge: FormField('PKCE S256 challenge (required for public clients)'),
  code_challenge_method: FormField('S256'),
  nonce: FormField('OpenID Connect nonce'),
  prompt: FormField('none or consent'),
  integration_type: FormField('0 guild install, 1 user install'),
});
const DeviceCode = Type.Object({ user_code: FormField('The code the device shows') });
const Csrf = { csrf: FormField('The page\'s CSRF token') };

function queryOf(req: FastifyRequest): URLSearchParams {
  const raw = req.raw.url ?? '';
  const i = raw.indexOf('?');
  return new URLSearchParams(i < 0 ? '' : raw.slice(i + 1));
}

function redirectHost(uri: string): string {
  try {
    const u = new URL(uri);
    // Custom-scheme redirects (`<scheme>:/authorize/callback`) go back to the installed game.
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.host : 'the game';
  } catch {
    return uri;
  }
}

/**
 * The authorize page (consent) and the device-flow activation page. Errors before the client
 * and redirect URI are trusted show a page; after, they go back to the redirect URI.
 */
export function oauth2PageRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const showError = (reply: FastifyReply, message: string) => pageHeaders(reply).code(400).send(messagePage('Authorization failed', message));

  // Repeated parameters are an error in OAuth2 (RFC 6749 3.1): the handler reads the raw query.
  app.get(
    '/oauth2/authorize',
    pageRoute({
      summary: 'OAuth2 authorization (consent page)',
      querystring: AuthorizeFields,
      response: { 200: HtmlPage('Consent page'), 302: Redirect('Back to the redirect URI with code and state, or an error'), 303: Redirect('Not signed in: to /login'), 400: HtmlPage('Unknown client or redirect URI') },
    }),
    async (req, reply) => {
    const q = queryOf(req);
    // The bot scope adds a bot to a guild (issue 10): its own page, in guildBotAuthorize.ts.
    if ((q.get('scope') ?? '').split(/[ +]/).includes('bot')) return botAuthorizeGet(ctx, req, reply, q);
    const check = await ctx.oauth.checkAuthorize(q);
    if ('page' in check) return showError(reply, check.page);
    if ('redirect' in check) return reply.redirect(check.redirect, 302);
    const me = await currentWebUser(ctx, req);
    if (!me) {
      if (check.ok.prompt === 'none') return reply.redirect(ctx.oauth.deny(check.ok).replace('access_denied', 'login_required'), 302);
      return reply.redirect(`/login?next=${encodeURIComponent(req.raw.url ?? '/account')}`, 303);
    }
    if (check.ok.prompt === 'none') {
      if (await ctx.oauth.alreadyGranted(check.ok, me.user.id)) return reply.redirect(await ctx.oauth.approve(check.ok, me.user), 302);
      return reply.redirect(ctx.oauth.deny(check.ok).replace('access_denied', 'consent_required'), 302);
    }
    return renderConsent(reply, check.ok, q, me);
  });

  app.post(
    '/oauth2/authorize',
    pageRoute({
      summary: 'OAuth2 consent decision',
      body: Type.Object({ ...AuthorizeFields.properties, ...Csrf, decision: FormField('allow or deny') }),
      response: { 303: Redirect('Back to the redirect URI with code and state, or access_denied'), 400: HtmlPage('Unknown client or redirect URI'), 403: HtmlPage('The form expired') },
    }),
    async (req, reply) => {
    const form = formOf(req);
    const q = new URLSearchParams();
    for (const k of AUTHORIZE_PARAMS) for (const v of form.getAll(k)) q.append(k, v);
    const check = await ctx.oauth.checkAuthorize(q);
    if ('page' in check) return showError(reply, check.page);
    if ('redirect' in check) return reply.redirect(check.redirect, 302);
    const me = await currentWebUser(ctx, req);
    if (!me) return reply.redirect(`/login?next=${encodeURIComponent(`/oauth2/authorize?${q}`)}`, 303);
    if (!sameOrigin(ctx, req) || form.get('csrf') !== me.csrf) return pageHeaders(reply).code(403).send(messagePage('Not allowed', 'This form has expired. Start again from the game.'));
    const decision = form.get('decision');
    // IDs and the decision only: the redirect carries the code and must never reach a log.
    ctx.log.debug({ applicationId: check.ok.application.id, userId: me.user.id, allow: decision === 'allow' }, 'authorize consent');
    // 303 after a POST makes the browser GET the redirect URI, as a redirect after consent should.
    if (decision === 'allow') return reply.redirect(await ctx.oauth.approve(check.ok, me.user), 303);
    return reply.redirect(ctx.oauth.deny(check.ok), 303);
  });

  app.get('/activate', pageRoute({ summary: 'Device activation page (RFC 8628 verification URI)', querystring: DeviceCode, response: { 200: HtmlPage('Enter the code'), 303: Redirect('Not signed in: to /login') } }), async (req, reply) => {
    const me = await currentWebUser(ctx, req);
    if (!me) return reply.redirect(`/login?next=${encodeURIComponent(req.raw.url ?? '/activate')}`, 303);
    const code = queryOf(req).get('user_code') ?? undefined;
    return pageHeaders(reply).send(activatePage({ csrf: me.csrf, userCode: code?.slice(0, 16) }));
  });

  app.post(
    '/activate',
    pageRoute({ summary: 'Check a device code: the consent page', body: Type.Object({ ...DeviceCode.properties, ...Csrf }), response: { 200: HtmlPage('Device consent page'), 400: HtmlPage('Unknown or expired code'), 403: HtmlPage('The form expired') } }),
    async (req, reply) => {
    const me = await currentWebUser(ctx, req);
    if (!me) return reply.redirect('/login?next=/activate', 303);
    const form = formOf(req);
    if (!sameOrigin(ctx, req) || form.get('csrf') !== me.csrf) return pageHeaders(reply).code(403).send(messagePage('Not allowed', 'This form has expired.'));
    const userCode = (form.get('user_code') ?? '').slice(0, 16);
    const request = await ctx.oauth.deviceRequest(userCode);
    if (!request) return pageHeaders(reply).code(400).send(activatePage({ csrf: me.csrf, userCode, error: 'That code is not valid or has expired.' }));
    return pageHeaders(reply).send(
      deviceConsentPage({ appName: request.application.name, userName: me.user.global_name ?? me.user.username, scopes: request.scopes, csrf: me.csrf, userCode: request.userCode }),
    );
  });

  app.post(
    '/activate/decision',
    pageRoute({
      summary: 'Allow or deny a device',
      body: Type.Object({ ...DeviceCode.properties, ...Csrf, decision: FormField('allow or deny') }),
      response: { 200: HtmlPage('Done'), 400: HtmlPage('Unknown or expired code'), 403: HtmlPage('The form expired') },
    }),
    async (req, reply) => {
    const me = await currentWebUser(ctx, req);
    if (!me) return reply.redirect('/login?next=/activate', 303);
    const form = formOf(req);
    if (!sameOrigin(ctx, req) || form.get('csrf') !== me.csrf) return pageHeaders(reply).code(403).send(messagePage('Not allowed', 'This form has expired.'));
    const allow = form.get('decision') === 'allow';
    const ok = await ctx.oauth.deviceDecision(form.get('user_code') ?? '', me.user, allow);
    ctx.log.debug({ userId: me.user.id, allow, known: ok }, 'device consent');
    if (!ok) return pageHeaders(reply).code(400).send(activatePage({ csrf: me.csrf, error: 'That code is not valid or has expired.' }));
    return pageHeaders(reply).send(
      messagePage(allow ? 'Device connected' : 'Request cancelled', allow ? 'You can return to your device now.' : 'The device was not connected.', allow ? 'notice' : 'error'),
    );
  });
}

function renderConsent(reply: FastifyReply, req: AuthorizeRequest, q: URLSearchParams, me: { user: { username: string; global_name: string | null }; csrf: string }) {
  const params: Record<string, string | undefined> = {};
  for (const k of AUTHORIZE_PARAMS) params[k] = q.get(k) ?? undefined;
  return pageHeaders(reply).send(
    consentPage({ appName: req.application.name, userName: me.user.global_name ?? me.user.username, scopes: req.scopes, csrf: me.csrf, params, redirectHost: redirectHost(req.redirectUri) }),
  );
}
