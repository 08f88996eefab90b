import type { EventBus } from '../events/EventBus.ts';
import type { Store } from '../storage/Store.ts';
import { EmojiService } from './EmojiService.ts';
import { GuildEvents } from './GuildEvents.ts';
import { GuildInviteService } from './GuildInviteService.ts';
import { GuildService } from './GuildService.ts';
import { roleWire } from './guildWire.ts';
import { MemberService } from './MemberService.ts';

/** The guild domain's services over one store and bus. */
export class GuildServices {
  readonly events: GuildEvents;
  readonly guilds: GuildService;
  readonly members: MemberService;
  readonly invites: GuildInviteService;
  readonly emojis: EmojiService;

  constructor(readonly store: Store, readonly bus: EventBus) {
    this.events = new GuildEvents(store, bus);
    this.guilds = new GuildService(store, this.events);
    this.members = new MemberService(store, this.events);
    this.invites = new GuildInviteService(store, this.events, this.members);
    this.emojis = new EmojiService(store, this.events);
  }

  /**
   * Installs an application's bot in a guild (admin CLI, OAuth2 `bot` scope): the bot joins with
   * a managed role named after the application carrying `permissions`. Installing again updates
   * the role's permissions.
   */
  async installBot(guildId: string, applicationId: string, permissions: bigint): Promise<{ roleId: string }> {
    const app = await this.store.applications.get(applicationId);
    if (!app) throw new Error('unknown application');
    const guild = await this.store.guilds.get(guildId);
    if (!guild) throw new Error('unknown guild');
    const bot = await this.store.users.get(app.bot_user_id);
    let role = await this.store.guilds.botRole(guildId, app.bot_user_id);
    const existed = Boolean(role);
    if (role) {
      await this.store.guilds.updateRole(this.store.database.db, role.id, { permissions: permissions.toString() });
    } else {
      const roles = await this.store.guilds.roles(guildId);
      role = await this.store.guilds.createRole(this.store.database.db, guildId, {
        name: bot?.global_name ?? app.name,
        permissions: permissions.toString(),
        managed: 1,
        bot_user_id: app.bot_user_id,
        position: roles.length,
      });
    }
    const wire = roleWire((await this.store.guilds.role(role.id))!);
    await this.events.publish(guildId, existed ? 'GUILD_ROLE_UPDATE' : 'GUILD_ROLE_CREATE', { guild_id: guildId, role: wire }, { kind: 'guild' });
    await this.members.join(guildId, app.bot_user_id, [role.id]);
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
