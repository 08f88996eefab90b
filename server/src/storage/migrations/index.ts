import type { Migration, MigrationProvider } from 'kysely';
import { m0001_initial } from './0001_initial.ts';

/**
 * Schema migrations, one file each, written with kysely's schema builder so the same steps run
 * on SQLite and PostgreSQL. Append new ones here in order; never edit one that has shipped.
 */
const migrations: Record<string, Migration> = {
  '0001_initial': m0001_initial,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
