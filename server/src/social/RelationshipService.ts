import { RelationshipType as R, SocialDispatchEvent, type RelationshipWire } from '@social-layer/protocol';
import type { Transaction } from 'kysely';
import type { EventBus } from '../events/EventBus.ts';
import { Errors } from '../errors/ApiError.ts';
import { PLATFORM_SCOPE } from '../storage/RelationshipRepo.ts';
import type { Database, RelationshipsTable, UsersTable } from '../storage/schema.ts';
import type { Store } from '../storage/Store.ts';
import { userToWire } from '../storage/UserRepo.ts';
import { publish } from './dispatch.ts';
import type { PresenceService } from './PresenceService.ts';
import { SocialErrors } from './socialErrors.ts';
import { isSpamRequest } from './spamHeuristic.ts';

/** Platform relationships hold across games; game relationships live in one application. */
export type RelationshipScope = 'platform' | 'game';

/** Who a request names: a user ID (unknown -> 10013) or a unique username (unknown -> 80004). */
export type UserRef = { id: string } | { username: string };

/**
 * Friends, friend requests and blocks (social-sdk-api.md 3.2-3.5). Each operation checks its
 * precondition, writes both users' rows in one transaction, and only then tells both users'
 * sessions what changed (RELATIONSHIP_ADD / _UPDATE / _REMOVE, per application, since a game
 * relationship is visible only in its own game).
 */
