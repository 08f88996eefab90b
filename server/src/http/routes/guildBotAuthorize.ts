import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { currentWebUser, pageHeaders, sameOrigin } from '../../accounts/webSession.ts';
import { BotAuthorization, type BotAuthorizeRequest } from '../../guilds/BotAuthorization.ts';
import { guildServicesFor } from '../../guilds/GuildServices.ts';
import { messagePage } from '../../pages/accountPages.ts';
import { botAuthorizePage } from '../../pages/botAuthorizePage.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { formOf } from './accountPages.ts';
import { FormField, HtmlPage, pageRoute, Redirect, Type } from '../schemas/index.ts';
import { SCOPE_DESCRIPTIONS } from '../../oauth2/scopes.ts';

/** The parameters the bot page's form carries back. */
const BOT_PARAMS = ['client_id', 'scope', 'permissions', 'redirect_uri', 'state', 'disable_guild_select', 'response_type', 'code_challenge', 'code_challenge_method'];

function authorization(ctx: ServerContext): BotAuthorization {
  return new BotAuthorization(ctx.store, guildServicesFor(ctx.store, ctx.bus));
}

function render(reply: FastifyReply, ctx: ServerContext, a: BotAuthorization, req: BotAuthorizeRequest, q: URLSearchParams, me: { user: { id: string; username: string; global_name: string | null }; csrf: string }, guilds: { id: string; name: string }[], error?: string, status = 200) {
  const params: Record<string, string | undefined> = {};
  for (const k of BOT_PARAMS) params[k] = q.get(k) ?? undefined;
  void ctx;
  return pageHeaders(reply).code(status).send(
    botAuthorizePage({
      appName: req.application.name,
      userName: me.user.global_name ?? me.user.username,
      guilds,
      ...(req.guildId ? { selected: req.guildId } : {}),
      lockGuild: req.disableGuildSelect && req.guildId !== undefined,
      permissions: a.permissionNames(req.permissions),
      userScopes: req.userScopes.map((sc) => SCOPE_DESCRIPTIONS[sc] ?? sc),
      csrf: me.csrf,
      params,
      ...(error ? { error } : {}),
    }),
  );
}

/**
 * GET /oauth2/authorize with the `bot` scope: the oauth2 page routes hand the request here
 * (oauth2Pages.ts), since a bot authorization picks a guild instead of issuing a code.
 */
export async function botAuthorizeGet(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply, q: URLSearchParams) {
  const a = authorization(ctx);
  const check = await a.check(q);
  if (typeof check === 'string') return pageHeaders(reply).code(400).send(messagePage('Authorization failed', check));
  const me = await currentWebUser(ctx, req);
  if (!me) return reply.redirect(`/login?next=${encodeURIComponent(req.raw.url ?? '/account')}`, 303);
  return render(reply, ctx, a, check, q, me, await a.manageableGuilds(me.user.id));
}

/**
 * The bot page's decision: adds the bot to the chosen guild, then back to the redirect URI (if
 * any) with guild_id and permissions, and a code when user scopes were asked for too.
 */
export function guildBotAuthorizeRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post(
    '/oauth2/authorize/bot',
    {
      ...pageRoute({
        summary: 'OAuth2 bot authorization decision (adds the bot to a guild)',
        body: Type.Object({
          client_id: FormField('Application ID'),
          scope: FormField('bot, optionally applications.commands; user scopes too with response_type=code'),
          permissions: FormField('Permission bitfield for the bot\'s managed role'),
          guild_id: FormField('The guild to add the bot to'),
          redirect_uri: FormField('A registered redirect URI (optional)'),
          state: FormField('Returned unchanged'),
          disable_guild_select: FormField('true keeps guild_id fixed'),
          response_type: FormField('code, when user scopes come with bot'),
          code_challenge: FormField('PKCE S256 challenge for that code'),
          code_challenge_method: FormField('S256'),
          csrf: FormField('The page\'s CSRF token'),
          decision: FormField('allow or deny'),
        }),
        response: { 200: HtmlPage('Added, or cancelled'), 303: Redirect('Back to the redirect URI'), 400: HtmlPage('Refused'), 403: HtmlPage('The form expired') },
      }),
      config: { rateLimit: { bucket: 'oauth2.authorize.bot', limit: 30, windowMs: 60_000 } },
    },
    async (req, reply) => {
    const form = formOf(req);
    const q = new URLSearchParams();
    for (const k of BOT_PARAMS) for (const v of form.getAll(k)) q.append(k, v);
    const guildId = form.get('guild_id') ?? '';
    if (guildId) q.set('guild_id', guildId);
    const a = authorization(ctx);
    const check = await a.check(q);
    if (typeof check === 'string') return pageHeaders(reply).code(400).send(messagePage('Authorization failed', check));
    const me = await currentWebUser(ctx, req);
    if (!me) return reply.redirect('/login', 303);
    if (!sameOrigin(ctx, req) || form.get('csrf') !== me.csrf) return pageHeaders(reply).code(403).send(messagePage('Not allowed', 'This form has expired. Start again.'));
    const back = (extra: Record<string, string>) => {
      const u = new URL(check.redirectUri!);
      for (const [k, v] of Object.entries(extra)) u.searchParams.set(k, v);
      if (check.state !== undefined) u.searchParams.set('state', check.state);
      return u.toString();
    };
    if (form.get('decision') !== 'allow') {
      if (check.redirectUri) return reply.redirect(back({ error: 'access_denied' }), 303);
      return pageHeaders(reply).send(messagePage('Cancelled', 'The bot was not added.', 'notice'));
    }
    const result = await a.install(check, me.user.id, guildId);
    if (typeof result === 'string') return render(reply, ctx, a, check, q, me, await a.manageableGuilds(me.user.id), result, 400);
    if (check.userScopes.length > 0) {
      // Bot plus user scopes (the public advanced bot authorization): a code as well, whose token
      // response carries the guild. check() made sure a registered redirect_uri is there.
      const code = await ctx.oauth.approveBotCode({ ...check, redirectUri: check.redirectUri! }, me.user, guildId);
      return reply.redirect(back({ code, guild_id: guildId, permissions: check.permissions.toString() }), 303);
    }
    if (check.redirectUri) return reply.redirect(back({ guild_id: guildId, permissions: check.permissions.toString() }), 303);
    return pageHeaders(reply).send(messagePage(`${check.application.name} was added`, 'The bot is now a member of your server.', 'notice'));
  });
}
