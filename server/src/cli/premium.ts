import { attachmentSizeLimit } from '../messages/attachmentLimits.ts';
import { type CliCommand, CliUsageError, printJson, requireString, snowflakeOption } from './command.ts';
import { DATA_OPTIONS, DATA_USAGE, withStore } from './operatorStore.ts';

/** An integer option within [min, max]. */
function levelOption(values: Record<string, unknown>, name: string, max: number): number {
  const raw = requireString(values, name, 'N');
  if (!/^\d$/.test(raw) || Number(raw) > max) throw new CliUsageError(`--${name}: 0 to ${max}, not ${JSON.stringify(raw)}`);
  return Number(raw);
}

export const guildsSetPremiumTier: CliCommand = {
  words: ['guilds', 'set-premium-tier'],
  usage: `guilds set-premium-tier --guild ID --tier 0-3 ${DATA_USAGE}
      Sets a guild's boost level (premium_tier), which raises its attachment size limit (levels 2
      and 3: 50 and 100 MiB per file), and prints {id, premium_tier, attachment_size_limit}.`,
  options: { guild: { type: 'string' }, tier: { type: 'string' }, ...DATA_OPTIONS },
  async run(values, io) {
    const guildId = snowflakeOption(values, 'guild');
    const tier = levelOption(values, 'tier', 3);
    const changed = await withStore(values, async (store) => {
      const r = await store.database.db.updateTable('guilds').set({ premium_tier: tier }).where('id', '=', guildId).executeTakeFirst();
      return Number(r.numUpdatedRows);
    });
    if (changed === 0) throw new CliUsageError(`no guild ${guildId}`);
    printJson(io, { id: guildId, premium_tier: tier, attachment_size_limit: attachmentSizeLimit(tier, 0) });
    return 0;
  },
};

export const usersSetPremium: CliCommand = {
  words: ['users', 'set-premium'],
  usage: `users set-premium --user ID --type 0-3 ${DATA_USAGE}
      Sets a user's paid level (premium_type: 0 none, 1 classic, 2 full, 3 basic): what
      identify.premium shows and their attachment size limit (50, 100, 50 MiB per file), and
      prints {id, premium_type, attachment_size_limit}.`,
  options: { user: { type: 'string' }, type: { type: 'string' }, ...DATA_OPTIONS },
  async run(values, io) {
    const userId = snowflakeOption(values, 'user');
    const type = levelOption(values, 'type', 3);
    const changed = await withStore(values, async (store) => {
      const r = await store.database.db.updateTable('users').set({ premium_type: type }).where('id', '=', userId).where('is_bot', '=', 0).executeTakeFirst();
      return Number(r.numUpdatedRows);
    });
    if (changed === 0) throw new CliUsageError(`no user ${userId} (bots have no paid level)`);
    printJson(io, { id: userId, premium_type: type, attachment_size_limit: attachmentSizeLimit(0, type) });
    return 0;
  },
};
