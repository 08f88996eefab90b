import { RelationshipGroupType, RelationshipType } from '@social-layer/protocol';
import type { ClientState } from '../ClientState.ts';

/**
 * The friends-list groups of GetRelationshipsByGroup, and a signature per friend that changes
 * whenever the friend's place in a list may change, so relationshipGroupsUpdated fires exactly
 * then (status change, game start or stop, friend added or removed, rename).
 *
 * - OnlinePlayingGame: friends online with an activity of this application.
 * - OnlineElsewhere: friends online otherwise; those who played this game before come first.
 * - Offline: friends offline (or invisible).
 * Within a group: by display name (case-insensitive), then by ID. Pending requests and blocks
 * are in no group: they are not friends.
 */
export function isFriend(state: ClientState, userId: string): boolean {
  const r = state.social.relationships.get(userId);
  return r !== undefined && (r.type === RelationshipType.Friend || r.gameType === RelationshipType.Friend);
}

export function groupOf(state: ClientState, userId: string): RelationshipGroupType | undefined {
  if (!isFriend(state, userId)) return undefined;
  const presence = state.social.presences.get(userId);
  if (!presence || presence.status === 'offline' || presence.status === 'invisible') return RelationshipGroupType.Offline;
  const appId = state.social.applicationId;
  return presence.activities.some((a) => a.application_id === appId) ? RelationshipGroupType.OnlinePlayingGame : RelationshipGroupType.OnlineElsewhere;
}

/** Everything about a user that decides which group they are in and where. */
export function groupSignature(state: ClientState, userId: string): string {
  if (!isFriend(state, userId)) return '';
  const user = state.users.get(userId);
  const rel = state.social.relationships.get(userId);
  return JSON.stringify([groupOf(state, userId), state.social.presences.get(userId)?.status ?? 'offline', user?.global_name ?? user?.username ?? '', rel?.hasPlayedGame]);
}

/** The friends in one group, sorted as described above. */
export function friendsInGroup(state: ClientState, group: RelationshipGroupType): string[] {
  const ids = [...state.social.relationships.keys()].filter((id) => groupOf(state, id) === group);
  const name = (id: string) => {
    const u = state.users.get(id);
    return (u?.global_name || u?.username || id).toLowerCase();
  };
  return ids.sort((a, b) => {
    if (group === RelationshipGroupType.OnlineElsewhere) {
      const played = Number(state.social.relationships.get(b)?.hasPlayedGame ?? false) - Number(state.social.relationships.get(a)?.hasPlayedGame ?? false);
      if (played !== 0) return played;
    }
    const byName = name(a).localeCompare(name(b));
    if (byName !== 0) return byName;
    return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
  });
}