export class RelationshipService {
  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly presence: PresenceService,
  ) {}

  /** SendDiscordFriendRequest(ById) / SendGameFriendRequest(ById): sends, or accepts a pending incoming one. */
  async sendRequest(applicationId: string, userId: string, scope: RelationshipScope, target: UserRef): Promise<void> {
    const other = await this.resolveTarget(userId, target);
    await this.change(userId, other.id, async (tx, mine, now) => {
      const s = this.scopeId(scope, applicationId);
      if (await this.store.relationships.blockedEitherWay(userId, other.id, tx)) throw SocialErrors.friendRequestBlocked();
      const current = mine.get(s)?.type ?? R.None;
      if (current === R.Friend) throw SocialErrors.alreadyFriends();
      if (current === R.PendingOutgoing) throw SocialErrors.alreadySent();
      if (current === R.PendingIncoming) return this.befriend(tx, userId, other.id, s, now);
      const spam = await isSpamRequest(this.store.relationships, tx, userId, other.id, now);
      await this.store.relationships.logRequest(tx, userId, other.id, s, now);
      await this.store.relationships.set(tx, { user_id: userId, other_id: other.id, application_id: s, type: R.PendingOutgoing, is_spam: 0, since: now });
      await this.store.relationships.set(tx, { user_id: other.id, other_id: userId, application_id: s, type: R.PendingIncoming, is_spam: spam ? 1 : 0, since: now });
    });
  }

  /** Accept(Discord|Game)FriendRequest: needs a pending incoming request of that kind. */
  async accept(applicationId: string, userId: string, scope: RelationshipScope, otherId: string): Promise<void> {
    await this.requireUser(otherId);
    await this.change(userId, otherId, async (tx, mine, now) => {
      const s = this.scopeId(scope, applicationId);
      if (mine.get(s)?.type !== R.PendingIncoming) throw SocialErrors.noIncomingRequest();
      await this.befriend(tx, userId, otherId, s, now);
    });
  }

  /** Reject(Discord|Game)FriendRequest: needs a pending incoming request; the sender's log notes the "no". */
  async reject(applicationId: string, userId: string, scope: RelationshipScope, otherId: string): Promise<void> {
    await this.requireUser(otherId);
    await this.change(userId, otherId, async (tx, mine, now) => {
      const s = this.scopeId(scope, applicationId);
      if (mine.get(s)?.type !== R.PendingIncoming) throw SocialErrors.noIncomingRequest();
      await this.unlink(tx, userId, otherId, s);
      await this.store.relationships.markRejected(tx, otherId, userId, now);
    });
  }

  /** Cancel(Discord|Game)FriendRequest: needs a pending outgoing request. */
  async cancel(applicationId: string, userId: string, scope: RelationshipScope, otherId: string): Promise<void> {
    await this.requireUser(otherId);
    await this.change(userId, otherId, async (tx, mine) => {
      const s = this.scopeId(scope, applicationId);
      if (mine.get(s)?.type !== R.PendingOutgoing) throw SocialErrors.noOutgoingRequest();
      await this.unlink(tx, userId, otherId, s);
    });
  }

  /** RemoveGameFriend (scope 'game'), or the platform friendship alone (scope 'platform'). */
  async removeFriend(applicationId: string, userId: string, scope: RelationshipScope, otherId: string): Promise<void> {
    await this.requireUser(otherId);
    await this.change(userId, otherId, async (tx, mine) => {
      const s = this.scopeId(scope, applicationId);
      if (mine.get(s)?.type !== R.Friend) throw SocialErrors.notFriends();
      await this.unlink(tx, userId, otherId, s);
    });
  }

  /**
   * The public `DELETE /users/@me/relationships/{id}` without a precondition: ends whatever the
   * caller holds in that scope (friendship, a request either way, a block); fails when nothing.
   */
  async removeAny(applicationId: string, userId: string, scope: RelationshipScope, otherId: string): Promise<void> {
    await this.requireUser(otherId);
    await this.change(userId, otherId, async (tx, mine, now) => {
      const s = this.scopeId(scope, applicationId);
      const current = mine.get(s)?.type ?? R.None;
      if (current === R.None) throw SocialErrors.notFriends();
      if (current === R.Blocked) return void (await this.store.relationships.remove(tx, userId, otherId, s));
      await this.unlink(tx, userId, otherId, s);
      if (current === R.PendingIncoming) await this.store.relationships.markRejected(tx, otherId, userId, now);
    });
  }

  /** RemoveDiscordAndGameFriend: ends both friendships; fails when there is neither. */
  async removeBoth(applicationId: string, userId: string, otherId: string): Promise<void> {
    await this.requireUser(otherId);
    await this.change(userId, otherId, async (tx, mine) => {
      const scopes = [PLATFORM_SCOPE, applicationId].filter((s) => mine.get(s)?.type === R.Friend);
      if (scopes.length === 0) throw SocialErrors.notFriends();
      for (const s of scopes) await this.unlink(tx, userId, otherId, s);
    });
  }

  /** BlockUser: ends every relationship between the two, in every game, and blocks across all of them. */
  async block(applicationId: string, userId: string, otherId: string): Promise<void> {
    if (otherId === userId) throw SocialErrors.cannotBlockSelf();
    await this.requireUser(otherId);
    await this.change(userId, otherId, async (tx, mine, now) => {
      if (mine.get(PLATFORM_SCOPE)?.type === R.Blocked) return;
      await this.store.relationships.removeAllBetween(tx, userId, otherId);
      await this.store.relationships.set(tx, { user_id: userId, other_id: otherId, application_id: PLATFORM_SCOPE, type: R.Blocked, is_spam: 0, since: now });
    });
  }

  /** UnblockUser: does not bring back what the block ended; fails when not blocked. */
  async unblock(applicationId: string, userId: string, otherId: string): Promise<void> {
    await this.requireUser(otherId);
    await this.change(userId, otherId, async (tx, mine) => {
      if (mine.get(PLATFORM_SCOPE)?.type !== R.Blocked) throw SocialErrors.notBlocked();
      await this.store.relationships.remove(tx, userId, otherId, PLATFORM_SCOPE);
    });
  }

  /** GetRelationships: platform relationships and this application's game relationships. */
  async list(applicationId: string, userId: string): Promise<RelationshipWire[]> {
    const rows = await this.store.relationships.listFor(userId, applicationId);
    const byOther = new Map<string, RelationshipsTable[]>();
    for (const r of rows) byOther.set(r.other_id, [...(byOther.get(r.other_id) ?? []), r]);
    const users = await this.store.users.getMany([...byOther.keys()]);
    const played = await this.store.socialSettings.playedBy([...byOther.keys()], [applicationId]);
    const out: RelationshipWire[] = [];
    for (const [otherId, held] of byOther) {
      const user = users.get(otherId);
      if (!user) continue;
      const wire = toWire(held, applicationId, user, played.has(otherId));
      if (wire) out.push(wire);
    }
    return out;
  }

  // ---- internals ----------------------------------------------------------------------------

  private scopeId(scope: RelationshipScope, applicationId: string): string {
    return scope === 'platform' ? PLATFORM_SCOPE : applicationId;
  }

  private async resolveTarget(userId: string, target: UserRef): Promise<UsersTable> {
    const user = 'id' in target ? await this.store.users.get(target.id) : await this.store.relationships.userByUsername(target.username);
    if (!user) throw 'id' in target ? Errors.unknownUser() : SocialErrors.noUserWithThatName();
    if (user.id === userId) throw SocialErrors.cannotFriendSelf();
    if (user.is_bot === 1) throw SocialErrors.botsCannotHaveFriends();
    return user;
  }

  private async requireUser(id: string): Promise<UsersTable> {
    const user = await this.store.users.get(id);
    if (!user) throw Errors.unknownUser();
    return user;
  }

  private async befriend(tx: Transaction<Database>, a: string, b: string, scope: string, now: number): Promise<void> {
    await this.store.relationships.set(tx, { user_id: a, other_id: b, application_id: scope, type: R.Friend, is_spam: 0, since: now });
    await this.store.relationships.set(tx, { user_id: b, other_id: a, application_id: scope, type: R.Friend, is_spam: 0, since: now });
  }

  private async unlink(tx: Transaction<Database>, a: string, b: string, scope: string): Promise<void> {
    await this.store.relationships.remove(tx, a, b, scope);
    await this.store.relationships.remove(tx, b, a, scope);
  }

  /**
   * Runs one change in a transaction (with the caller's rows by scope), then tells both users'
   * sessions in every application what their relationship now looks like there, and introduces
   * new friends' presences to each other.
   */
  private async change(
    userId: string,
    otherId: string,
    fn: (tx: Transaction<Database>, mine: Map<string, RelationshipsTable>, now: number) => Promise<void>,
  ): Promise<void> {
    const before = await this.store.relationships.allBetween(userId, otherId);
    await this.store.relationships.transaction(async (tx) => {
      const mine = new Map<string, RelationshipsTable>();
      for (const r of await this.store.relationships.allBetween(userId, otherId, tx)) if (r.user_id === userId) mine.set(r.application_id, r);
      await fn(tx, mine, Date.now());
    });
    const after = await this.store.relationships.allBetween(userId, otherId);
    await this.announce(userId, otherId, before, after);
    const friendScopes = (rows: RelationshipsTable[]) => rows.filter((r) => r.type === R.Friend && r.user_id === userId).map((r) => r.application_id);
    const was = new Set(friendScopes(before));
    if (friendScopes(after).some((s) => !was.has(s))) await this.presence.introduce(userId, otherId);
  }

  private async announce(a: string, b: string, before: RelationshipsTable[], after: RelationshipsTable[]): Promise<void> {
    const users = await this.store.users.getMany([a, b]);
    for (const [viewer, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const otherUser = users.get(other);
      if (!otherUser) continue;
      const held = (rows: RelationshipsTable[]) => rows.filter((r) => r.user_id === viewer);
      for (const appId of await this.store.socialSettings.applicationsOf(viewer)) {
        const played = (await this.store.socialSettings.playedBy([other], [appId])).has(other);
        const was = toWire(held(before), appId, otherUser, played);
        const now = toWire(held(after), appId, otherUser, played);
        if (!was && !now) continue;
        if (!now) publish(this.bus, appId, [viewer], SocialDispatchEvent.RelationshipRemove, { id: other });
        else if (!was) publish(this.bus, appId, [viewer], SocialDispatchEvent.RelationshipAdd, now);
        else if (was.type !== now.type || was.game_type !== now.game_type || was.is_spam_request !== now.is_spam_request) {
          publish(this.bus, appId, [viewer], SocialDispatchEvent.RelationshipUpdate, now);
        }
      }
    }
  }
}

/** The relationship one user holds about another, as one application sees it; undefined when none. */
function toWire(held: RelationshipsTable[], applicationId: string, other: UsersTable, playedGame: boolean): RelationshipWire | undefined {
  const platform = held.find((r) => r.application_id === PLATFORM_SCOPE);
  const game = held.find((r) => r.application_id === applicationId);
  if (!platform && !game) return undefined;
  const since = Math.max(Number(platform?.since ?? 0), Number(game?.since ?? 0));
  return {
    id: other.id,
    type: platform?.type ?? R.None,
    game_type: game?.type ?? R.None,
    user: userToWire(other),
    since: new Date(since).toISOString(),
    is_spam_request: platform?.is_spam === 1 || game?.is_spam === 1,
    has_played_game: playedGame,
  };
}
