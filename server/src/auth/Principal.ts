/** Who is calling: a user through an OAuth2/provisional bearer token, or an application's bot. */
export type Principal =
  | { kind: 'bearer'; userId: string; applicationId: string; scopes: string[] }
  | { kind: 'bot'; applicationId: string; botUserId: string };

/** Scopes that `sdk.social_layer` and `sdk.social_layer_presence` expand to (spec, Authentication 2). */
export const SCOPE_EXPANSIONS: Record<string, string[]> = {
  'sdk.social_layer': ['sdk.social_layer', 'sdk.social_layer_presence', 'identify', 'lobbies.write', 'dm_channels.messages.write', 'relationships.read', 'relationships.write', 'activities.write', 'voice'],
  'sdk.social_layer_presence': ['sdk.social_layer_presence', 'identify', 'relationships.read', 'activities.write'],
};

export function expandScopes(scopes: string[]): string[] {
  const out = new Set<string>();
  for (const s of scopes) for (const e of SCOPE_EXPANSIONS[s] ?? [s]) out.add(e);
  return [...out];
}
