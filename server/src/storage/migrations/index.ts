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
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
