import { RelationshipType, STATUS_FROM_WIRE, StatusType } from '@social-layer/protocol';
import type { Activity } from './Activity.ts';
import type { ClientState } from './ClientState.ts';
import { ClientResultError } from './ClientResultError.ts';
import { AvatarType, avatarTypeToString, isEnumValue } from './enums.ts';
import { activityFromWire } from './social/activityWire.ts';
import { UserApplicationProfileHandle } from './UserApplicationProfileHandle.ts';

const AVATAR_EXTENSIONS: Record<AvatarType, string> = {
  [AvatarType.Gif]: 'gif',
  [AvatarType.Webp]: 'webp',
  [AvatarType.Png]: 'png',
  [AvatarType.Jpeg]: 'jpg',
};

/**
 * A live view of a user: every read goes to the client's current user object, so a rename shows
 * on handles taken earlier. Unknown users and a destroyed client read as empty values.
 */
export class UserHandle {
  /** @internal Handles come from the Client only. */
  constructor(
    private readonly state: ClientState,
    /** The user ID. */
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

  /** Whether this is a provisional (guest) account. */
  get isProvisional(): boolean {
    return this.state.user(this.id)?.is_provisional ?? false;
  }

  /** Whether this is a bot user. */
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

  /**
   * The avatar's image URL in the public CDN shape: `<base>/avatars/<id>/<hash>.<ext>`, the
   * `animatedType` format for an animated avatar (hash `a_...`) and `staticType` otherwise;
   * without an avatar, the default one, `<base>/embed/avatars/<n>.png` with n = (id >> 22) % 6.
   * `size` (a power of two, 16-4096) adds `?size=`. The base is the platform's API origin.
   */
  avatarUrl(animatedType: AvatarType, staticType: AvatarType, size?: number): string {
    if (!isEnumValue(AvatarType, animatedType) || !isEnumValue(AvatarType, staticType)) {
      throw ClientResultError.validation('avatarUrl: animatedType and staticType must be AvatarType values (Gif=0, Webp=1, Png=2, Jpeg=3)');
    }
    if (size !== undefined && (!Number.isInteger(size) || size < 16 || size > 4096 || (size & (size - 1)) !== 0)) {
      throw ClientResultError.validation('avatarUrl: size must be a power of two from 16 to 4096');
    }
    const query = size === undefined ? '' : `?size=${size}`;
    const base = this.state.cdnBase;
    const hash = this.avatar;
    if (!hash || this.state.destroyed) {
      const index = /^\d+$/.test(this.id) ? Number((BigInt(this.id) >> 22n) % 6n) : 0;
      return `${base}/embed/avatars/${index}.png${query}`;
    }
    const type = hash.startsWith('a_') ? animatedType : staticType;
    return `${base}/avatars/${this.id}/${hash}.${AVATAR_EXTENSIONS[type]}${query}`;
  }

  /** `UserHandle::AvatarTypeToString`. */
  static avatarTypeToString(type: AvatarType): string {
    return avatarTypeToString(type);
  }

  /** The game profiles of this user's external identities, at most one per application. */
  userApplicationProfiles(): UserApplicationProfileHandle[] {
    if (this.state.destroyed) return [];
    const profiles = this.state.applicationProfiles.get(this.id) ?? [];
    const state = this.state;
    const id = this.id;
    return profiles.map((_, index) => new UserApplicationProfileHandle(() => (state.destroyed ? undefined : state.applicationProfiles.get(id)), index));
  }
}

/**
 * A live view of the relationship between the current user and another (social-sdk-api.md 3.2).
 * Two kinds live side by side: the platform relationship, across every game (the native accessor
 * name `discordRelationshipType` is kept so code maps one to one), and the relationship in this
 * game. With neither, both read `None`, as the native handle does after a RelationshipDeleted.
 */
export class RelationshipHandle {
  /** @internal Handles come from the Client only. */
  constructor(
    private readonly state: ClientState,
    /** The other user's ID. */
    readonly id: string,
  ) {}

  /** The platform relationship (friends across games, requests, blocks). */
  discordRelationshipType(): RelationshipType {
    return this.record()?.type as RelationshipType | undefined ?? RelationshipType.None;
  }

  /** The relationship in this game only. */
  gameRelationshipType(): RelationshipType {
    return this.record()?.gameType as RelationshipType | undefined ?? RelationshipType.None;
  }

  /** True when the server believes this incoming request is spam (see server/README.md). */
  isSpamRequest(): boolean {
    return this.record()?.isSpamRequest ?? false;
  }

  /** The other user, when the client knows them. */
  user(): UserHandle | undefined {
    return this.state.user(this.id) ? new UserHandle(this.state, this.id) : undefined;
  }

  private record() {
    return this.state.destroyed ? undefined : this.state.social.relationships.get(this.id);
  }
}
