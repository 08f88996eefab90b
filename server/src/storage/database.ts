import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { migrationProvider } from './migrations/index.ts';
import type { Database } from './schema.ts';
import { SchemaScopedPostgresDialect } from './schemaScopedDialect.ts';
import { withStatementCache } from './statementCache.ts';
import { registerSqliteHandle } from './preparedQuery.ts';
import { WalCheckpointer } from './walCheckpointer.ts';

export type DatabaseConfig =
  | {
      dialect: 'sqlite';
      file: string;
      /**
       * Where WAL checkpoints run: 'background' (default for a file) on a worker thread of their
       * own, so no commit stalls the event loop copying the WAL back (walCheckpointer.ts);
       * 'inline' as SQLite does by default, in the commit that fills the WAL (the CLI's short
       * runs, where a thread is not worth starting).
       */
      checkpoints?: 'background' | 'inline';
      /** How often the background checkpoint runs. Default 500 ms. */
      checkpointIntervalMs?: number;
      /** Told when the checkpoint worker fails and the main connection checkpoints again. */
      onCheckpointFallback?: (reason: string) => void;
    }
  | { dialect: 'postgres'; connectionString: string; schema?: string };

export interface OpenDatabase {
  db: Kysely<Database>;
  dialect: DatabaseConfig['dialect'];
  /** SQLite files only: the thread that checkpoints the WAL (absent when checkpoints are inline). */
  checkpointer?: WalCheckpointer;
  close(): Promise<void>;
}

/** Opens the configured database and brings its schema up to date. */
export async function openDatabase(config: DatabaseConfig): Promise<OpenDatabase> {
  let db: Kysely<Database>;
  let migrationTableSchema: string | undefined;
  let checkpointer: WalCheckpointer | undefined;
  if (config.dialect === 'sqlite') {
    if (config.file !== ':memory:') mkdirSync(join(config.file, '..'), { recursive: true });
    const sqlite = new BetterSqlite3(config.file);
    // WAL lets readers proceed during writes; foreign keys are off by default in SQLite.
    sqlite.pragma('journal_mode = WAL');
    // Under WAL, NORMAL syncs at checkpoints, not every commit: the database cannot corrupt, and
    // only the last moments of writes can be lost on power failure. Chat is worth that speed.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
    registerSqliteHandle(db, sqlite);
    if (config.file !== ':memory:' && config.checkpoints !== 'inline') {
      checkpointer = new WalCheckpointer(sqlite, config.file, {
        ...(config.checkpointIntervalMs !== undefined ? { intervalMs: config.checkpointIntervalMs } : {}),
        ...(config.onCheckpointFallback ? { onFallback: config.onCheckpointFallback } : {}),
      });
    }
  } else {
    // Loaded only for PostgreSQL: a server on SQLite never holds the driver (about 14 MB).
    const { default: pg } = await import('pg');
    const schema = config.schema?.replace(/[^A-Za-z0-9_]/g, '');
    if (schema) {
      // Each test suite gets its own schema, so suites can share the one `test` database.
      const admin = new pg.Client({ connectionString: config.connectionString });
      await admin.connect();
      try {
        await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      } finally {
        await admin.end();
      }
    }
    migrationTableSchema = schema || undefined;
    const pool = new pg.Pool({
      connectionString: config.connectionString,
      max: 10,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    db = new Kysely<Database>({ dialect: new SchemaScopedPostgresDialect({ pool }, schema || null) });
  }
  // Name the schema of kysely's own tables, so they live beside ours (and see schemaScopedDialect.ts).
  const migrator = new Migrator({ db, provider: migrationProvider, ...(migrationTableSchema ? { migrationTableSchema } : {}) });
  const { error } = await migrator.migrateToLatest();
  // The checkpoint worker's connection closes first: the main connection, closing last, then
  // checkpoints what is left and removes the WAL.
  const close = async () => {
    await checkpointer?.close();
    await db.destroy();
  };
  if (error) {
    await close();
    throw error instanceof Error ? error : new Error(String(error));
  }
  return { db, dialect: config.dialect, close, ...(checkpointer ? { checkpointer } : {}) };
}
