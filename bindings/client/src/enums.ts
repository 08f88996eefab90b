// Enums of the Client API that only the client uses (the wire ones live in @social-layer/protocol).
// Values are the native header's (social-sdk-api.md 1.1, 1.2, 3.1).

/** `AudioSystem`: only through ClientCreateOptions.setExperimentalAudioSystem. */
export const AudioSystem = {
  /** The platform's usual audio path. */
  Standard: 0,
  /** The native SDK's game audio path (experimental there; the same path in browsers). */
  Game: 1,
} as const;
export type AudioSystem = (typeof AudioSystem)[keyof typeof AudioSystem];

/** `Client::Thread`, for setThreadPriority and threadToString. */
export const ClientThread = {
  /** The thread that runs the Client's callbacks. */
  Client: 0,
  /** The voice engine's thread. */
  Voice: 1,
  /** The network thread. */
  Network: 2,
} as const;
export type ClientThread = (typeof ClientThread)[keyof typeof ClientThread];

/** `UserHandle::AvatarType`: the image format of UserHandle.avatarUrl. */
export const AvatarType = {
  /** GIF (animated avatars). */
  Gif: 0,
  /** WebP. */
  Webp: 1,
  /** PNG. */
  Png: 2,
  /** JPEG. */
  Jpeg: 3,
} as const;
export type AvatarType = (typeof AvatarType)[keyof typeof AvatarType];

/** `ExternalIdentityProviderType`: who issued a UserApplicationProfileHandle's identity. */
export const ExternalIdentityProviderType = {
  /** An OpenID Connect issuer the application trusts. */
  OIDC: 0,
  /** Epic Online Services. */
  EpicOnlineServices: 1,
  /** Steam. */
  Steam: 2,
  /** Unity. */
  Unity: 3,
  /** The application's bot, vouching for the identity. */
  DiscordBot: 4,
  /** No external identity. */
  None: 5,
  /** A provider this SDK does not know. */
  Unknown: 6,
} as const;
export type ExternalIdentityProviderType = (typeof ExternalIdentityProviderType)[keyof typeof ExternalIdentityProviderType];

function nameOf(table: Record<string, number>, value: number): string {
  for (const [name, v] of Object.entries(table)) if (v === value) return name;
  return 'Unknown';
}

export function threadToString(thread: ClientThread): string {
  return nameOf(ClientThread, thread);
}

export function avatarTypeToString(type: AvatarType): string {
  return nameOf(AvatarType, type);
}

export function isEnumValue(table: Record<string, number>, value: unknown): boolean {
  return typeof value === 'number' && Object.values(table).includes(value);
}
