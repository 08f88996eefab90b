import { join, resolve } from 'node:path';
import { type DatabaseConfig, openDatabase } from '../storage/database.ts';
import { Store } from '../storage/Store.ts';

/** The options every data command takes: where the platform's data is. */
export const DATA_OPTIONS = {
  data: { type: 'string' },
  'database-url': { type: 'string' },
} as const;

export const DATA_USAGE = '[--data DIR | --database-url postgres://...]';

export function dataDir(value: unknown): string {
  return resolve(typeof value === 'string' ? value : (process.env.SOCIAL_LAYER_DATA ?? './data'));
}

/** The database the server uses: PostgreSQL when a URL is given (or in the environment), else the SQLite file in the data folder. */
export function databaseConfig(values: Record<string, unknown>): DatabaseConfig {
  const url = typeof values['database-url'] === 'string' ? values['database-url'] : process.env.SOCIAL_LAYER_DATABASE_URL;
  // Inline checkpoints: a command's run is too short to be worth a thread.
  return url ? { dialect: 'postgres', connectionString: url } : { dialect: 'sqlite', file: join(dataDir(values.data), 'social-layer.sqlite'), checkpoints: 'inline' };
}

/**
 * Runs `fn` against the platform's store and closes it. Operator commands write through the same
 * repositories as the server, so a running server sees the change on its next read.
 */
export async function withStore<T>(values: Record<string, unknown>, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = new Store(await openDatabase(databaseConfig(values)));
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
