import { LocalEventBus } from '../events/EventBus.ts';
import { GuildServices } from '../guilds/GuildServices.ts';
import { parsePermissions } from '../guilds/permissions.ts';
import type { Store } from '../storage/Store.ts';
import { type CliCommand, CliUsageError, printJson, requireString, snowflakeOption } from './command.ts';
import { DATA_OPTIONS, DATA_USAGE, withStore } from './operatorStore.ts';

/**
 * The operator's guild commands. They write through the guild services like the server does; with
 * no Gateway in this process, nobody hears a dispatch now: sessions see the guild at their next
 * Identify (READY and GUILD_CREATE read it from storage).
 */
function services(store: Store): GuildServices {
  return new GuildServices(store, new LocalEventBus());
}

/** A user by ID, or by username. */
async function findUser(store: Store, ref: string) {
  if (/^\d{1,20}$/.test(ref)) {
    const byId = await store.users.get(ref);
    if (byId) return byId;
  }
  return store.database.db.selectFrom('users').selectAll().where('username', '=', ref.toLowerCase()).executeTakeFirst();
}

export const guildsCreate: CliCommand = {
  words: ['guilds', 'create'],
  usage: `guilds create --owner USER --name NAME ${DATA_USAGE}
      Creates a guild owned by USER (ID or username) with a general text channel and a General
      voice channel, and prints it as JSON (the public guild object).`,
  options: { owner: { type: 'string' }, name: { type: 'string' }, ...DATA_OPTIONS },
  async run(values, io) {
    const ownerRef = requireString(values, 'owner', 'USER');
    const name = requireString(values, 'name', 'NAME');
    if (name.length < 2 || name.length > 100) throw new CliUsageError('--name: 2 to 100 characters');
    const guild = await withStore(values, async (store) => {
      const owner = await findUser(store, ownerRef);
      if (!owner) throw new CliUsageError(`no user ${JSON.stringify(ownerRef)}`);
      if (owner.is_bot === 1) throw new CliUsageError('a bot cannot own a guild');
      return services(store).guilds.createGuild(owner.id, { name });
    });
    printJson(io, guild);
    return 0;
  },
};

export const appsInstall: CliCommand = {
  words: ['apps', 'install'],
  usage: `apps install --app APP --guild GUILD [--permissions BITS] ${DATA_USAGE}
      Adds the application's bot to the guild with a managed role carrying BITS (a decimal
      permission bitfield; default 0); again: updates that role's permissions.`,
  options: { app: { type: 'string' }, guild: { type: 'string' }, permissions: { type: 'string' }, ...DATA_OPTIONS },
  async run(values, io) {
    const appId = snowflakeOption(values, 'app');
    const guildId = snowflakeOption(values, 'guild');
    const bits = typeof values.permissions === 'string' ? parsePermissions(values.permissions.trim()) : 0n;
    if (bits === undefined) throw new CliUsageError('--permissions must be a decimal permission bitfield of known bits');
    const result = await withStore(values, async (store) => {
      const app = await store.applications.get(appId);
      if (!app) throw new CliUsageError(`no application ${appId}`);
      if (!(await store.guilds.get(guildId))) throw new CliUsageError(`no guild ${guildId}`);
      const { roleId } = await services(store).installBot(guildId, appId, bits);
      return { guild_id: guildId, application_id: appId, bot_user_id: app.bot_user_id, role_id: roleId, permissions: bits.toString() };
    });
    printJson(io, result);
    return 0;
  },
};

export const appsApproveIntents: CliCommand = {
  words: ['apps', 'approve-intents'],
  usage: `apps approve-intents --app APP [--revoke] ${DATA_USAGE}
      Approves the application's privileged intents (needed from 10,000 users on; lapses after a
      year), or withdraws the approval. Prints {application_id, privileged_intents_approved_at}.`,
  options: { app: { type: 'string' }, revoke: { type: 'boolean' }, ...DATA_OPTIONS },
  async run(values, io) {
    const appId = snowflakeOption(values, 'app');
    const at = values.revoke === true ? null : Date.now();
    await withStore(values, async (store) => {
      if (!(await store.applications.get(appId))) throw new CliUsageError(`no application ${appId}`);
      await store.database.db.updateTable('applications').set({ privileged_intents_approved_at: at }).where('id', '=', appId).execute();
    });
    printJson(io, { application_id: appId, privileged_intents_approved_at: at === null ? null : new Date(at).toISOString() });
    return 0;
  },
};
