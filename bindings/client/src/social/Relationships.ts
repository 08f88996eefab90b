import {
  ApiErrorCode,
  ErrorType,
  RelationshipType,
  SocialDispatchEvent,
  SocialLimits,
  type RelationshipGroupType,
  type RelationshipRemoveData,
  type RelationshipWire,
} from '@social-layer/protocol';
import { ClientResultError } from '../ClientResultError.ts';
import { RelationshipHandle } from '../RelationshipHandle.ts';
import { checkSnowflake } from '../validation.ts';
import { friendsInGroup, groupSignature } from './groups.ts';
import type { SocialContext } from './SocialContext.ts';
import { SocialState, type RelationshipRecord } from './SocialState.ts';

const PLATFORM = '/users/@me/relationships';
const GAME = '/users/@me/game-relationships';

/**
 * Server answers that mean "the relationship is not in the state this operation needs". The
 * native SDK reports failed preconditions as ValidationError, so these keep their HTTP status
 * and code but carry that type.
 */
const PRECONDITION_CODES: ReadonlySet<number> = new Set([
  ApiErrorCode.CannotFriendSelf,
  ApiErrorCode.AlreadyFriends,
  ApiErrorCode.FriendRequestAlreadySent,
  ApiErrorCode.NoIncomingFriendRequest,
  ApiErrorCode.NoOutgoingFriendRequest,
  ApiErrorCode.NotFriends,
  ApiErrorCode.UserNotBlocked,
  ApiErrorCode.FriendRequestBlocked,
  ApiErrorCode.BotsCannotHaveFriends,
]);

/**
 * Friends, requests and blocks (social-sdk-api.md 3.3-3.5). Every change arrives as a
 * RELATIONSHIP_* dispatch (for the caller's own actions too), and the events are derived by
 * comparing the record before and after, per kind: relationshipCreated/Deleted with
 * `isDiscordRelationshipUpdate` true for the platform kind and false for the game kind.
 */
export class Relationships {
  constructor(private readonly ctx: SocialContext) {}

  // ---- operations ---------------------------------------------------------------------------

  async sendDiscordFriendRequest(username: string): Promise<void> {
    return this.call('sendDiscordFriendRequest', 'POST', PLATFORM, { username: checkUsername(username) });
  }
  async sendDiscordFriendRequestById(userId: string): Promise<void> {
    return this.call('sendDiscordFriendRequestById', 'PUT', `${PLATFORM}/${checkSnowflake(userId, 'userId')}`, {});
  }
  async sendGameFriendRequest(username: string): Promise<void> {
    return this.call('sendGameFriendRequest', 'POST', GAME, { username: checkUsername(username) });
  }
  async sendGameFriendRequestById(userId: string): Promise<void> {
    return this.call('sendGameFriendRequestById', 'PUT', `${GAME}/${checkSnowflake(userId, 'userId')}`, {});
  }
  async acceptDiscordFriendRequest(userId: string): Promise<void> {
    return this.call('acceptDiscordFriendRequest', 'PUT', `${PLATFORM}/${checkSnowflake(userId, 'userId')}?type=3`, {});
  }
  async acceptGameFriendRequest(userId: string): Promise<void> {
    return this.call('acceptGameFriendRequest', 'PUT', `${GAME}/${checkSnowflake(userId, 'userId')}?type=3`, {});
  }
  async rejectDiscordFriendRequest(userId: string): Promise<void> {
    return this.call('rejectDiscordFriendRequest', 'DELETE', `${PLATFORM}/${checkSnowflake(userId, 'userId')}?type=3`);
  }
  async rejectGameFriendRequest(userId: string): Promise<void> {
    return this.call('rejectGameFriendRequest', 'DELETE', `${GAME}/${checkSnowflake(userId, 'userId')}?type=3`);
  }
  async cancelDiscordFriendRequest(userId: string): Promise<void> {
    return this.call('cancelDiscordFriendRequest', 'DELETE', `${PLATFORM}/${checkSnowflake(userId, 'userId')}?type=4`);
  }
  async cancelGameFriendRequest(userId: string): Promise<void> {
    return this.call('cancelGameFriendRequest', 'DELETE', `${GAME}/${checkSnowflake(userId, 'userId')}?type=4`);
  }
  async removeDiscordAndGameFriend(userId: string): Promise<void> {
    return this.call('removeDiscordAndGameFriend', 'DELETE', `${PLATFORM}/${checkSnowflake(userId, 'userId')}?with_game=true`);
  }
  async removeGameFriend(userId: string): Promise<void> {
    return this.call('removeGameFriend', 'DELETE', `${GAME}/${checkSnowflake(userId, 'userId')}?type=1`);
  }
  async blockUser(userId: string): Promise<void> {
    return this.call('blockUser', 'PUT', `${PLATFORM}/${checkSnowflake(userId, 'userId')}`, { type: RelationshipType.Blocked });
  }
  async unblockUser(userId: string): Promise<void> {
    return this.call('unblockUser', 'DELETE', `${PLATFORM}/${checkSnowflake(userId, 'userId')}?type=2`);
  }

