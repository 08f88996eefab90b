import { useEffect, useState } from 'preact/hooks';
import { RestClient } from '../../api/RestClient.ts';

/**
 * User (5), role (6), mentionable (7) and channel (8) selects: the public client fills them
 * from the place itself, so the app sends no options. Here the choices come from the open
 * guild (members, roles, channels; `channel_types` narrows channels) or, in a DM or group DM,
 * its participants (no roles or channels there). The server checks and resolves the chosen IDs.
 */
const rest = new RestClient();

export interface AutoChoice { value: string; label: string; group: 'Users' | 'Roles' | 'Channels' }
type Obj = Record<string, any>;

/** Where the page is: a guild channel or a DM, from the route. */
function place(): { guildId?: string; dmId?: string } {
  const g = /\/guilds\/(\d+)/.exec(location.pathname)?.[1];
  if (g) return { guildId: g };
  const d = /\/dms\/(\d+)/.exec(location.pathname)?.[1];
  return d ? { dmId: d } : {};
}

/** One fetch per path for a short while: several selects on one page ask for the same lists. */
const cache = new Map<string, { at: number; p: Promise<unknown> }>();
function cached<T>(path: string): Promise<T> {
  const hit = cache.get(path);
  if (hit && Date.now() - hit.at < 30_000) return hit.p as Promise<T>;
  const p = rest.get<T>(path);
  cache.set(path, { at: Date.now(), p });
  p.catch(() => cache.delete(path));
  return p;
}

const userLabel = (u: Obj, nick?: string | null) => nick ?? u.global_name ?? u.username ?? u.id;

async function users(where: ReturnType<typeof place>): Promise<AutoChoice[]> {
  if (where.guildId) {
    const members = await cached<Obj[]>(`/guilds/${where.guildId}/members?limit=1000`);
    return members.map((m) => ({ value: m.user.id, label: userLabel(m.user, m.nick), group: 'Users' as const }));
  }
  if (!where.dmId) return [];
  const [channel, me] = await Promise.all([cached<Obj>(`/channels/${where.dmId}`), cached<Obj>('/users/@me')]);
  return [me, ...((channel.recipients ?? []) as Obj[])].map((u) => ({ value: u.id, label: userLabel(u), group: 'Users' as const }));
}

async function roles(where: ReturnType<typeof place>): Promise<AutoChoice[]> {
  if (!where.guildId) return [];
  const list = await cached<Obj[]>(`/guilds/${where.guildId}/roles`);
  // @everyone (the role with the guild's ID) is not offered, as publicly.
  return list.filter((r) => r.id !== where.guildId).sort((a, b) => b.position - a.position).map((r) => ({ value: r.id, label: `@${r.name}`, group: 'Roles' as const }));
}

async function channels(where: ReturnType<typeof place>, types?: number[]): Promise<AutoChoice[]> {
  if (!where.guildId) return [];
  const list = await cached<Obj[]>(`/guilds/${where.guildId}/channels`);
  return list
    .filter((c) => (types && types.length > 0 ? types.includes(c.type) : c.type !== 4))
    .sort((a, b) => a.position - b.position)
    .map((c) => ({ value: c.id, label: c.type === 2 ? `🔊 ${c.name}` : `#${c.name}`, group: 'Channels' as const }));
}

export async function autoSelectChoices(type: number, channelTypes?: number[]): Promise<AutoChoice[]> {
  const where = place();
  if (type === 5) return users(where);
  if (type === 6) return roles(where);
  if (type === 7) return [...(await users(where)), ...(await roles(where))];
  if (type === 8) return channels(where, channelTypes);
  return [];
}

export const isAutoSelect = (type: number) => type >= 5 && type <= 8;

/**
 * A `<select>` of an auto-populated select: choosing calls `onValues` with the chosen IDs (and the element).
 * `default_values` ({id, type}) start chosen.
 */
export function AutoSelect({ c, onValues, name, disabled }: { c: Obj; onValues: (values: string[], el: HTMLSelectElement) => void; name?: string; disabled?: boolean }) {
  const [choices, setChoices] = useState<AutoChoice[] | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    autoSelectChoices(c.type, c.channel_types).then((x) => live && setChoices(x), () => live && setFailed(true));
    return () => void (live = false);
  }, [c.type, JSON.stringify(c.channel_types ?? null)]);
  const multi = (c.max_values ?? 1) > 1;
  const defaults = new Set(((c.default_values ?? []) as { id: string }[]).map((d) => d.id));
  const groups = [...new Set((choices ?? []).map((x) => x.group))];
  const option = (x: AutoChoice) => <option key={x.value} value={x.value} selected={defaults.has(x.value)}>{x.label}</option>;
  return (
    <select class="ui-input cmp-select" name={name} data-custom-id={c.custom_id} data-select-type={c.type} multiple={multi} disabled={disabled || c.disabled || choices === null} aria-label={c.placeholder ?? 'Select'} aria-busy={choices === null}
      onChange={(e) => onValues([...e.currentTarget.selectedOptions].map((o) => o.value).filter((v) => v !== ''), e.currentTarget)}>
      {!multi && <option value="">{failed ? 'Could not load the choices' : choices === null ? 'Loading…' : (c.placeholder ?? 'Choose…')}</option>}
      {groups.length > 1 ? groups.map((g) => <optgroup key={g} label={g}>{(choices ?? []).filter((x) => x.group === g).map(option)}</optgroup>) : (choices ?? []).map(option)}
    </select>
  );
}
