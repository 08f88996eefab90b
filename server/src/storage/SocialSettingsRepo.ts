import { type Kysely, sql } from 'kysely';
import { PreparedQuery } from './preparedQuery.ts';
import type { ApplicationSocialSettingsTable, Database } from './schema.ts';

// Every Identify runs these (READY's status, the played-with record): built once (PreparedQuery).
const statusOf = new PreparedQuery(1, (db, userId: string) => db.selectFrom('user_presence_settings').select('status').where('user_id', '=', userId));
const touchPlayer = new PreparedQuery(3, (db, applicationId: string, userId: string, now: number) =>
  db.updateTable('application_players').set({ last_seen_at: now }).where('application_id', '=', applicationId).where('user_id', '=', userId),
);
const insertPlayer = new PreparedQuery(3, (db, applicationId: string, userId: string, now: number) =>
  db.insertInto('application_players').values({ application_id: applicationId, user_id: userId, first_seen_at: now, last_seen_at: now }),
);

/**
 * How long a node trusts its read of an application family. Families change only when an operator
 * links or unlinks an application (configureApplication, which forgets this node's reads at once);
 * other nodes see the change within this.
 */
const FAMILY_TTL_MS = 5_000;
/** markPlayed writes at most once per this, per application and player, on each node. */
const PLAYED_WRITE_INTERVAL_MS = 60_000;

/**
 * Small social facts that outlive sessions: an application's invite cover image and launch URL,
 * who has played which game, the status each user chose, and which applications are siblings.
 */
export class SocialSettingsRepo {
  private readonly families = new Map<string, { ids: string[]; until: number }>();
  /** markPlayed's writes of the last interval by `application:user`, oldest first. */
  private readonly played = new Map<string, { at: number; write: Promise<void> }>();

  constructor(private readonly db: Kysely<Database>) {}

  applicationSettings(applicationId: string): Promise<ApplicationSocialSettingsTable | undefined> {
    return this.db.selectFrom('application_social_settings').selectAll().where('application_id', '=', applicationId).executeTakeFirst();
  }

  async updateApplicationSettings(applicationId: string, change: { coverImage?: string | null; launchUrl?: string | null }): Promise<ApplicationSocialSettingsTable> {
    const current = (await this.applicationSettings(applicationId)) ?? { application_id: applicationId, cover_image: null, launch_url: null, updated_at: 0 };
    const row: ApplicationSocialSettingsTable = {
      application_id: applicationId,
      cover_image: change.coverImage !== undefined ? change.coverImage : current.cover_image,
      launch_url: change.launchUrl !== undefined ? change.launchUrl : current.launch_url,
      updated_at: Date.now(),
    };
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('application_social_settings').where('application_id', '=', applicationId).execute();
      await tx.insertInto('application_social_settings').values(row).execute();
    });
    return row;
  }

  /**
   * Notes that the user has a Gateway session in the application now. What is read back is that
   * the row exists (the user's applications); `last_seen_at` is for operators. Every Identify asked
   * twice (on connect, and for READY so what follows it finds the row), each a write, so a node
   * writes at most once a minute per application and player.
   */
  markPlayed(applicationId: string, userId: string, now = Date.now()): Promise<void> {
    // Entries older than the interval leave from the front (the map holds them in the order written).
    for (const [key, entry] of this.played) {
      if (now - entry.at < PLAYED_WRITE_INTERVAL_MS) break;
      this.played.delete(key);
    }
    const key = `${applicationId}:${userId}`;
    // The write in flight or just made: waiting on it means the row exists when this resolves.
    const recent = this.played.get(key);
    if (recent) return recent.write;
    const write = this.writePlayed(applicationId, userId, now);
    this.played.set(key, { at: now, write });
    // A failed write is not remembered: the next call tries again.
    write.catch(() => this.played.get(key)?.write === write && this.played.delete(key));
    return write;
  }

  private async writePlayed(applicationId: string, userId: string, now: number): Promise<void> {
    if ((await touchPlayer.run(this.db, this.db, applicationId, userId, now)) > 0) return;
    try {
      await insertPlayer.run(this.db, this.db, applicationId, userId, now);
    } catch {
      // A concurrent first session inserted the row: it exists, which is all this records.
    }
  }

  /** Applications (of the given ones) that the user has played; for "played before" sorting. */
  async playedBy(userIds: readonly string[], applicationIds: readonly string[]): Promise<Set<string>> {
    if (userIds.length === 0 || applicationIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('application_players')
      .select('user_id')
      .where('user_id', 'in', [...new Set(userIds)])
      .where('application_id', 'in', [...applicationIds])
      .execute();
    return new Set(rows.map((r) => r.user_id));
  }

  /** Every application the user has ever connected to: where their sessions may be. */
  async applicationsOf(userId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('application_players').select('application_id').where('user_id', '=', userId).execute();
    return rows.map((r) => r.application_id);
  }

  async chosenStatus(userId: string): Promise<string | undefined> {
    return (await statusOf.first(this.db, this.db, userId))?.status;
  }

  async setChosenStatus(userId: string, status: string): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('user_presence_settings').where('user_id', '=', userId).execute();
      await tx.insertInto('user_presence_settings').values({ user_id: userId, status, updated_at: Date.now() }).execute();
    });
  }

  /**
   * The application and its siblings: the applications sharing its parent (publisher-level
   * linking, `applications.parent_id`, which the accounts slice adds in migration 0003). Before
   * that column exists every application is a family of one.
   */
  async family(applicationId: string): Promise<string[]> {
    // Read three times per Identify (presence, friends' presences, invites) and on every DM: kept
    // for FAMILY_TTL_MS.
    const known = this.families.get(applicationId);
    if (known && known.until > Date.now()) return [...known.ids];
    try {
      const self = await sql<{ parent_id: string | null }>`select parent_id from applications where id = ${applicationId}`.execute(this.db);
      const root = self.rows[0]?.parent_id ?? applicationId;
      const rows = await sql<{ id: string }>`select id from applications where id = ${root} or parent_id = ${root}`.execute(this.db);
      const found = rows.rows.map((r) => r.id);
      const ids = found.includes(applicationId) ? found : [applicationId, ...found];
      this.families.set(applicationId, { ids, until: Date.now() + FAMILY_TTL_MS });
      return [...ids];
    } catch {
      return [applicationId];
    }
  }

  /** After a family changed (an application linked or unlinked): read them again. */
  forgetFamilies(): void {
    this.families.clear();
  }

  /** The parent of an application, if it has one (ActivityInvite.parentApplicationId). */
  async parentOf(applicationId: string): Promise<string | null> {
    try {
      const r = await sql<{ parent_id: string | null }>`select parent_id from applications where id = ${applicationId}`.execute(this.db);
      return r.rows[0]?.parent_id ?? null;
    } catch {
      return null;
    }
  }
}
