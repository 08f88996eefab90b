import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Distinct SQL strings kept prepared; IN lists of every length make new strings, so the cache is bounded. */
const DEFAULT_MAX_STATEMENTS = 512;

/**
 * kysely's SQLite driver calls `prepare` for every query it runs, and better-sqlite3 compiles the
 * SQL again each time: about 8% of a lobby message's CPU in the `lobby-fanout` profile. This
 * keeps compiled statements by their SQL (least recently used out first) and hands kysely the
 * same one again. Sharing is safe because kysely runs one query at a time on the one SQLite
 * connection and `all`/`run` finish before they return; nothing here streams (`iterate` is not
 * used). SQLite re-compiles a cached statement by itself after a schema change (migrations).
 */
export function withStatementCache(db: BetterSqlite3.Database, maxStatements = DEFAULT_MAX_STATEMENTS): SqliteDatabase & { readonly cachedStatements: number } {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => db.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement) {
        // Map order is insertion order: move it to the back, the most recently used end.
        cache.delete(sql);
        cache.set(sql, statement);
        return statement;
      }
      statement = db.prepare(sql);
      cache.set(sql, statement);
      if (cache.size > maxStatements) cache.delete(cache.keys().next().value!);
      return statement;
    },
    get cachedStatements() {
      return cache.size;
    },
  };
}
