import { ExternalIdentityProviderType } from './enums.ts';

/** One external identity's game profile as the platform sends it (`user.application_profiles[]`). */
export interface UserApplicationProfileWire {
  /** The provider kind on the wire (`oidc`, `steam`, ...). */
  provider_type: string;
  /** The issuer or provider application the identity comes from. */
  provider_id?: string | null;
  /** Only on the user's own profiles (the platform shows it to nobody else): providerIssuedUserId() reads '' without it. */
  provider_issued_user_id?: string;
  /** The name the provider gave. */
  username?: string | null;
  /** The provider picture's hash, when there is one. */
  avatar_hash?: string | null;
  /** Developer-set data for this profile. */
  metadata?: string | null;
}

const PROVIDER_TYPES: Record<string, ExternalIdentityProviderType> = {
  OIDC: ExternalIdentityProviderType.OIDC,
  EPIC_ONLINE_SERVICES: ExternalIdentityProviderType.EpicOnlineServices,
  STEAM: ExternalIdentityProviderType.Steam,
  UNITY: ExternalIdentityProviderType.Unity,
  DISCORD_BOT: ExternalIdentityProviderType.DiscordBot,
  NONE: ExternalIdentityProviderType.None,
};

/** Reads the profiles of one user from wherever the client keeps them (a live view's source). */
export type ProfileSource = () => readonly UserApplicationProfileWire[] | undefined;

/**
 * `UserApplicationProfileHandle` (social-sdk-api.md 3.1): the game profile of one of a user's
 * external identities (the provider that issued a provisional account: an OIDC issuer, Epic,
 * Steam, ...), at most one per application. A live view: it re-reads the user's profiles on
 * every call and reads empty values once the profile or the client is gone.
 */
export class UserApplicationProfileHandle {
  /** @internal Handles come from the Client only. */
  constructor(
    private readonly source: ProfileSource,
    private readonly index: number,
  ) {}

  private wire(): UserApplicationProfileWire | undefined {
    return this.source()?.[this.index];
  }

  /** Avatar hash at the provider (empty when none). */
  avatarHash(): string {
    return this.wire()?.avatar_hash ?? '';
  }
  /** Developer-set data for this profile (empty when none). */
  metadata(): string {
    return this.wire()?.metadata ?? '';
  }
  /** The provider's ID, e.g. an OIDC issuer (undefined when none). */
  providerId(): string | undefined {
    return this.wire()?.provider_id ?? undefined;
  }
  /** The user's ID at the provider. */
  providerIssuedUserId(): string {
    return this.wire()?.provider_issued_user_id ?? '';
  }
  /** Who issued the identity (`ExternalIdentityProviderType`: OIDC, Epic Online Services, Steam, Unity, a bot, ...). */
  providerType(): ExternalIdentityProviderType {
    const wire = this.wire();
    if (!wire) return ExternalIdentityProviderType.None;
    return PROVIDER_TYPES[wire.provider_type] ?? ExternalIdentityProviderType.Unknown;
  }
  /** The user's name at the provider (empty when none). */
  username(): string {
    return this.wire()?.username ?? '';
  }
}
