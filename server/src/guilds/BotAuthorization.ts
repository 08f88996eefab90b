import type { Store } from '../storage/Store.ts';
import type { ApplicationsTable } from '../storage/schema.ts';
import { viewGuild } from './GuildAccess.ts';
import type { GuildServices } from './GuildServices.ts';
import { Permission, has, missing, parsePermissions, type PermissionName } from './permissions.ts';
import { forbiddenScope } from '../oauth2/scopes.ts';
import { isValidChallenge } from '../oauth2/pkce.ts';

/** Scopes a bot authorization may carry without a code; any other (user) scope needs the code flow. */
const BOT_SCOPES = new Set(['bot', 'applications.commands']);

export interface BotAuthorizeRequest {
  application: ApplicationsTable;
  scopes: string[];
  permissions: bigint;
  guildId: string | undefined;
  disableGuildSelect: boolean;
  redirectUri: string | undefined;
  state: string | undefined;
  /**
   * The user scopes asked for beside `bot` (the public "advanced bot authorization"): then the
   * request must be `response_type=code` with a registered `redirect_uri`, and Authorize returns a
   * code whose token response carries the guild. Empty for a plain bot authorization.
   */
  userScopes: string[];
  /** PKCE S256 challenge for the code (public clients must send one). */
  codeChallenge: string | undefined;
}

/**
 * The OAuth2 `bot` scope (protocols.md 2.7): a user who can manage a guild adds an application's
 * bot to it with the `permissions` asked for, which become the bot's managed role. The user must
 * hold MANAGE_GUILD there and every permission they grant (administrators and owners hold all).
 */
export class BotAuthorization {
  constructor(private readonly store: Store, private readonly services: GuildServices) {}

  /** Checks the query; a string is the error to show on a page (nothing is trusted yet). */
  async check(q: URLSearchParams): Promise<BotAuthorizeRequest | string> {
    for (const k of ['client_id', 'scope', 'permissions', 'guild_id', 'redirect_uri', 'state', 'response_type', 'code_challenge', 'code_challenge_method']) if (q.getAll(k).length > 1) return `Repeated parameter ${k}.`;
    const clientId = q.get('client_id') ?? '';
    const application = /^\d{1,20}$/.test(clientId) ? await this.store.applications.get(clientId) : undefined;
    if (!application) return 'Unknown application.';
    const scopes = [...new Set((q.get('scope') ?? '').split(/[ +]/).filter(Boolean))];
    if (!scopes.includes('bot')) return 'The bot scope is missing.';
    // Scopes beside bot: the same rules as the consent page (known, approved where privileged),
    // and a code flow to carry them (the public rule: a code with guild_id and permissions).
    const userScopes = scopes.filter((s) => !BOT_SCOPES.has(s));
    const bad = forbiddenScope(userScopes, application.approved_scopes ?? '');
    if (bad) return `The scope ${bad} is not valid for this application.`;
    if (userScopes.length > 0) {
      if (q.get('response_type') !== 'code') return `The scope ${userScopes[0]} with bot needs response_type=code.`;
      if (!q.get('redirect_uri')) return `The scope ${userScopes[0]} with bot needs a redirect_uri.`;
    }
    const challenge = q.get('code_challenge') ?? undefined;
    const method = q.get('code_challenge_method') ?? undefined;
    if (challenge !== undefined || method !== undefined) {
      if (userScopes.length === 0) return 'code_challenge is only for a code (scopes besides bot).';
      if (method !== 'S256' || !challenge || !isValidChallenge(challenge)) return 'code_challenge must be S256: 43 characters of base64url.';
    }
    const state = q.get('state') ?? undefined;
    if (state !== undefined && state.length > 1024) return 'state is too long.';
    const permissions = parsePermissions(q.get('permissions') ?? '0');
    if (permissions === undefined) return 'Invalid permissions.';
    const guildId = q.get('guild_id') ?? undefined;
    if (guildId !== undefined && !/^\d{1,20}$/.test(guildId)) return 'Invalid guild_id.';
    const redirectUri = q.get('redirect_uri') ?? undefined;
    if (redirectUri !== undefined && !(await this.store.oauth.redirectUris(application.id)).includes(redirectUri)) return 'The redirect URI is not registered for this application.';
    return { application, scopes, permissions, guildId, disableGuildSelect: q.get('disable_guild_select') === 'true', redirectUri, state, userScopes, codeChallenge: challenge };
  }

  /** The guilds the user may add a bot to (MANAGE_GUILD), for the page's guild select. */
  async manageableGuilds(userId: string): Promise<{ id: string; name: string }[]> {
    const out = [];
    for (const g of await this.store.guilds.ofUser(userId, { limit: 200 })) {
      const v = await viewGuild(this.store, g.id, userId);
      if (has(v.permissions, Permission.ManageGuild)) out.push({ id: g.id, name: g.name });
    }
    return out;
  }

  permissionNames(perms: bigint): PermissionName[] {
    return missing(0n, perms);
  }

  /** Adds the bot; a string is the refusal to show. */
  async install(req: BotAuthorizeRequest, userId: string, guildId: string): Promise<{ roleId: string } | string> {
    if (!/^\d{1,20}$/.test(guildId)) return 'Pick a server.';
    if (req.guildId && req.disableGuildSelect && guildId !== req.guildId) return 'This authorization is for another server.';
    const v = await viewGuild(this.store, guildId, userId).catch(() => null);
    if (!v || !has(v.permissions, Permission.ManageGuild)) return 'You need Manage Server in that server to add a bot.';
    if (!has(v.permissions, req.permissions)) return 'You cannot grant permissions you do not have.';
    if (await this.store.guildMembers.ban(guildId, req.application.bot_user_id)) return 'The bot is banned from that server.';
    return this.services.installBot(guildId, req.application.id, req.permissions, { installerId: userId, scopes: req.scopes });
  }
}
