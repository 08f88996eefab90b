import type { Kysely, Migration } from 'kysely';

/**
 * The idle sweep's query (LobbyRepo.idleExpired, every 10 s on some node) reads lobbies whose
 * idle clock runs and started long enough ago: without an index on `idle_since`, a scan of every
 * lobby each round. `if not exists`: see 0021.
 */
export const m0022_idle_lobby_index: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('lobbies_idle_since').ifNotExists().on('lobbies').column('idle_since').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('lobbies_idle_since').ifExists().execute();
  },
};
