import type { LobbyMemberHandle, MessageHandle, UserHandle } from '@social-layer/client';

/** What the panels show for a user: the display name, else the username, else the raw ID. */
export function userLabel(user: UserHandle | undefined, fallbackId: string): string {
  return user?.displayName || user?.username || fallbackId;
}

export function memberLabel(member: LobbyMemberHandle): string {
  return userLabel(member.user(), member.id);
}

export function messageAuthorLabel(message: MessageHandle): string {
  return userLabel(message.author(), message.authorId);
}

/** Snowflakes are decimal strings past 2^53: longer is larger, equal lengths compare as text. */
export function compareSnowflakes(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
