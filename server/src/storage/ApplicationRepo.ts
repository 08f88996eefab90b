import type { Kysely, Transaction } from 'kysely';
import { hashSecret, newSecret } from '../auth/secrets.ts';
import './applicationSchema.ts';
import { PreparedQuery } from './preparedQuery.ts';
import type { ApplicationsTable, Database } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';

/** An application by ID: every Identify, and every request of an unapproved application, reads it. */
const applicationById = new PreparedQuery(1, (db, id: string) => db.selectFrom('applications').selectAll().where('id', '=', id));
/** An application by its bot token's hash: every request a bot makes. */
const applicationByBotToken = new PreparedQuery(1, (db, tokenHash: string) => db.selectFrom('applications').selectAll().where('bot_token_hash', '=', tokenHash));

/**
 * A bot token in the public API's shape: the bot user's ID in base64 (no padding), a dot, then the
 * secret. Client libraries read the bot's ID from a token's first part before anything else
 * (discordeno's createBot does, and fails on a token without it); only the hash is stored, and a
 * token is found by its hash, so the readable part adds nothing a caller could use.
 */
export function newBotToken(botUserId: string): string {
  return `${Buffer.from(botUserId, 'utf8').toString('base64').replace(/=+$/, '')}.${newSecret()}`;
}

export interface CreatedApplication {
  id: string;
  name: string;
  /** Shown once; only its hash is stored. */
  clientSecret: string;
  /** Shown once; only its hash is stored. */
  botToken: string;
  botUserId: string;
}

/** Where an application stands with the production rate budgets (applications/approval.ts). */
export type ApprovalState = 'pre_approval' | 'requested' | 'approved';

export interface CreateApplicationOptions {
  /** The portal account that owns it; operator-made applications have none. */
  ownerId?: string;
  /**
   * Portal-made applications start in pre-approval. Operator-made ones (the CLI, the in-process
   * API, the development application) are approved: the operator is the one who approves.
   */
  approval?: ApprovalState;
  firstParty?: boolean;
}

/** Columns a portal or REST edit may change; undefined leaves a column as it is. */
export interface ApplicationChanges {
  name?: string;
  description?: string;
  icon?: { hash: string; data: string } | null;
  flagsNew?: bigint;
  integrationTypesConfig?: unknown;
  tags?: string[] | null;
  publicClient?: boolean;
  socialSdk?: boolean;
  /** The portal's channel obfuscation toggle for bot sessions. */
  channelObfuscation?: boolean;
  redirectUris?: string[];
}

type Db = Kysely<Database> | Transaction<Database>;

