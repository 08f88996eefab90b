/**
 * Who may call each API route: the one table of the credential model.
 *
 * A route admits some of four kinds of caller:
 * - `bot`: an application's bot token (`Authorization: Bot <token>`);
 * - `session`: the platform's own client, the web app (a token of the first-party application);
 * - `bearer`: an OAuth2 or provisional access token of a third-party application, and then only
 *   when the token holds one of the listed scopes (an empty list: any scope);
 * - `open`: no credential at all (client authentication in the body or the URL's token, or public
 *   data); the handler may still read one.
 *
 * The scopes follow the public API's scope documentation: `guilds` reads the user's guild list and
 * nothing else, so guild management, guild messages, roles, bans, prune, emojis, channels and
 * invites are bot or web-app routes. A third-party game acts as the player only in what the SDK
 * scopes name (lobbies, DMs, relationships, presence).
 *
 * Every /api route registered must have an entry (createHttpApp refuses to register one without,
 * and routeAccess.test walks the registry with every kind). URLs outside /api are the platform's
 * pages and files: cookie-signed forms or public assets, outside this model.
 */
export interface RouteAccess {
  readonly bot?: true;
  readonly session?: true;
  readonly bearer?: readonly string[];
  readonly open?: true;
}

const OPEN: RouteAccess = { open: true };
const BOT: RouteAccess = { bot: true };
const SESSION: RouteAccess = { session: true };
/** Guild management and guild messages: the guild's own tools (bots) and the web app. */
const MANAGE: RouteAccess = { bot: true, session: true };
/**
 * Guild reads the desktop companion answers RPC's GET_GUILD, GET_CHANNELS and GET_CHANNEL with,
 * using the game's token: the `rpc` scope grants them (within what the player may see).
 */
const RPC_READ: RouteAccess = { bot: true, session: true, bearer: ['rpc'] };
/** The web app, or a third-party token holding one of `scopes` (none listed: any token). */
const user = (...scopes: string[]): RouteAccess => ({ session: true, bearer: scopes });
/** As `user`, and bots too. */
const userOrBot = (...scopes: string[]): RouteAccess => ({ bot: true, session: true, bearer: scopes });

const SDK = 'sdk.social_layer';
const COMMANDS = 'applications.commands.update';

