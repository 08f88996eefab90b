import { RelationshipType, STATUS_FROM_WIRE, StatusType } from '@social-layer/protocol';
import type { Activity } from './Activity.ts';
import type { ClientState } from './ClientState.ts';
import { RelationshipHandle } from './RelationshipHandle.ts';
import { activityFromWire } from './social/activityWire.ts';

/**
 * A live view of a user: every read goes to the client's current user object, so a rename shows
 * on handles taken earlier. Unknown users and a destroyed client read as empty values.
 */
export class UserHandle {
  /** @internal Handles come from the Client only. */
  constructor(
    private readonly state: ClientState,
    readonly id: string,
  ) {}

  /** Unique username; generated for provisional accounts. */
  get username(): string {
    return this.state.user(this.id)?.username ?? '';
  }

  /** The preferred name, when the user set one. */
  get globalName(): string | undefined {
    return this.state.user(this.id)?.global_name ?? undefined;
  }

  /** The global name if set, else the username. */
  get displayName(): string {
    const user = this.state.user(this.id);
    return user?.global_name || user?.username || '';
  }

  /** Avatar hash, if any. */
  get avatar(): string | undefined {
    return this.state.user(this.id)?.avatar ?? undefined;
  }

  get isProvisional(): boolean {
    return this.state.user(this.id)?.is_provisional ?? false;
  }

  get isBot(): boolean {
    return this.state.user(this.id)?.bot ?? false;
  }

  /**
   * Online status. Our own is the one we chose; a friend's comes from their presence (Offline
   * until one arrives); a user we block reads Blocked; anyone else's presence is not ours to see
   * (presence reaches friends only), so it reads Unknown.
   */
  status(): StatusType {
    if (this.state.destroyed) return StatusType.Unknown;
    const social = this.state.social;
    if (this.id === this.state.selfId) return STATUS_FROM_WIRE[social.selfStatus];
    const rel = social.relationships.get(this.id);
    if (rel?.type === RelationshipType.Blocked) return StatusType.Blocked;
    const presence = social.presences.get(this.id);
    if (presence) return STATUS_FROM_WIRE[presence.status] ?? StatusType.Unknown;
    const friend = rel?.type === RelationshipType.Friend || rel?.gameType === RelationshipType.Friend;
    return friend ? StatusType.Offline : StatusType.Unknown;
  }

  /** The user's rich presence in this game (a fresh Activity), if they have one. */
  gameActivity(): Activity | undefined {
    if (this.state.destroyed) return undefined;
    const social = this.state.social;
    if (this.id === this.state.selfId) return social.selfActivity ? activityFromWire(social.selfActivity) : undefined;
    const activities = social.presences.get(this.id)?.activities ?? [];
    const mine = activities.find((a) => a.application_id === social.applicationId);
    return mine ? activityFromWire(mine) : undefined;
  }

  /** The relationship between the current user and this user (type None when there is none). */
  relationship(): RelationshipHandle {
    return new RelationshipHandle(this.state, this.id);
  }
}
