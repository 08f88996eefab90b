// The SQLite statement cache under kysely: the same compiled statement comes back for the same SQL,
// the cache stays bounded (least recently used out first), a schema change after caching is picked
// up, and the storage suites run through it (openDatabase uses it for every SQLite database).
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { withStatementCache } from '../src/storage/statementCache.ts';

describe('withStatementCache', () => {
  it('hands back the same statement for the same SQL and keeps at most the bound, dropping the least recently used', () => {
    const cached = withStatementCache(new BetterSqlite3(':memory:'), 2);
    const a = cached.prepare('select 1');
    expect(cached.prepare('select 1')).toBe(a);
    const b = cached.prepare('select 2');
    // Using 'select 1' again makes 'select 2' the least recently used: the third SQL pushes it out.
    expect(cached.prepare('select 1')).toBe(a);
    cached.prepare('select 3');
    expect(cached.cachedStatements).toBe(2);
    expect(cached.prepare('select 1')).toBe(a);
    expect(cached.prepare('select 2')).not.toBe(b);
    cached.close();
  });

  it('runs kysely queries, transactions and a migration-style schema change through cached statements', async () => {
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(new BetterSqlite3(':memory:')) }) });
    await db.schema.createTable('t').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'text').execute();
    for (let i = 1; i <= 3; i++) await db.insertInto('t').values({ id: i, name: `n${i}` }).execute();
    const read = () => db.selectFrom('t').selectAll().orderBy('id').execute();
    expect(await read()).toEqual([1, 2, 3].map((id) => ({ id, name: `n${id}` })));
    // A failed transaction leaves nothing behind and the cached statements still work after it.
    await expect(
      db.transaction().execute(async (tx) => {
        await tx.insertInto('t').values({ id: 4, name: 'n4' }).execute();
        await tx.insertInto('t').values({ id: 1, name: 'dup' }).execute();
      }),
    ).rejects.toThrow(/UNIQUE/);
    expect(await read()).toHaveLength(3);
    // The cached `select *` sees a column added after it was compiled.
    await sql`alter table t add column extra text default 'x'`.execute(db);
    expect((await read())[0]).toEqual({ id: 1, name: 'n1', extra: 'x' });
    await db.destroy();
  });
});
