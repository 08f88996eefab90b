import type { User } from '@social-layer/protocol';
import { ClientResultError } from '../ClientResultError.ts';
import type { ClientState } from '../ClientState.ts';
import type { DesktopCompanion } from '../desktop/DesktopCompanion.ts';
import type { EventHub } from '../EventHub.ts';
import type { ClientEvents } from '../events.ts';
import { UserApplicationProfileHandle } from '../UserApplicationProfileHandle.ts';
import { UserHandle } from '../UserHandle.ts';
import { checkSnowflake } from '../validation.ts';
import { FRIEND_SEARCH_MAX_LENGTH, searchFriends } from './friendSearch.ts';

/**
 * The Client's users (social-sdk-api.md 3.1, 3.3): the user objects every other part hands in,
 * the current user, lookups, friend search, the desktop session's user and the game profiles
 * of external identities.
 */
export class Users {
  constructor(
    private readonly state: ClientState,
    private readonly events: EventHub<ClientEvents>,
    private readonly desktop: DesktopCompanion,
  ) {}

  /** Stores a user object from any payload; announces userUpdated when a known user changed. */
  remember(user: User | undefined, announce: boolean): void {
    if (!user?.id) return;
    if (this.state.rememberUser(user) && announce) this.events.emit('userUpdated', user.id);
  }

  getCurrentUserV2(): UserHandle | undefined {
    const id = this.state.selfId;
    return id && this.state.user(id) ? new UserHandle(this.state, id) : undefined;
  }

  /** Always a handle: before READY (or after destroy) one with ID '0' whose fields read empty. */
  getCurrentUser(): UserHandle {
    return this.getCurrentUserV2() ?? new UserHandle(this.state, '0');
  }

  getUser(userId: string): UserHandle | undefined {
    return this.state.user(userId) ? new UserHandle(this.state, userId) : undefined;
  }

  searchFriendsByUsername(searchStr: string): UserHandle[] {
    if (typeof searchStr !== 'string' || searchStr.trim().length === 0 || searchStr.length > FRIEND_SEARCH_MAX_LENGTH) {
      throw ClientResultError.validation(`searchStr must be 1-${FRIEND_SEARCH_MAX_LENGTH} characters, not only spaces`);
    }
    if (this.state.destroyed) return [];
    return searchFriends(this.state, searchStr).map((id) => new UserHandle(this.state, id));
  }

  async getDiscordClientConnectedUser(applicationId: string): Promise<UserHandle | undefined> {
    checkSnowflake(applicationId, 'applicationId');
    if (this.state.destroyed) throw ClientResultError.destroyed();
    const user = await this.desktop.connectedUser(applicationId);
    if (!user) return undefined;
    this.remember(user, true);
    return new UserHandle(this.state, user.id);
  }

  async isDiscordAppInstalled(): Promise<boolean> {
    return (await this.desktop.isInstalled?.()) ?? false;
  }

  /** The game profiles of a user's external identities, from what the client has seen of that user. */
  getUserApplicationProfiles(userId: string): UserApplicationProfileHandle[] {
    checkSnowflake(userId, 'userId');
    return new UserHandle(this.state, userId).userApplicationProfiles();
  }
}
