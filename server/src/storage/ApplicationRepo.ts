import type { Kysely } from 'kysely';
import { hashSecret, newSecret } from '../auth/secrets.ts';
import type { ApplicationsTable, Database } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';

export interface CreatedApplication {
  id: string;
  name: string;
  /** Shown once; only its hash is stored. */
  clientSecret: string;
  /** Shown once; only its hash is stored. */
  botToken: string;
  botUserId: string;
}

export class ApplicationRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  async create(name: string): Promise<CreatedApplication> {
    const id = this.ids.next();
    const botUserId = this.ids.next();
    const clientSecret = newSecret();
    const botToken = newSecret();
    const now = Date.now();
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('applications').values({
        id,
        name,
        client_secret_hash: hashSecret(clientSecret),
        bot_token_hash: hashSecret(botToken),
        bot_user_id: botUserId,
        public_client: 1,
        flags: 0,
        created_at: now,
      }).execute();
      // Every application has a bot user: the author of server-side actions and the Bot identity.
      await tx.insertInto('users').values({
        id: botUserId,
        username: `app_${id}`,
        global_name: name,
        avatar: null,
        is_provisional: 0,
        is_bot: 1,
        created_at: now,
      }).execute();
    });
    return { id, name, clientSecret, botToken, botUserId };
  }

  async get(id: string): Promise<ApplicationsTable | undefined> {
    return this.db.selectFrom('applications').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async findByBotToken(token: string): Promise<ApplicationsTable | undefined> {
    return this.db.selectFrom('applications').selectAll().where('bot_token_hash', '=', hashSecret(token)).executeTakeFirst();
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('applications').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async first(): Promise<ApplicationsTable | undefined> {
    return this.db.selectFrom('applications').selectAll().orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
  }
}
