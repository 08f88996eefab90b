import type { APIConnection } from 'discord-api-types/v10';
import type { Store } from '../storage/Store.ts';

/**
 * GET /users/@me/connections: the user's linked external identities in the public connection
 * shape. Identities come from the games' account linking (application profiles); only provider
 * kinds that are public connection services are listed (Epic Online Services -> `epicgames`,
 * Steam -> `steam`); plain OIDC, Unity and bot-issued identities have no public kind.
 *
 * The spec says newly created connections of one game-platform kind are no longer returned (and,
 * from 2026-07-10, legacy ones neither) without naming the kind. Our reading is Xbox; the list is
 * configurable with SOCIAL_LAYER_HIDDEN_CONNECTION_TYPES (comma-separated kinds, empty for none).
 */
const PROVIDER_KINDS: Record<string, string> = { EPIC_ONLINE_SERVICES: 'epicgames', STEAM: 'steam', XBOX: 'xbox', PLAYSTATION: 'playstation' };

export function hiddenConnectionTypes(env = process.env.SOCIAL_LAYER_HIDDEN_CONNECTION_TYPES): Set<string> {
  if (env === undefined) return new Set(['xbox']);
  return new Set(env.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean));
}

export async function userConnections(store: Store, userId: string, hidden = hiddenConnectionTypes()): Promise<APIConnection[]> {
  const rows = await store.database.db
    .selectFrom('application_profiles as p')
    .innerJoin('external_identities as e', (j) => j.onRef('e.application_id', '=', 'p.application_id').onRef('e.auth_type', '=', 'p.auth_type').onRef('e.external_id', '=', 'p.external_id'))
    .select(['p.provider_type', 'p.provider_issued_user_id', 'p.username'])
    .where('e.user_id', '=', userId)
    .execute();
  const out = new Map<string, APIConnection>();
  for (const r of rows) {
    const type = PROVIDER_KINDS[r.provider_type];
    if (!type || hidden.has(type)) continue;
    // One connection per account at a provider, however many games linked it.
    out.set(`${type}:${r.provider_issued_user_id}`, {
      id: r.provider_issued_user_id,
      name: r.username ?? r.provider_issued_user_id,
      type,
      verified: true,
      friend_sync: false,
      show_activity: true,
      two_way_link: false,
      visibility: 0,
    } as APIConnection);
  }
  return [...out.values()];
}
