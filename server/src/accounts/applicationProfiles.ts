import type { Lobby, User, UserApplicationProfile } from '@social-layer/protocol';
import { expandScopes } from '../auth/Principal.ts';
import type { VerifiedIdentity } from '../oauth2/OidcVerifier.ts';
import type { ApplicationProfileRow, ProfileData } from '../storage/ApplicationProfileRepo.ts';
import type { Store } from '../storage/Store.ts';

/**
 * Application profiles (UserApplicationProfileHandle, social-sdk-api.md 3.1): what the provider
 * of a provisional account's external identity says about the player, kept per identity and
 * refreshed on every token exchange. Device IDs get none: a device ID is a credential, never
 * something to show as a provider-issued ID.
 */

/** external_auth_type -> ExternalIdentityProviderType name; types with no enum value of their own are plain OIDC. */
const OIDC_PROVIDER_TYPES: Record<string, string> = {
  OIDC: 'OIDC',
  EPIC_ONLINE_SERVICES_ID_TOKEN: 'EPIC_ONLINE_SERVICES',
  UNITY_SERVICES_ID_TOKEN: 'UNITY',
  APPLE_ID_TOKEN: 'OIDC',
  PLAYSTATION_NETWORK_ID_TOKEN: 'OIDC',
};

/** Column limits of 0007_application_profiles; a longer claim is dropped rather than failing the sign-in. */
const USERNAME_MAX = 256;
const AVATAR_MAX = 1024;
const METADATA_MAX = 4096;

function fits(value: string | null | undefined, max: number): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= max ? value : null;
}

/** The profile an OIDC-style ID token vouches for: issuer, subject, preferred_username (else name), picture. */
export function oidcProfile(externalAuthType: string, verified: VerifiedIdentity): ProfileData {
  return {
    providerType: OIDC_PROVIDER_TYPES[externalAuthType] ?? 'OIDC',
    providerId: verified.issuer,
    providerIssuedUserId: verified.subject,
    username: fits(verified.username ?? verified.name, USERNAME_MAX),
    avatarHash: fits(verified.picture, AVATAR_MAX),
    metadata: null,
  };
}

/** The profile the game's own server gives for its player ID (POST /partner-sdk/token/bot). */
export function botProfile(
  applicationId: string,
  externalUserId: string,
  given: { username?: string; avatar_hash?: string; metadata?: string } | undefined,
): ProfileData {
  return {
    providerType: 'DISCORD_BOT',
    providerId: applicationId,
    providerIssuedUserId: externalUserId,
    username: fits(given?.username, USERNAME_MAX),
    avatarHash: fits(given?.avatar_hash, AVATAR_MAX),
    metadata: fits(given?.metadata, METADATA_MAX),
  };
}

export const PROFILE_LIMITS = { username: USERNAME_MAX, avatarHash: AVATAR_MAX, metadata: METADATA_MAX } as const;

/**
 * The wire shape. The provider-issued ID is there only for the user themself (with `identify`)
 * and for the application's own bot; anyone else sees the profile without it.
 */
export function profileToWire(row: ApplicationProfileRow, withIssuedId: boolean): UserApplicationProfile {
  return {
    provider_type: row.provider_type,
    provider_id: row.provider_id,
    ...(withIssuedId ? { provider_issued_user_id: row.provider_issued_user_id } : {}),
    username: row.username,
    avatar_hash: row.avatar_hash,
    metadata: row.metadata,
  };
}

/** Who is looking, for the issued-ID rule. */
export type ProfileViewer = { kind: 'bearer'; userId: string; applicationId: string; scopes: readonly string[] } | { kind: 'bot'; applicationId: string };

export function maySeeIssuedId(viewer: ProfileViewer, ownerId: string): boolean {
  // Stored scopes may be unexpanded (a provisional token holds sdk.social_layer, which includes identify).
  return viewer.kind === 'bot' || (viewer.userId === ownerId && expandScopes([...viewer.scopes]).includes('identify'));
}

/** One user's profiles for the viewer's application, as the viewer may see them. */
export async function profilesFor(store: Store, viewer: ProfileViewer, userId: string): Promise<UserApplicationProfile[]> {
  const rows = (await store.applicationProfiles.ofUsers(viewer.applicationId, [userId])).get(userId) ?? [];
  const issued = maySeeIssuedId(viewer, userId);
  return rows.map((r) => profileToWire(r, issued));
}

/** The parts of READY that carry other users' objects (relationships from the social slice, lobby members). */
interface ReadyUsers {
  relationships?: { user: User }[];
  lobbies: Lobby[];
}

/**
 * READY with the game profiles of the users it names (friends and other relationships, lobby
 * members) for the session's application, without their provider-issued IDs. Copies: the
 * objects it gets may be shared with other payloads.
 */
export async function withReadyProfiles<T extends ReadyUsers>(store: Store, applicationId: string, ready: T): Promise<T> {
  const ids = [...(ready.relationships ?? []).map((r) => r.user.id), ...ready.lobbies.flatMap((l) => l.members.map((m) => m.user?.id ?? m.id))];
  const rows = await store.applicationProfiles.ofUsers(applicationId, ids);
  const user = (u: User): User => ({ ...u, application_profiles: (rows.get(u.id) ?? []).map((r) => profileToWire(r, false)) });
  return {
    ...ready,
    ...(ready.relationships ? { relationships: ready.relationships.map((r) => ({ ...r, user: user(r.user) })) } : {}),
    lobbies: ready.lobbies.map((l) => ({ ...l, members: l.members.map((m) => (m.user ? { ...m, user: user(m.user) } : m)) })),
  };
}