const V = '/api/v10';
const table: Record<string, RouteAccess> = {
  // Meta and the Gateway.
  [`GET ${V}/openapi.json`]: OPEN,
  [`GET ${V}/gateway`]: OPEN,
  [`GET ${V}/gateway/bot`]: BOT,

  // Provisional accounts: client authentication in the body, or the game's backend.
  [`POST ${V}/partner-sdk/token`]: OPEN,
  [`POST ${V}/partner-sdk/token/bot`]: BOT,
  [`POST ${V}/partner-sdk/provisional-accounts/unmerge`]: OPEN,
  [`POST ${V}/partner-sdk/provisional-accounts/unmerge/bot`]: BOT,

  // The user.
  [`GET ${V}/users/@me`]: userOrBot('identify'),
  [`PATCH ${V}/users/@me`]: user(SDK),
  [`GET ${V}/users/:userId/application-profiles`]: userOrBot('identify'),
  // Get User: bots (the public rule) and the web app's profile cards.
  [`GET ${V}/users/:user_id`]: { bot: true, session: true },
  [`GET ${V}/users/@me/guilds`]: userOrBot('guilds'),
  [`GET ${V}/users/@me/guilds/:guild_id/member`]: user('guilds.members.read'),
  [`GET ${V}/users/@me/connections`]: user('connections'),
  [`DELETE ${V}/users/@me/guilds/:guild_id`]: MANAGE,
  [`PUT ${V}/users/@me/primary-guild`]: SESSION,

  // OAuth2: the token endpoints authenticate the client themselves.
  ...Object.fromEntries(
    ['/api/v10', '/api'].flatMap((base) => [
      [`POST ${base}/oauth2/token`, OPEN],
      [`POST ${base}/oauth2/token/revoke`, OPEN],
      [`POST ${base}/oauth2/device/authorize`, OPEN],
      [`GET ${base}/oauth2/keys`, OPEN],
    ]),
  ),
  [`GET ${V}/oauth2/@me`]: user(),
  [`GET ${V}/oauth2/userinfo`]: user('openid'),
  [`POST ${V}/applications/@me/authorize-requests`]: BOT,

  // Lobbies (the SDK's scope; the game's backend with its bot token).
  [`PUT ${V}/lobbies`]: user(SDK),
  [`POST ${V}/lobbies`]: BOT,
  [`GET ${V}/lobbies/:id`]: userOrBot(SDK, 'lobbies.write'),
  [`PATCH ${V}/lobbies/:id`]: BOT,
  [`DELETE ${V}/lobbies/:id`]: BOT,
  [`DELETE ${V}/lobbies/:id/members/@me`]: user(SDK),
  [`PUT ${V}/lobbies/:id/members/:userId`]: BOT,
  [`DELETE ${V}/lobbies/:id/members/:userId`]: BOT,
  [`POST ${V}/lobbies/:id/members/bulk`]: BOT,
  [`POST ${V}/lobbies/:id/messages`]: user(SDK),
  [`GET ${V}/lobbies/:id/messages`]: user(SDK),
  [`PATCH ${V}/lobbies/:id/channel-linking`]: user(SDK),
  [`POST ${V}/lobbies/:id/members/@me/invites`]: user(SDK),
  [`POST ${V}/lobbies/:id/members/:userId/invites`]: BOT,
  [`GET ${V}/users/@me/sdk/guilds`]: user(SDK),
  [`GET ${V}/users/@me/sdk/guilds/:guild_id/channels`]: user(SDK),
  [`PUT ${V}/lobbies/:id/messages/:messageId/moderation-metadata`]: BOT,

  // Relationships, presence, game invites.
  [`GET ${V}/users/@me/relationships`]: user('relationships.read'),
  ...Object.fromEntries(
    ['relationships', 'game-relationships'].flatMap((base) => [
      [`POST ${V}/users/@me/${base}`, user('relationships.write')],
      [`PUT ${V}/users/@me/${base}/:userId`, user('relationships.write')],
      [`DELETE ${V}/users/@me/${base}/:userId`, user('relationships.write')],
    ]),
  ),
  [`PUT ${V}/users/@me/activities`]: user('activities.write'),
  [`DELETE ${V}/users/@me/activities`]: user('activities.write'),
  [`PATCH ${V}/users/@me/settings`]: user('activities.write'),
  [`POST ${V}/users/:userId/activity-invites`]: user('activities.write'),
  [`POST ${V}/users/:userId/activity-join-requests`]: user('activities.write'),
  [`GET ${V}/users/@me/activity-invites`]: user('activities.write'),
  [`GET ${V}/users/@me/activity-invites/:inviteId`]: user('activities.write'),
  [`POST ${V}/users/@me/activity-invites/:inviteId/accept`]: user('activities.write'),
  [`POST ${V}/users/@me/activity-invites/:inviteId/reply`]: user('activities.write'),
  [`GET ${V}/applications/@me/social-settings`]: BOT,
  [`PATCH ${V}/applications/@me/social-settings`]: BOT,

  // The game's direct messages between players.
  [`POST ${V}/users/:userId/messages`]: user('dm_channels.messages.write'),
  [`GET ${V}/users/:userId/messages`]: user('dm_channels.messages.write'),
  [`PATCH ${V}/users/:userId/messages/:messageId`]: user('dm_channels.messages.write'),
  [`DELETE ${V}/users/:userId/messages/:messageId`]: user('dm_channels.messages.write'),
  [`GET ${V}/users/@me/message-summaries`]: user('dm_channels.messages.write'),
  [`PUT ${V}/channels/:channelId/messages/:messageId/moderation-metadata`]: BOT,
  [`PUT ${V}/partner-sdk/dms/:user_id_1/:user_id_2/messages/:messageId/moderation-metadata`]: BOT,

  // Guilds.
  [`POST ${V}/guilds`]: SESSION,
  [`GET ${V}/guilds/:guild_id`]: RPC_READ,
  [`PATCH ${V}/guilds/:guild_id`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/prune`]: MANAGE,
  [`POST ${V}/guilds/:guild_id/prune`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/channels`]: RPC_READ,
  [`POST ${V}/guilds/:guild_id/channels`]: MANAGE,
  [`PATCH ${V}/guilds/:guild_id/channels`]: MANAGE,
  [`PUT ${V}/channels/:channel_id/voice-status`]: MANAGE,
  [`GET ${V}/channels/:channel_id`]: RPC_READ,
  [`PATCH ${V}/channels/:channel_id`]: MANAGE,
  [`DELETE ${V}/channels/:channel_id`]: MANAGE,
  [`PUT ${V}/channels/:channel_id/permissions/:overwrite_id`]: MANAGE,
  [`DELETE ${V}/channels/:channel_id/permissions/:overwrite_id`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/roles`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/roles/member-counts`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/roles/:role_id`]: MANAGE,
  [`POST ${V}/guilds/:guild_id/roles`]: MANAGE,
  [`PATCH ${V}/guilds/:guild_id/roles`]: MANAGE,
  [`PATCH ${V}/guilds/:guild_id/roles/:role_id`]: MANAGE,
  [`DELETE ${V}/guilds/:guild_id/roles/:role_id`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/members`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/members/search`]: MANAGE,
  [`PATCH ${V}/guilds/:guild_id/members/@me`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/members/:user_id`]: MANAGE,
  // Add Guild Member: the bot, carrying the user's `guilds.join` token in the body.
  [`PUT ${V}/guilds/:guild_id/members/:user_id`]: BOT,
  [`PATCH ${V}/guilds/:guild_id/members/:user_id`]: MANAGE,
  [`DELETE ${V}/guilds/:guild_id/members/:user_id`]: MANAGE,
  [`PUT ${V}/guilds/:guild_id/members/:user_id/roles/:role_id`]: MANAGE,
  [`DELETE ${V}/guilds/:guild_id/members/:user_id/roles/:role_id`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/bans`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/bans/:user_id`]: MANAGE,
  [`PUT ${V}/guilds/:guild_id/bans/:user_id`]: MANAGE,
  [`DELETE ${V}/guilds/:guild_id/bans/:user_id`]: MANAGE,
  [`POST ${V}/guilds/:guild_id/bulk-ban`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/regions`]: MANAGE,
  [`GET ${V}/voice/regions`]: { bot: true, session: true },
  [`GET ${V}/guilds/:guild_id/voice-states/@me`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/voice-states/:user_id`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/emojis`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/emojis/:emoji_id`]: MANAGE,
  [`POST ${V}/guilds/:guild_id/emojis`]: MANAGE,
  [`PATCH ${V}/guilds/:guild_id/emojis/:emoji_id`]: MANAGE,
  [`DELETE ${V}/guilds/:guild_id/emojis/:emoji_id`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/messages/search`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/auto-moderation/rules`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/auto-moderation/rules/:rule_id`]: MANAGE,
  [`POST ${V}/guilds/:guild_id/auto-moderation/rules`]: MANAGE,
  [`PATCH ${V}/guilds/:guild_id/auto-moderation/rules/:rule_id`]: MANAGE,
  [`DELETE ${V}/guilds/:guild_id/auto-moderation/rules/:rule_id`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/audit-logs`]: MANAGE,

  // Guild invites. Reading one is open to any signed-in caller; accepting is the person's own act.
  [`POST ${V}/channels/:channel_id/invites`]: MANAGE,
  [`GET ${V}/channels/:channel_id/invites`]: MANAGE,
  [`GET ${V}/guilds/:guild_id/invites`]: MANAGE,
  [`GET ${V}/invites/:code`]: userOrBot(),
  [`POST ${V}/invites/:code`]: SESSION,
  [`DELETE ${V}/invites/:code`]: MANAGE,
  [`GET ${V}/invites/:code/target-users`]: MANAGE,
  [`PUT ${V}/invites/:code/target-users`]: MANAGE,
  [`GET ${V}/invites/:code/target-users/job-status`]: MANAGE,

  // Channel messages, pins, reactions, polls (guild channels and the platform's DMs).
  [`GET ${V}/channels/:channel_id/messages`]: MANAGE,
  [`POST ${V}/channels/:channel_id/messages`]: MANAGE,
  [`POST ${V}/channels/:channel_id/messages/bulk-delete`]: MANAGE,
  [`GET ${V}/channels/:channel_id/messages/pins`]: MANAGE,
  [`PUT ${V}/channels/:channel_id/messages/pins/:message_id`]: MANAGE,
  [`DELETE ${V}/channels/:channel_id/messages/pins/:message_id`]: MANAGE,
  [`GET ${V}/channels/:channel_id/pins`]: MANAGE,
  [`PUT ${V}/channels/:channel_id/pins/:message_id`]: MANAGE,
  [`DELETE ${V}/channels/:channel_id/pins/:message_id`]: MANAGE,
  [`GET ${V}/channels/:channel_id/messages/:message_id`]: MANAGE,
  [`PATCH ${V}/channels/:channel_id/messages/:message_id`]: MANAGE,
  [`DELETE ${V}/channels/:channel_id/messages/:message_id`]: MANAGE,
  [`POST ${V}/channels/:channel_id/messages/:message_id/crosspost`]: MANAGE,
  [`PUT ${V}/channels/:channel_id/messages/:message_id/reactions/:emoji/@me`]: MANAGE,
  [`DELETE ${V}/channels/:channel_id/messages/:message_id/reactions/:emoji/@me`]: MANAGE,
  [`DELETE ${V}/channels/:channel_id/messages/:message_id/reactions/:emoji/:user_id`]: MANAGE,
  [`GET ${V}/channels/:channel_id/messages/:message_id/reactions/:emoji`]: MANAGE,
  [`DELETE ${V}/channels/:channel_id/messages/:message_id/reactions/:emoji`]: MANAGE,
  [`DELETE ${V}/channels/:channel_id/messages/:message_id/reactions`]: MANAGE,
  [`POST ${V}/channels/:channel_id/typing`]: MANAGE,
  [`GET ${V}/channels/:channel_id/polls/:message_id/answers/:answer_id`]: MANAGE,
  [`POST ${V}/channels/:channel_id/polls/:message_id/expire`]: MANAGE,
  [`PUT ${V}/channels/:channel_id/polls/:message_id/answers/@me`]: MANAGE,

  // The platform's DMs and group DMs (a bot's group DM from users' gdm.join grants included).
  [`POST ${V}/users/@me/channels`]: MANAGE,
  // dm_channels.read (privileged: an approved application's) lists the player's DMs, nothing more.
  [`GET ${V}/users/@me/channels`]: { bot: true, session: true, bearer: ['dm_channels.read'] },
  [`PUT ${V}/channels/:channel_id/recipients/:user_id`]: MANAGE,
  [`DELETE ${V}/channels/:channel_id/recipients/:user_id`]: MANAGE,

  // Applications, emojis of an application, quests.
  [`GET ${V}/applications/@me`]: BOT,
  [`PATCH ${V}/applications/@me`]: BOT,
  [`GET ${V}/applications/:application_id`]: BOT,
  [`PATCH ${V}/applications/:application_id`]: BOT,
  [`GET ${V}/oauth2/applications/@me`]: BOT,
  [`POST ${V}/applications/:applicationId/bot/reset`]: BOT,
  [`GET ${V}/applications/:application_id/emojis`]: BOT,
  [`GET ${V}/applications/:application_id/emojis/:emoji_id`]: BOT,
  [`POST ${V}/applications/:application_id/emojis`]: BOT,
  [`PATCH ${V}/applications/:application_id/emojis/:emoji_id`]: BOT,
  [`DELETE ${V}/applications/:application_id/emojis/:emoji_id`]: BOT,
  [`GET ${V}/applications/:applicationId/quests`]: userOrBot(),
  [`POST ${V}/applications/:applicationId/quests`]: BOT,
  [`POST ${V}/quests/:questId/enroll`]: user(),

  // Commerce.
  [`GET ${V}/applications/:applicationId/storefront`]: user(),
  [`GET ${V}/skus/:skuId`]: user(),
  [`GET ${V}/users/@me/applications/:applicationId/entitlements`]: user('applications.entitlements', SDK),
  [`GET ${V}/applications/:applicationId/skus`]: userOrBot(),
  // Buying and cancelling are the person's own acts, in the web app's dialog (an activity opens it
  // there): a game's token never charges the player or cancels their subscriptions.
  [`POST ${V}/skus/:skuId/checkout`]: SESSION,
  [`GET ${V}/applications/:applicationId/entitlements`]: BOT,
  [`GET ${V}/applications/:applicationId/entitlements/:entitlementId`]: BOT,
  [`POST ${V}/applications/:applicationId/entitlements`]: BOT,
  [`DELETE ${V}/applications/:applicationId/entitlements/:entitlementId`]: BOT,
  [`POST ${V}/applications/:applicationId/entitlements/:entitlementId/consume`]: BOT,
  [`GET ${V}/skus/:skuId/subscriptions`]: BOT,
  [`GET ${V}/skus/:skuId/subscriptions/:subscriptionId`]: BOT,
  [`GET ${V}/users/@me/subscriptions`]: user(),
  [`POST ${V}/users/@me/subscriptions/:subscriptionId/cancel`]: SESSION,

  // Application commands: the bot, or a token granted applications.commands.update.
  ...Object.fromEntries(
    [`${V}/applications/:applicationId/commands`, `${V}/applications/:applicationId/guilds/:guildId/commands`].flatMap((base) => [
      [`GET ${base}`, userOrBot(COMMANDS)],
      [`POST ${base}`, userOrBot(COMMANDS)],
      [`PUT ${base}`, userOrBot(COMMANDS)],
      [`GET ${base}/:commandId`, userOrBot(COMMANDS)],
      [`PATCH ${base}/:commandId`, userOrBot(COMMANDS)],
      [`DELETE ${base}/:commandId`, userOrBot(COMMANDS)],
    ]),
  ),

  // Interactions: the web app invokes; the interaction token in the URL authorizes the responses.
  [`GET ${V}/channels/:channelId/application-command-index`]: SESSION,
  [`POST ${V}/interactions`]: SESSION,
  [`POST ${V}/interactions/:interactionId/:token/callback`]: OPEN,
  [`POST ${V}/webhooks/:applicationId/:token`]: OPEN,
  [`GET ${V}/webhooks/:applicationId/:token/messages/:messageId`]: OPEN,
  [`PATCH ${V}/webhooks/:applicationId/:token/messages/:messageId`]: OPEN,
  [`DELETE ${V}/webhooks/:applicationId/:token/messages/:messageId`]: OPEN,

  // Activities: the web app hosts them; the activity's backend reads its instances.
  [`GET ${V}/applications/:applicationId/activity-instances/:instanceId`]: BOT,
  [`POST ${V}/applications/:applicationId/activity-instances`]: SESSION,
  [`GET ${V}/channels/:channelId/activities`]: SESSION,
  [`GET ${V}/users/@me/activity-lobbies`]: SESSION,
  [`POST ${V}/applications/:applicationId/activity-instances/:instanceId/authorize`]: SESSION,
  [`DELETE ${V}/applications/:applicationId/activity-instances/:instanceId/participants/@me`]: SESSION,
  [`PUT ${V}/applications/:applicationId/activity-instances/:instanceId/activity`]: SESSION,
  [`DELETE ${V}/applications/:applicationId/activity-instances/:instanceId/activity`]: SESSION,
};

