import type { EventBus } from '../events/EventBus.ts';
import type { Store } from '../storage/Store.ts';
import { EmojiService } from './EmojiService.ts';
import { GuildEvents } from './GuildEvents.ts';
import { GuildInviteService } from './GuildInviteService.ts';
import { GuildService } from './GuildService.ts';
import { recordBotInstalled } from './botWebhookEvents.ts';
import { GuildErrors } from './guildErrors.ts';
import { memberWire, roleWire } from './guildWire.ts';
import { MemberService } from './MemberService.ts';
import { PrimaryGuilds } from './primaryGuild.ts';

/** The guild domain's services over one store and bus. */
export class GuildServices {
  readonly events: GuildEvents;
  readonly guilds: GuildService;
  readonly members: MemberService;
  readonly invites: GuildInviteService;
  readonly emojis: EmojiService;
  /** Users' `primary_guild` (the guild tag they show). */
  readonly primaryGuilds: PrimaryGuilds;

  constructor(readonly store: Store, readonly bus: EventBus) {
    this.events = new GuildEvents(store, bus);
    this.primaryGuilds = new PrimaryGuilds(store, this.events);
    this.guilds = new GuildService(store, this.events, this.primaryGuilds);
    this.members = new MemberService(store, this.events, this.primaryGuilds);
    this.invites = new GuildInviteService(store, this.events, this.members);
    this.emojis = new EmojiService(store, this.events);
  }

  /**
   * Installs an application's bot in a guild (admin CLI, OAuth2 `bot` scope): the bot joins with
   * a managed role named after the application carrying `permissions`. Installing again updates
   * the role's permissions. The role, the membership and, for a new install, the
   * APPLICATION_AUTHORIZED webhook event (issue 15) are one transaction; the Gateway hears of it
   * after the commit. `installerId` is who added it (the guild's owner when the admin CLI did);
   * a banned bot is refused with 40007 and nothing changes.
   */
  async installBot(guildId: string, applicationId: string, permissions: bigint, by: { installerId?: string; scopes?: string[] } = {}): Promise<{ roleId: string }> {
    const app = await this.store.applications.get(applicationId);
    if (!app) throw new Error('unknown application');
    const guild = await this.store.guilds.get(guildId);
    if (!guild) throw new Error('unknown guild');
    const bot = await this.store.users.get(app.bot_user_id);
    if (await this.store.guildMembers.ban(guildId, app.bot_user_id)) throw GuildErrors.bannedFromGuild();
    const { role, existed, joined, roleAdded } = await this.store.guilds.transaction(async (tx) => {
      let role = await this.store.guilds.botRole(guildId, app.bot_user_id, tx);
      const existed = Boolean(role);
      if (role) {
        await this.store.guilds.updateRole(tx, role.id, { permissions: permissions.toString() });
      } else {
        const roles = await this.store.guilds.roles(guildId, tx);
        role = await this.store.guilds.createRole(tx, guildId, {
          name: bot?.global_name ?? app.name,
          permissions: permissions.toString(),
          managed: 1,
          bot_user_id: app.bot_user_id,
          position: roles.length,
        });
      }
      const member = await this.store.guildMembers.get(guildId, app.bot_user_id, tx);
      let roleAdded = false;
      if (!member) {
        await this.store.guildMembers.add(tx, guildId, app.bot_user_id, [role.id]);
        await recordBotInstalled(this.store, tx, applicationId, guildId, by.installerId ?? guild.owner_id, by.scopes ?? ['bot']);
      } else if (!member.roles.includes(role.id)) {
        await this.store.guildMembers.addRole(tx, guildId, app.bot_user_id, role.id);
        roleAdded = true;
      }
      return { role, existed, joined: !member, roleAdded };
    });
    const wire = roleWire((await this.store.guilds.role(role.id))!);
    await this.events.publish(guildId, existed ? 'GUILD_ROLE_UPDATE' : 'GUILD_ROLE_CREATE', { guild_id: guildId, role: wire }, { kind: 'guild' });
    if (joined || roleAdded) {
      const m = (await this.store.guildMembers.get(guildId, app.bot_user_id))!;
      await this.events.publish(guildId, joined ? 'GUILD_MEMBER_ADD' : 'GUILD_MEMBER_UPDATE', { guild_id: guildId, ...memberWire(m) }, { kind: 'guild' }, { subjectUserId: app.bot_user_id });
      if (joined) this.events.guildAvailable(app.bot_user_id, guildId);
    }
    return { roleId: role.id };
  }
}

const byStore = new WeakMap<Store, GuildServices>();

/** One set of services per store, shared by the routes and the Gateway. */
export function guildServicesFor(store: Store, bus: EventBus): GuildServices {
  let s = byStore.get(store);
  if (!s) byStore.set(store, (s = new GuildServices(store, bus)));
  return s;
}
