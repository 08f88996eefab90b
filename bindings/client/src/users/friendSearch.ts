import { RelationshipType } from '@social-layer/protocol';
import { distance } from 'fastest-levenshtein';
import type { ClientState } from '../ClientState.ts';

/** Longest search string: usernames and display names are at most 32 characters. */
export const FRIEND_SEARCH_MAX_LENGTH = 32;

/**
 * searchFriendsByUsername's matching (social-sdk-api.md 3.3: username and display name, by
 * Levenshtein distance). Friends of either kind only, from the client's state (no request, as the
 * native method is const). Case-insensitive. A name scores the distance from the query to the
 * name's closest prefix of the query's length, so "ali" finds "alice_92" at 0 and "alcie" finds
 * "alice" at 2; a name containing the query scores 0. A friend matches when the better of the
 * two names scores at most a third of the query's length, rounded up. Best first, then by
 * display name, then ID.
 */
export function searchFriends(state: ClientState, query: string): string[] {
  const needle = query.trim().toLowerCase();
  const allowed = Math.ceil(needle.length / 3);
  const scored: { id: string; score: number; name: string }[] = [];
  for (const record of state.social.relationships.values()) {
    if (record.type !== RelationshipType.Friend && record.gameType !== RelationshipType.Friend) continue;
    const user = state.user(record.id);
    if (!user) continue;
    const displayName = (user.global_name || user.username || '').toLowerCase();
    const score = Math.min(nameScore(needle, (user.username ?? '').toLowerCase()), nameScore(needle, displayName));
    if (score <= allowed) scored.push({ id: record.id, score, name: displayName });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return scored.map((s) => s.id);
}

function nameScore(needle: string, name: string): number {
  if (!name) return Number.POSITIVE_INFINITY;
  if (name.includes(needle)) return 0;
  return Math.min(distance(needle, name.slice(0, needle.length)), distance(needle, name));
}
