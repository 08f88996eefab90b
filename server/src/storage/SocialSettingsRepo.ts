import { type Kysely, sql } from 'kysely';
import type { ApplicationSocialSettingsTable, Database } from './schema.ts';

/**
 * Small social facts that outlive sessions: an application's invite cover image and launch URL,
 * who has played which game, the status each user chose, and which applications are siblings.
 */
export class SocialSettingsRepo {
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

  /** Notes that the user has a Gateway session in the application now. */
  async markPlayed(applicationId: string, userId: string, now = Date.now()): Promise<void> {
    const updated = await this.db
      .updateTable('application_players')
      .set({ last_seen_at: now })
      .where('application_id', '=', applicationId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) > 0) return;
    try {
      await this.db.insertInto('application_players').values({ application_id: applicationId, user_id: userId, first_seen_at: now, last_seen_at: now }).execute();
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
    const row = await this.db.selectFrom('user_presence_settings').select('status').where('user_id', '=', userId).executeTakeFirst();
    return row?.status;
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
    try {
      const self = await sql<{ parent_id: string | null }>`select parent_id from applications where id = ${applicationId}`.execute(this.db);
      const root = self.rows[0]?.parent_id ?? applicationId;
      const rows = await sql<{ id: string }>`select id from applications where id = ${root} or parent_id = ${root}`.execute(this.db);
      const ids = rows.rows.map((r) => r.id);
      return ids.includes(applicationId) ? ids : [applicationId, ...ids];
    } catch {
      return [applicationId];
    }
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
