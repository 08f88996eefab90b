import type { GuildPresenceFanout } from './GuildPresenceFanout.ts';

/** Identify's `large_threshold`: 50 to 250 members (public range), 50 when absent; out-of-range values are clamped. */
export function largeThresholdOf(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) return 50;
  return Math.min(250, Math.max(50, value));
}

interface GuildCreateShape {
  id: string;
  member_count: number;
  large: boolean;
  members: { user: { id: string } }[];
  presences: unknown[];
}

/**
 * GUILD_CREATE for a GUILD_PRESENCES session: `presences` of the members not offline, and, in a
 * guild over the session's `large_threshold`, `large: true` with the offline members left out of
 * `members` (the session's own member always stays); the rest comes by Request Guild Members.
 */
export async function addGuildCreatePresences<T extends GuildCreateShape>(payload: T, presences: GuildPresenceFanout, largeThreshold: number, selfId: string): Promise<T> {
  const large = payload.member_count > largeThreshold;
  const present = await presences.presencesIn(payload.id, payload.members.map((m) => m.user.id));
  const online = new Set(present.map((p) => p.user.id));
  const members = large ? payload.members.filter((m) => m.user.id === selfId || online.has(m.user.id)) : payload.members;
  return { ...payload, large, members, presences: present };
}
