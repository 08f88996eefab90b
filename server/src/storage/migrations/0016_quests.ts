import type { Kysely, Migration } from 'kysely';

/**
 * Quests (issue 15, the source of QUEST_USER_ENROLLMENT): an application defines quests in the
 * developer portal (or with its Bot token); a user enrolls once per quest, from the web app or
 * the game. The spec names the webhook event and nothing more, so the model is our minimum: a
 * name, a description and a window in which enrolling is open.
 */
export const m0016_quests: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('quests')
      .addColumn('id', 'varchar(20)', (c) => c.primaryKey())
      .addColumn('application_id', 'varchar(20)', (c) => c.notNull().references('applications.id').onDelete('cascade'))
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('description', 'varchar(1000)', (c) => c.notNull().defaultTo(''))
      /** Enrolling is open from starts_at until ends_at (ms; null: no end). */
      .addColumn('starts_at', 'bigint', (c) => c.notNull())
      .addColumn('ends_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('quests_application').on('quests').columns(['application_id', 'id']).execute();

    await db.schema
      .createTable('quest_enrollments')
      .addColumn('quest_id', 'varchar(20)', (c) => c.notNull().references('quests.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('enrolled_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('quest_enrollments_pk', ['quest_id', 'user_id'])
      .execute();
    await db.schema.createIndex('quest_enrollments_user').on('quest_enrollments').columns(['user_id']).execute();
  },
};
