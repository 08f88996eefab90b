import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/storage/database.ts';
import { PG_URL } from './harness.ts';

const made: string[] = [];
afterAll(async () => {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  for (const s of made) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  await c.end();
});

/**
 * Suites share one PostgreSQL database with a schema each, and drop theirs when done. Opening a
 * database (which migrates) must not trip over another schema vanishing meanwhile: kysely's stock
 * introspection read every schema by name and failed with "schema ... does not exist" (one CI run).
 */
describe('opening a PostgreSQL database while other schemas come and go', () => {
  it('migrates every time', async () => {
    const churn = new pg.Client({ connectionString: PG_URL });
    await churn.connect();
    let stop = false;
    const churning = (async () => {
      while (!stop) {
        const s = `race_${randomBytes(5).toString('hex')}`;
        await churn.query(`CREATE SCHEMA "${s}"`);
        await churn.query(`CREATE TABLE "${s}".t1 (id serial primary key, a text, b int, c text)`);
        await churn.query(`CREATE TABLE "${s}".t2 (id serial primary key, a text)`);
        await churn.query(`DROP SCHEMA "${s}" CASCADE`);
      }
    })();
    try {
      for (let i = 0; i < 6; i++) {
        const schema = `t_${randomBytes(6).toString('hex')}`;
        made.push(schema);
        const db = await openDatabase({ dialect: 'postgres', connectionString: PG_URL, schema });
        const tables = await db.db.introspection.getTables();
        expect(tables.map((t) => t.name)).toContain('users');
        expect(tables.every((t) => t.schema === schema)).toBe(true);
        await db.close();
      }
    } finally {
      stop = true;
      await churning;
      await churn.end();
    }
  }, 120_000);
});
