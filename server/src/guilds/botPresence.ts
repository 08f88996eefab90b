import type { PresenceStatus } from '@social-layer/protocol';

/** A bot's own presence as its op 3 (or Identify `presence`) set it: the public Update Presence object. */
export interface BotPresence {
  status: PresenceStatus;
  activities: BotActivity[];
  afk: boolean;
  since: number | null;
}

/** A bot's activity: the fields the public API lets a bot set (name, type, state, url). */
export interface BotActivity {
  name: string;
  type: number;
  state?: string;
  url?: string;
  created_at: number;
}

const STATUSES = new Set(['online', 'dnd', 'idle', 'invisible', 'offline']);
/** Activity types a bot may set (public: Playing, Streaming, Listening, Watching, Custom, Competing). */
const BOT_ACTIVITY_TYPES = new Set([0, 1, 2, 3, 4, 5]);
const MAX_ACTIVITIES = 5;
const MAX_TEXT = 128;

const text = (v: unknown, max = MAX_TEXT): v is string => typeof v === 'string' && v.length <= max;

/**
 * Op 3's `d` from a bot, checked field by field as the public Update Presence object; null when
 * malformed (the connection answers 4001). `since` and `afk` are kept as sent; a Custom Status
 * (type 4) shows its `state`, and its name defaults to "Custom Status" as the public client does.
 */
export function parseBotPresence(d: unknown, now = Date.now()): BotPresence | null {
  if (typeof d !== 'object' || d === null) return null;
  const p = d as { status?: unknown; activities?: unknown; afk?: unknown; since?: unknown };
  if (typeof p.status !== 'string' || !STATUSES.has(p.status)) return null;
  if (p.since !== undefined && p.since !== null && !(typeof p.since === 'number' && Number.isFinite(p.since) && p.since >= 0)) return null;
  if (p.afk !== undefined && p.afk !== null && typeof p.afk !== 'boolean') return null;
  const list = p.activities ?? [];
  if (!Array.isArray(list) || list.length > MAX_ACTIVITIES) return null;
  const activities: BotActivity[] = [];
  for (const raw of list) {
    if (typeof raw !== 'object' || raw === null) return null;
    const a = raw as { name?: unknown; type?: unknown; state?: unknown; url?: unknown };
    const type = a.type ?? 0;
    if (typeof type !== 'number' || !BOT_ACTIVITY_TYPES.has(type)) return null;
    if (a.state !== undefined && a.state !== null && !text(a.state)) return null;
    if (a.url !== undefined && a.url !== null && !(text(a.url, 512) && /^https?:\/\//.test(a.url))) return null;
    const name = type === 4 && (a.name === undefined || a.name === null) ? 'Custom Status' : a.name;
    if (!text(name) || name.length === 0) return null;
    activities.push({
      name,
      type,
      ...(typeof a.state === 'string' ? { state: a.state } : {}),
      ...(typeof a.url === 'string' && type === 1 ? { url: a.url } : {}),
      created_at: now,
    });
  }
  return { status: p.status as PresenceStatus, activities, afk: p.afk === true, since: typeof p.since === 'number' ? p.since : null };
}
