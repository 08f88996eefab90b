import type { Store } from '../../storage/Store.ts';

/** Whether the application is the platform's own (first-party) client, such as the web app. */
export async function isFirstPartyApp(store: Store, applicationId: string): Promise<boolean> {
  return (await store.applications.get(applicationId))?.first_party === 1;
}

/**
 * Whether a user's Bearer token issued to `tokenApplicationId` acts for `applicationId`: a game's
 * token for its own application only, the first-party web app's for any (quests, storefront).
 */
export async function tokenActsForApp(store: Store, tokenApplicationId: string, applicationId: string): Promise<boolean> {
  return tokenApplicationId === applicationId || isFirstPartyApp(store, tokenApplicationId);
}