/** Whether `url` is an API route, which the table must cover. */
export function isApiRoute(url: string): boolean {
  return url.startsWith('/api/');
}

/** The declaration for one route (HEAD as its GET); undefined when the table has none. */
export function accessOf(method: string, url: string): RouteAccess | undefined {
  return table[`${method === 'HEAD' ? 'GET' : method} ${url}`];
}

/** Every declared route, for the registry walk in the tests and the access list in the docs. */
export function declaredRoutes(): readonly [string, RouteAccess][] {
  return Object.entries(table);
}

/** `applications.commands` is the public spelling of the spec's `application.commands`. */
const SCOPE_ALIASES: Record<string, string> = { 'application.commands': 'applications.commands' };

/** Whether a third-party token with `scopes` (already expanded) meets `access`. */
export function bearerGranted(access: RouteAccess, scopes: readonly string[]): boolean {
  if (!access.bearer) return false;
  if (access.bearer.length === 0) return true;
  const held = new Set(scopes.map((s) => SCOPE_ALIASES[s] ?? s));
  return access.bearer.some((s) => held.has(SCOPE_ALIASES[s] ?? s));
}

/** The OpenAPI security requirements of a declaration (schemes `bot`, `bearer` with scopes, `session`). */
export function securityOf(access: RouteAccess): { [scheme: string]: string[] }[] {
  if (access.open) return [{}];
  const out: { [scheme: string]: string[] }[] = [];
  if (access.bot) out.push({ bot: [] });
  if (access.bearer) out.push({ bearer: [...access.bearer] });
  if (access.session) out.push({ session: [] });
  return out;
}
