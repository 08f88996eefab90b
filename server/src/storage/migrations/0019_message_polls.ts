import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Polls kept with channel messages, and what the deprecated message `interaction` field and
 * `triggering_interaction_metadata` need (issue 13):
 * - `channel_messages.poll`: the poll of a message (JSON: question, answers, expiry,
 *   allow_multiselect, layout_type; results are computed when read), so history reads carry it;
 *   polls that interaction responses made before this migration (kept only in
 *   `interaction_messages.poll`) are copied over.
 * - `channel_messages.interaction`: the deprecated MessageInteraction (JSON) of a message an
 *   interaction made.
 * - `interactions.name`: the command name (with sub-command group and sub-command) or the
 *   component's / modal's `custom_id`; `interactions.triggering_id`: for a modal submit, the
 *   interaction that opened the modal; `interactions.target_id`: the user or message a
 *   context-menu command targets (`target_user` / `target_message_id` of the metadata).
 * - `channel_message_poll_votes`: one row per user and chosen answer (Get Answer Voters pages
 *   them by user ID; results count them).
 */
export const m0019_message_polls: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('channel_messages').addColumn('poll', 'text').execute();
    await db.schema.alterTable('channel_messages').addColumn('interaction', 'text').execute();
    await db.schema.alterTable('interactions').addColumn('name', 'varchar(120)').execute();
    await db.schema.alterTable('interactions').addColumn('triggering_id', 'varchar(20)').execute();
    await db.schema.alterTable('interactions').addColumn('target_id', 'varchar(20)').execute();
    await db.schema
      .createTable('channel_message_poll_votes')
      .addColumn('message_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('answer_id', 'integer', (c) => c.notNull())
      .addColumn('user_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('channel_message_poll_votes_pk', ['message_id', 'answer_id', 'user_id'])
      .execute();
    await sql`UPDATE channel_messages SET poll = (SELECT im.poll FROM interaction_messages im WHERE im.id = channel_messages.id AND im.ephemeral = 0)
      WHERE id IN (SELECT id FROM interaction_messages WHERE poll IS NOT NULL AND ephemeral = 0)`.execute(db);
  },
};