export class ApplicationRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  async create(name: string, options: CreateApplicationOptions = {}): Promise<CreatedApplication> {
    const id = this.ids.next();
    const botUserId = this.ids.next();
    const clientSecret = newSecret();
    const botToken = newBotToken(botUserId);
    const now = Date.now();
    const approval = options.approval ?? 'approved';
    await this.db.transaction().execute(async (tx) => {
      // Every application has a bot user: the author of server-side actions and the Bot identity.
      // It goes in first so a PostgreSQL foreign key on the owner or bot never sees it missing.
      await tx.insertInto('users').values({
        id: botUserId,
        username: `app_${id}`,
        global_name: name,
        avatar: null,
        is_provisional: 0,
        is_bot: 1,
        created_at: now,
      }).execute();
      await tx.insertInto('applications').values({
        id,
        name,
        client_secret_hash: hashSecret(clientSecret),
        bot_token_hash: hashSecret(botToken),
        bot_user_id: botUserId,
        public_client: 1,
        flags: 0,
        created_at: now,
        owner_id: options.ownerId ?? null,
        approval,
        approved_at: approval === 'approved' ? now : null,
        first_party: options.firstParty ? 1 : 0,
      }).execute();
    });
    return { id, name, clientSecret, botToken, botUserId };
  }

  async get(id: string): Promise<ApplicationsTable | undefined> {
    return applicationById.first(this.db, this.db, id);
  }

  async findByBotToken(token: string): Promise<ApplicationsTable | undefined> {
    return applicationByBotToken.first(this.db, this.db, hashSecret(token));
  }

  /** Applications that games use: the first-party client is the platform's own and not counted. */
  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('applications')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('first_party', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async first(): Promise<ApplicationsTable | undefined> {
    return this.db.selectFrom('applications').selectAll().where('first_party', '=', 0).orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
  }

  async listByOwner(ownerId: string): Promise<ApplicationsTable[]> {
    return this.db.selectFrom('applications').selectAll().where('owner_id', '=', ownerId).orderBy('created_at').orderBy('id').execute();
  }

  /** Applies validated changes in one transaction, redirect URIs included: all or nothing. */
  async update(id: string, c: ApplicationChanges): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const set: Partial<ApplicationsTable> = {};
      if (c.name !== undefined) set.name = c.name;
      if (c.description !== undefined) set.description = c.description;
      if (c.icon !== undefined) {
        set.icon = c.icon?.hash ?? null;
        set.icon_data = c.icon?.data ?? null;
      }
      if (c.flagsNew !== undefined) set.flags_new = c.flagsNew.toString();
      if (c.integrationTypesConfig !== undefined) set.integration_types_config = c.integrationTypesConfig === null ? null : JSON.stringify(c.integrationTypesConfig);
      if (c.tags !== undefined) set.tags = c.tags === null ? null : JSON.stringify(c.tags);
      if (c.publicClient !== undefined) set.public_client = c.publicClient ? 1 : 0;
      if (c.socialSdk !== undefined) set.social_sdk = c.socialSdk ? 1 : 0;
      if (c.channelObfuscation !== undefined) set.channel_obfuscation = c.channelObfuscation ? 1 : 0;
      if (Object.keys(set).length > 0) await tx.updateTable('applications').set(set).where('id', '=', id).execute();
      // The bot user carries the application's name, as the public platform shows it.
      if (c.name !== undefined) {
        const app = await tx.selectFrom('applications').select('bot_user_id').where('id', '=', id).executeTakeFirstOrThrow();
        await tx.updateTable('users').set({ global_name: c.name }).where('id', '=', app.bot_user_id).execute();
      }
      if (c.redirectUris !== undefined) await replaceRedirectUris(tx, id, c.redirectUris);
    });
  }

  async setApproval(id: string, state: ApprovalState, now = Date.now()): Promise<void> {
    await this.db
      .updateTable('applications')
      .set(state === 'approved' ? { approval: state, approved_at: now } : state === 'requested' ? { approval: state, approval_requested_at: now } : { approval: state })
      .where('id', '=', id)
      .execute();
  }

  /** A new client secret; the old one stops working at once. Shown once. */
  async resetClientSecret(id: string): Promise<string> {
    const secret = newSecret();
    await this.db.updateTable('applications').set({ client_secret_hash: hashSecret(secret) }).where('id', '=', id).execute();
    return secret;
  }

  /** A new bot token; the old one stops working at once. Shown once. */
  async resetBotToken(id: string): Promise<string> {
    const app = await this.get(id);
    if (!app) throw new Error(`no application ${id}`);
    const token = newBotToken(app.bot_user_id);
    await this.db.updateTable('applications').set({ bot_token_hash: hashSecret(token) }).where('id', '=', id).execute();
    return token;
  }

  /** The platform's own client (what the web app signs in as), made on first use. */
  async firstParty(): Promise<ApplicationsTable> {
    const existing = await this.db.selectFrom('applications').selectAll().where('first_party', '=', 1).orderBy('id').limit(1).executeTakeFirst();
    if (existing) return existing;
    const created = await this.create('Social Layer', { firstParty: true, approval: 'approved' });
    return (await this.get(created.id))!;
  }
}

async function replaceRedirectUris(tx: Db, applicationId: string, uris: string[]): Promise<void> {
  await tx.deleteFrom('oauth_redirect_uris').where('application_id', '=', applicationId).execute();
  for (const uri of new Set(uris)) await tx.insertInto('oauth_redirect_uris').values({ application_id: applicationId, uri }).execute();
}
