import type { Kysely } from 'kysely';
import type { Database, SigningKeysTable } from './schema.ts';

/** ID-token signing keys, kept in the database so tokens stay verifiable across restarts and nodes. */
export class SigningKeyRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async all(): Promise<SigningKeysTable[]> {
    return this.db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').execute();
  }

  /** Inserts a key unless one with its kid exists (two nodes racing to create the first key). */
  async add(row: SigningKeysTable): Promise<void> {
    try {
      await this.db.insertInto('signing_keys').values(row).execute();
    } catch (err) {
      if (!(await this.db.selectFrom('signing_keys').select('kid').where('kid', '=', row.kid).executeTakeFirst())) throw err;
    }
  }
}
