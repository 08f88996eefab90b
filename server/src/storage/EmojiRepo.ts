import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';
import type { EmojisTable } from './guildSchema.ts';
import './guildSchema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Emojis of guilds and of applications (one table; exactly one of guild_id and application_id is set). */
export class EmojiRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  get(id: string, db: Db = this.db): Promise<EmojisTable | undefined> {
    return db.selectFrom('emojis').selectAll().where('id', '=', id).executeTakeFirst();
  }

  ofGuild(guildId: string, db: Db = this.db): Promise<EmojisTable[]> {
    return db.selectFrom('emojis').selectAll().where('guild_id', '=', guildId).orderBy('created_at').orderBy('id').execute();
  }

  ofApplication(applicationId: string, db: Db = this.db): Promise<EmojisTable[]> {
    return db.selectFrom('emojis').selectAll().where('application_id', '=', applicationId).orderBy('created_at').orderBy('id').execute();
  }

  async count(owner: { guildId: string } | { applicationId: string }, db: Db = this.db): Promise<number> {
    const q = db.selectFrom('emojis').select((eb) => eb.fn.countAll<string | number>().as('n'));
    const r = await ('guildId' in owner ? q.where('guild_id', '=', owner.guildId) : q.where('application_id', '=', owner.applicationId)).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async create(db: Db, row: Omit<EmojisTable, 'id' | 'created_at'>): Promise<EmojisTable> {
    const full: EmojisTable = { ...row, id: this.ids.next(), created_at: Date.now() };
    await db.insertInto('emojis').values(full).execute();
    return full;
  }

  async update(db: Db, id: string, set: Partial<Pick<EmojisTable, 'name' | 'roles'>>): Promise<void> {
    if (Object.keys(set).length > 0) await db.updateTable('emojis').set(set).where('id', '=', id).execute();
  }

  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom('emojis').where('id', '=', id).execute();
  }
}
