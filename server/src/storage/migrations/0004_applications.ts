import type { ColumnDataType, ColumnDefinitionBuilderCallback, Kysely, Migration } from 'kysely';

/**
 * The developer portal's side of an application: its owner (the account that created it in
 * the portal), description, icon, the full flags bitfield, integration types, the social SDK
 * switch and the approval state that picks its rate budgets, and the first-party client marker.
 */
export const m0004_applications: Migration = {
  async up(db: Kysely<any>) {
    const add = (name: string, type: ColumnDataType, build?: ColumnDefinitionBuilderCallback) =>
      db.schema.alterTable('applications').addColumn(name, type, build).execute();
    await add('owner_id', 'varchar(20)');
    await add('description', 'varchar(400)', (c) => c.notNull().defaultTo(''));
    /** Hash of the current icon (the public `icon` field); the image itself sits in icon_data. */
    await add('icon', 'varchar(64)');
    await add('icon_data', 'text');
    /** Every flag bit, as a decimal string: `flags` on the wire is its low 32 bits. */
    await add('flags_new', 'varchar(24)', (c) => c.notNull().defaultTo('0'));
    /** JSON object keyed by integration type ("0", "1"), as the public field. */
    await add('integration_types_config', 'text');
    await add('tags', 'varchar(200)');
    await add('social_sdk', 'integer', (c) => c.notNull().defaultTo(0));
    // Applications that existed before approval did keep the budgets they were built against;
    // new rows name their state explicitly (ApplicationRepo.create).
    await add('approval', 'varchar(16)', (c) => c.notNull().defaultTo('approved'));
    await add('approval_requested_at', 'bigint');
    await add('approved_at', 'bigint');
    /** 1 for the platform's own client (the web app), whose session tokens travel without a scheme. */
    await add('first_party', 'integer', (c) => c.notNull().defaultTo(0));
    await db.schema.createIndex('applications_owner').on('applications').column('owner_id').execute();
  },
};
