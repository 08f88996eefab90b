import type { Kysely, Migration } from 'kysely';

/**
 * Entitlements of a subscription are APPLICATION_SUBSCRIPTION (8) in the public API; they were
 * written as PURCHASE (1). Test-mode ones (4) stay as they are. Running it again changes nothing.
 */
export const m0024_subscription_entitlement_type: Migration = {
  async up(db: Kysely<any>) {
    await db.updateTable('entitlements').set({ type: 8 }).where('subscription_id', 'is not', null).where('type', '=', 1).execute();
  },
  async down() {
    // Not undone: type 1 for a subscription's entitlement was the defect.
  },
};
