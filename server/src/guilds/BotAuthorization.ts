import type { Store } from '../storage/Store.ts';
import type { ApplicationsTable } from '../storage/schema.ts';
import { viewGuild } from './GuildAccess.ts';
import type { GuildServices } from './GuildServices.ts';
import { Permission, has, missing, parsePermissions, type PermissionName } from './permissions.ts';

/** Scopes a bot authorization may carry besides `bot` (user scopes need the code flow: not combined yet). */
const BOT_SCOPES = new Set(['bot', 'applications.commands']);

export interface BotAuthorizeRequest {
  application: ApplicationsTable;
  scopes: string[];
  permissions: bigint;
  guildId: string | undefined;
  disableGuildSelect: boolean;
  redirectUri: string | undefined;
  state: string | undefined;
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
    for (const k of ['client_id', 'scope', 'permissions', 'guild_id', 'redirect_uri', 'state']) if (q.getAll(k).length > 1) return `Repeated parameter ${k}.`;
    const clientId = q.get('client_id') ?? '';
    const application = /^\d{1,20}$/.test(clientId) ? await this.store.applications.get(clientId) : undefined;
    if (!application) return 'Unknown application.';
    const scopes = [...new Set((q.get('scope') ?? '').split(/[ +]/).filter(Boolean))];
    if (!scopes.includes('bot')) return 'The bot scope is missing.';
    const other = scopes.find((s) => !BOT_SCOPES.has(s));
    if (other) return `The scope ${other} cannot be combined with bot here yet.`;
    const permissions = parsePermissions(q.get('permissions') ?? '0');
    if (permissions === undefined) return 'Invalid permissions.';
    const guildId = q.get('guild_id') ?? undefined;
    if (guildId !== undefined && !/^\d{1,20}$/.test(guildId)) return 'Invalid guild_id.';
    const redirectUri = q.get('redirect_uri') ?? undefined;
    if (redirectUri !== undefined && !(await this.store.oauth.redirectUris(application.id)).includes(redirectUri)) return 'The redirect URI is not registered for this application.';
    return { application, scopes, permissions, guildId, disableGuildSelect: q.get('disable_guild_select') === 'true', redirectUri, state: q.get('state') ?? undefined };
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
    return this.services.installBot(guildId, req.application.id, req.permissions);
  }
}
