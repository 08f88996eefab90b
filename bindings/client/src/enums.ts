// Enums of the Client API that only the client uses (the wire ones live in @social-layer/protocol).
// Values are the native header's (social-sdk-api.md 1.1, 1.2, 3.1).

/** `AudioSystem`: only through ClientCreateOptions.setExperimentalAudioSystem. */
export const AudioSystem = { Standard: 0, Game: 1 } as const;
export type AudioSystem = (typeof AudioSystem)[keyof typeof AudioSystem];

/** `Client::Thread`, for setThreadPriority and threadToString. */
export const ClientThread = { Client: 0, Voice: 1, Network: 2 } as const;
export type ClientThread = (typeof ClientThread)[keyof typeof ClientThread];

/** `UserHandle::AvatarType`: the image format of UserHandle.avatarUrl. */
export const AvatarType = { Gif: 0, Webp: 1, Png: 2, Jpeg: 3 } as const;
export type AvatarType = (typeof AvatarType)[keyof typeof AvatarType];

/** `ExternalIdentityProviderType`: who issued a UserApplicationProfileHandle's identity. */
export const ExternalIdentityProviderType = { OIDC: 0, EpicOnlineServices: 1, Steam: 2, Unity: 3, DiscordBot: 4, None: 5, Unknown: 6 } as const;
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