  // ---- reads --------------------------------------------------------------------------------

  /** Platform relationships and this game's, one handle per other user. */
  getRelationships(): RelationshipHandle[] {
    if (this.ctx.state.destroyed) return [];
    return [...this.ctx.state.social.relationships.keys()].map((id) => new RelationshipHandle(this.ctx.state, id));
  }

  getRelationshipHandle(userId: string): RelationshipHandle {
    return new RelationshipHandle(this.ctx.state, userId);
  }

  getRelationshipsByGroup(groupType: RelationshipGroupType): RelationshipHandle[] {
    if (this.ctx.state.destroyed) return [];
    return friendsInGroup(this.ctx.state, groupType).map((id) => new RelationshipHandle(this.ctx.state, id));
  }

  // ---- state --------------------------------------------------------------------------------

  onDispatch(event: string, data: unknown): boolean {
    switch (event) {
      case SocialDispatchEvent.RelationshipAdd:
      case SocialDispatchEvent.RelationshipUpdate: {
        const w = data as RelationshipWire;
        if (w.user) this.ctx.rememberUser(w.user, true);
        this.apply(w.id, SocialState.record(w));
        return true;
      }
      case SocialDispatchEvent.RelationshipRemove:
        this.apply((data as RelationshipRemoveData).id, undefined);
        return true;
      default:
        return false;
    }
  }

  /** READY: the full list; differences from what we had become events (a reconnect may have missed some). */
  onReady(list: RelationshipWire[], announce: boolean): void {
    const seen = new Set<string>();
    for (const w of list) {
      if (w.user) this.ctx.rememberUser(w.user, false);
      seen.add(w.id);
      this.apply(w.id, SocialState.record(w), announce);
    }
    for (const id of [...this.ctx.state.social.relationships.keys()]) if (!seen.has(id)) this.apply(id, undefined, announce);
  }

  /** Stores the new record (or its absence) and emits what changed. */
  apply(userId: string, next: RelationshipRecord | undefined, announce = true): void {
    const social = this.ctx.state.social;
    const before = social.relationships.get(userId);
    const signature = groupSignature(this.ctx.state, userId);
    if (next) social.relationships.set(userId, next);
    else social.relationships.delete(userId);
    // A user who is no longer a friend is no longer someone whose presence we see.
    if (groupSignature(this.ctx.state, userId) === '' && signature !== '') social.presences.delete(userId);
    for (const [kind, isPlatform] of [
      ['type', true],
      ['gameType', false],
    ] as const) {
      const was = before?.[kind] ?? RelationshipType.None;
      const now = next?.[kind] ?? RelationshipType.None;
      if (was === now || !announce) continue;
      if (now === RelationshipType.None) this.ctx.emit('relationshipDeleted', userId, isPlatform);
      else this.ctx.emit('relationshipCreated', userId, isPlatform);
    }
    if (announce && groupSignature(this.ctx.state, userId) !== signature) this.ctx.emit('relationshipGroupsUpdated', userId);
  }

  private async call(operation: string, method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<void> {
    this.ctx.requireSession(operation);
    try {
      await this.ctx.http.request<void>({ method, path, body, auth: true });
    } catch (error) {
      if (error instanceof ClientResultError && PRECONDITION_CODES.has(error.errorCode)) {
        throw new ClientResultError({
          type: ErrorType.ValidationError,
          error: error.error,
          errorCode: error.errorCode,
          status: error.status,
          responseBody: error.responseBody,
        });
      }
      throw error;
    }
  }
}

function checkUsername(username: unknown): string {
  if (typeof username !== 'string' || username.length === 0 || username.length > SocialLimits.usernameMaxLength) {
    throw ClientResultError.validation(`username must be 1-${SocialLimits.usernameMaxLength} characters`);
  }
  return username;
}
