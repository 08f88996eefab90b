import type { ActivityWire, User } from '@social-layer/protocol';
import type { ClientState } from '../ClientState.ts';
import type { ClientEvents } from '../events.ts';
import type { HttpApi } from '../HttpApi.ts';
import type { Logger } from '../Logger.ts';

/** What the social modules share with the Client: REST, state, events and its checks. */
export interface SocialContext {
  http: HttpApi;
  state: ClientState;
  logger: Logger;
  /** Emits a Client event (held while READY is being applied, like the lobby events). */
  emit<K extends keyof ClientEvents>(event: K, ...args: Parameters<ClientEvents[K]>): void;
  /** Throws ClientNotReady unless a session reached Ready (REST still works while Reconnecting). */
  requireSession(operation: string): void;
  /**
   * Before the Client connects: rich presence through the desktop companion (null clears).
   * Resolves false when there is no companion to take it (then the call needs a session).
   */
  desktopActivity?(activity: ActivityWire | null): Promise<boolean>;
  /** Stores a user object; announces userUpdated when a known user changed. */
  rememberUser(user: User, announce: boolean): void;
}
