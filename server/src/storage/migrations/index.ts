import type { Migration, MigrationProvider } from 'kysely';
import { m0001_initial } from './0001_initial.ts';
import { m0002_social } from './0002_social.ts';
import { m0003_accounts } from './0003_accounts.ts';
import { m0004_applications } from './0004_applications.ts';
import { m0005_guilds } from './0005_guilds.ts';
import { m0006_webhooks } from './0006_webhooks.ts';
import { m0007_application_profiles } from './0007_application_profiles.ts';
import { m0008_messages } from './0008_messages.ts';
import { m0009_commerce } from './0009_commerce.ts';
import { m0010_obfuscation_toggle } from './0010_obfuscation_toggle.ts';
import { m0011_primary_guild } from './0011_primary_guild.ts';
import { m0012_search_automod_audit } from './0012_search_automod_audit.ts';
import { m0013_group_dms } from './0013_group_dms.ts';
import { m0014_interactions } from './0014_interactions.ts';
import { m0015_subscription_groups } from './0015_subscription_groups.ts';
import { m0016_quests } from './0016_quests.ts';
import { m0017_linked_channels } from './0017_linked_channels.ts';
import { m0018_activities } from './0018_activities.ts';
import { m0019_message_polls } from './0019_message_polls.ts';
import { m0020_lookup_indexes } from './0020_lookup_indexes.ts';
import { m0021_direct_message_indexes } from './0021_direct_message_indexes.ts';
import { m0022_idle_lobby_index } from './0022_idle_lobby_index.ts';
import { m0023_webhook_pending_index } from './0023_webhook_pending_index.ts';
import { m0024_subscription_entitlement_type } from './0024_subscription_entitlement_type.ts';
import { m0025_guild_premium_tier } from './0025_guild_premium_tier.ts';

/**
 * Schema migrations, one file each, written with kysely's schema builder so the same steps run
 * on SQLite and PostgreSQL. Append new ones here in order; never edit one that has shipped.
 */
const migrations: Record<string, Migration> = {
  '0001_initial': m0001_initial,
  '0002_social': m0002_social,
  '0003_accounts': m0003_accounts,
  '0004_applications': m0004_applications,
  '0005_guilds': m0005_guilds,
  '0006_webhooks': m0006_webhooks,
  '0007_application_profiles': m0007_application_profiles,
  '0008_messages': m0008_messages,
  '0009_commerce': m0009_commerce,
  '0010_obfuscation_toggle': m0010_obfuscation_toggle,
  '0011_primary_guild': m0011_primary_guild,
  '0012_search_automod_audit': m0012_search_automod_audit,
  '0013_group_dms': m0013_group_dms,
  '0014_interactions': m0014_interactions,
  '0015_subscription_groups': m0015_subscription_groups,
  '0016_quests': m0016_quests,
  '0017_linked_channels': m0017_linked_channels,
  '0018_activities': m0018_activities,
  '0019_message_polls': m0019_message_polls,
  '0020_lookup_indexes': m0020_lookup_indexes,
  '0021_direct_message_indexes': m0021_direct_message_indexes,
  '0022_idle_lobby_index': m0022_idle_lobby_index,
  '0023_webhook_pending_index': m0023_webhook_pending_index,
  '0024_subscription_entitlement_type': m0024_subscription_entitlement_type,
  '0025_guild_premium_tier': m0025_guild_premium_tier,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
