import type { Store } from '../storage/Store.ts';
import type { UsersTable } from '../storage/schema.ts';
import { userToWire } from '../storage/UserRepo.ts';
import type { GuildEvents } from './GuildEvents.ts';
import { GuildErrors } from './guildErrors.ts';

export { primaryGuildWire } from './primaryGuildWire.ts';

/** Guild tags: 1 to 4 letters or digits (our choice of alphabet; the length is the spec's). */
export const GUILD_TAG_PATTERN = '^[A-Za-z0-9]{1,4}$';

/** Choosing a primary guild, and keeping the users' copies in step with the guild (see primaryGuildWire.ts). */
export class PrimaryGuilds {
  constructor(private readonly store: Store, private readonly events: GuildEvents) {}

  /**
   * The user picks `guildId` (null: none) and whether to show it. The guild must exist, have the
   * user as a member (else 10004) and have a tag (else 50035 on `identity_guild_id`).
   */
  async choose(userId: string, guildId: string | null, enabled: boolean) {
    let set: Record<string, unknown>;
    if (guildId === null) {
      set = { primary_guild_id: null, primary_guild_enabled: 0, primary_guild_tag: null, primary_guild_badge: null };
    } else {
      const guild = await this.store.guilds.get(guildId);
      if (!guild || !(await this.store.guildMembers.isMember(guildId, userId))) throw GuildErrors.unknownGuild();
      if (!guild.tag) throw GuildErrors.invalidForm(['identity_guild_id'], 'GUILD_TAG_NOT_SET', 'This server has no tag.');
      set = { primary_guild_id: guildId, primary_guild_enabled: enabled ? 1 : 0, primary_guild_tag: guild.tag, primary_guild_badge: guild.badge ?? null };
    }
    await this.store.database.db.updateTable('users').set(set as never).where('id', '=', userId).execute();
    return this.announce(userId);
  }

  /** A guild's tag or badge changed: its wearers' copies follow; a dropped tag clears their identity. */
  async guildTagChanged(guildId: string, tag: string | null, badge: string | null): Promise<void> {
    const db = this.store.database.db;
    const wearers = await db.selectFrom('users').select('id').where('primary_guild_id' as never, '=', guildId as never).where('primary_guild_enabled' as never, 'is not', null as never).execute();
    if (wearers.length === 0) return;
    const set = tag === null ? { primary_guild_enabled: null, primary_guild_tag: null, primary_guild_badge: null } : { primary_guild_tag: tag, primary_guild_badge: badge };
    await db.updateTable('users').set(set as never).where('primary_guild_id' as never, '=', guildId as never).where('primary_guild_enabled' as never, 'is not', null as never).execute();
    for (const w of wearers) await this.announce(w.id);
  }

  /** The user is no longer a member of `guildId` (left, kicked, banned, pruned). */
  async memberGone(guildId: string, userId: string): Promise<void> {
    const r = await this.store.database.db
      .updateTable('users')
      .set({ primary_guild_enabled: null, primary_guild_tag: null, primary_guild_badge: null } as never)
      .where('id', '=', userId)
      .where('primary_guild_id' as never, '=', guildId as never)
      .where('primary_guild_enabled' as never, 'is not', null as never)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) > 0) await this.announce(userId);
  }

  /** USER_UPDATE to the user's sessions (the public event for one's own user object). */
  private async announce(userId: string) {
    const user = await this.store.users.get(userId);
    if (!user) throw GuildErrors.unknownUser();
    const wire = userToWire(user);
    this.events.toUser(userId, 'USER_UPDATE', wire);
    return wire;
  }
}
