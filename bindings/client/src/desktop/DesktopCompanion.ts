import type { User } from '@social-layer/protocol';

/**
 * Where the Client learns about the player's desktop session: the local companion of the IPC
 * issue (issue 16), which plays the part of the native SDK's "Discord client running on this
 * machine". The Client asks it through this interface only, so the companion module plugs in
 * with the `desktopCompanion` Client option and nothing else in the Client changes. The default
 * finds nothing: getDiscordClientConnectedUser then resolves with undefined, and no activity-join
 * events come.
 */
export interface DesktopCompanion {
  /**
   * The user signed in to the local companion for `applicationId` (a wire user object), or null
   * when no companion runs or nobody is signed in. Rejections become the Client's error.
   */
  connectedUser(applicationId: string): Promise<User | null>;
  /**
   * Subscribes to the player accepting an invite outside the game (the companion's
   * ACTIVITY_JOIN): `(applicationId, joinSecret)`. Returns the unsubscribe function.
   */
  onActivityJoin?(listener: (applicationId: string, joinSecret: string) => void): () => void;
  /**
   * Rich presence through the companion (RPC SET_ACTIVITY; null clears), used by
   * updateRichPresence/clearRichPresence before the Client connects, as the native SDK sends it
   * to the desktop app; absent means the Client needs its own session for presence.
   */
  setActivity?(applicationId: string, activity: object | null): Promise<void>;
  /** Whether a companion runs on this machine (Client.isDiscordAppInstalled); absent means no. */
  isInstalled?(): boolean | Promise<boolean>;
}

/** The default: no companion on this machine (browsers, or Node without the companion module). */
export const noDesktopCompanion: DesktopCompanion = {
  connectedUser: async () => null,
};
