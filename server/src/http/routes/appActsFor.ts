import type { Store } from '../../storage/Store.ts';
import { isFirstParty } from '../auth.ts';

/**
 * Whether a user's Bearer token issued to `tokenApplicationId` acts for `applicationId`: a game's
 * token for its own application only, the first-party web app's for any (quests, storefront).
 */
export async function tokenActsForApp(store: Store, tokenApplicationId: string, applicationId: string): Promise<boolean> {
  return tokenApplicationId === applicationId || isFirstParty(store, tokenApplicationId);
}
