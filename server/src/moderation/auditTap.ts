import type { Store } from '../storage/Store.ts';
import { onGuildEvent } from '../guilds/guildEventTaps.ts';
import { AuditAction, auditLogFor, diff, type AuditChange } from './AuditLog.ts';
import type { AuditScope } from './auditContext.ts';
import { channelWire, guildWire, memberWire, roleWire } from '../guilds/guildWire.ts';

type Wire = Record<string, unknown>;

const CHANNEL_KEYS = ['name', 'type', 'topic', 'nsfw', 'rate_limit_per_user', 'bitrate', 'user_limit', 'parent_id', 'position', 'permission_overwrites'];
const ROLE_KEYS = ['name', 'permissions', 'color', 'hoist', 'mentionable', 'unicode_emoji'];
const GUILD_KEYS = ['name', 'icon', 'banner', 'description', 'owner_id', 'system_channel_id', 'features'];
const MEMBER_KEYS = ['nick', 'communication_disabled_until', 'mute', 'deaf', 'flags'];
const INVITE_KEYS = ['code', 'channel_id', 'max_uses', 'max_age', 'temporary', 'uses'];

/** An update that was read before and changed nothing audited is no entry. */
function changed<T extends { changes: AuditChange[] }>(before: Wire | undefined, entry: T): T | undefined {
  return before && entry.changes.length === 0 ? undefined : entry;
}

/** An update's changes: old and new values of the keys that differ when the object was read before the request, else the new values. */
function updated(before: Wire | undefined, after: Wire, keys: string[]): AuditChange[] {
  return before ? diff(before, after, keys) : values(after, keys, 'new_value');
}

/** Changes as the public shape has them for a create (`new_value`) or a delete (`old_value`). */
function values(o: Wire, keys: string[], side: 'new_value' | 'old_value'): AuditChange[] {
  return keys.filter((k) => o[k] !== undefined).map((k) => ({ key: k, [side]: o[k] }));
}

/**
 * Audit entries for the guild issue's changes (channels, roles, members, bans, invites, the guild
 * itself), derived from the dispatch each change publishes, so the guild services need not know
 * the audit log's shapes. Only changes made by an HTTP request are recorded: the routes pass the request's audit
 * scope down to `GuildEvents.publish` (the actor is the request's user, the reason its
 * X-Audit-Log-Reason). Updates through the routes that `snapshotBefore` knows carry
 * old and new values of what changed (a role change of a member is MEMBER_ROLE_UPDATE with
 * `$add`/`$remove`); other updates list the new values; creates carry `new_value`, deletes
 * `old_value`. A member removing themselves (leaving) or editing themselves is not audited.
 */
export function installAuditTap(store: Store): () => void {
  return onGuildEvent(store, async (guildId, t, payload, req) => {
    if (!req) return;
    const p = payload as Wire;
    let roleUpdate: { id: string; added: string[]; removed: string[] } | undefined;
    let overwrites: OverwriteEntry[] = [];
    const entry = ((): { actionType: number; targetId?: string | null; changes?: AuditChange[]; options?: Record<string, string> } | undefined => {
      switch (t) {
        case 'GUILD_UPDATE': return changed(req.before.get(`guild:${guildId}`), { actionType: AuditAction.GuildUpdate, targetId: guildId, changes: updated(req.before.get(`guild:${guildId}`), p, GUILD_KEYS) });
        case 'CHANNEL_CREATE': return { actionType: AuditAction.ChannelCreate, targetId: p.id as string, changes: values(p, CHANNEL_KEYS, 'new_value') };
        case 'CHANNEL_UPDATE': {
          const before = req.before.get(`channel:${p.id as string}`);
          // Overwrite changes are their own entries (13-15); the channel update keeps the other fields.
          if (before) overwrites = overwriteEntries(p.id as string, before.permission_overwrites as Overwrite[], p.permission_overwrites as Overwrite[]);
          const changes = updated(before, p, before ? CHANNEL_KEYS.filter((k) => k !== 'permission_overwrites') : CHANNEL_KEYS);
          return before && changes.length === 0 ? undefined : { actionType: AuditAction.ChannelUpdate, targetId: p.id as string, changes };
        }
        case 'CHANNEL_DELETE': return { actionType: AuditAction.ChannelDelete, targetId: p.id as string, changes: values(p, CHANNEL_KEYS, 'old_value') };
        case 'GUILD_ROLE_CREATE': return { actionType: AuditAction.RoleCreate, targetId: (p.role as Wire).id as string, changes: values(p.role as Wire, ROLE_KEYS, 'new_value') };
        case 'GUILD_ROLE_UPDATE': {
          const role = p.role as Wire;
          const before = req.before.get(`role:${role.id as string}`);
          return changed(before, { actionType: AuditAction.RoleUpdate, targetId: role.id as string, changes: updated(before, role, ROLE_KEYS) });
        }
        case 'GUILD_ROLE_DELETE': return { actionType: AuditAction.RoleDelete, targetId: p.role_id as string };
        case 'INVITE_CREATE': return { actionType: AuditAction.InviteCreate, targetId: null, changes: values(p, INVITE_KEYS, 'new_value') };
        case 'INVITE_DELETE': return { actionType: AuditAction.InviteDelete, targetId: null, changes: values(p, INVITE_KEYS, 'old_value') };
        case 'GUILD_BAN_ADD': {
          const id = (p.user as Wire).id as string;
          req.banned.add(id);
          return { actionType: AuditAction.MemberBanAdd, targetId: id };
        }
        case 'GUILD_BAN_REMOVE': return { actionType: AuditAction.MemberBanRemove, targetId: (p.user as Wire).id as string };
        case 'GUILD_MEMBER_REMOVE': {
          const id = (p.user as Wire).id as string;
          if (isPrune(req.route)) {
            req.pruned++;
            return undefined;
          }
          return req.banned.has(id) ? undefined : { actionType: AuditAction.MemberKick, targetId: id };
        }
        case 'GUILD_MEMBER_UPDATE': {
          const id = (p.user as Wire).id as string;
          const before = req.before.get(`member:${guildId}:${id}`);
          // Role changes are their own entry (25) with `$add`/`$remove`; the rest is a member update (24).
          if (before) {
            const old = new Set(before.roles as string[]);
            const now = new Set(p.roles as string[]);
            const added = [...now].filter((r) => !old.has(r));
            const removed = [...old].filter((r) => !now.has(r));
            if (added.length > 0 || removed.length > 0) roleUpdate = { id, added, removed };
            const changes = updated(before, p, MEMBER_KEYS);
            return changes.length > 0 ? { actionType: AuditAction.MemberUpdate, targetId: id, changes } : undefined;
          }
          return { actionType: AuditAction.MemberUpdate, targetId: id, changes: values(p, MEMBER_KEYS, 'new_value') };
        }
        default: return undefined;
      }
    })();
    if (!entry && !roleUpdate && overwrites.length === 0) return;
    const actor = await req.actor();
    if (actor === null) return;
    for (const o of overwrites) {
      const roleName = o.options.type === '0' ? (await store.guilds.role(o.options.id))?.name : undefined;
      await auditLogFor(store).record({ guildId, userId: actor, reason: req.reason, ...o, options: { ...o.options, ...(roleName !== undefined ? { role_name: roleName } : {}) } });
    }
    if (roleUpdate) {
      const roles = await store.guilds.roles(guildId);
      const named = (ids: string[]) => ids.map((id) => ({ id, name: roles.find((r) => r.id === id)?.name ?? '' }));
      const changes: AuditChange[] = [];
      if (roleUpdate.added.length > 0) changes.push({ key: '$add', new_value: named(roleUpdate.added) });
      if (roleUpdate.removed.length > 0) changes.push({ key: '$remove', new_value: named(roleUpdate.removed) });
      await auditLogFor(store).record({ guildId, userId: actor, reason: req.reason, actionType: AuditAction.MemberRoleUpdate, targetId: roleUpdate.id, changes });
    }
    if (!entry) return;
    // Leaving a guild, or editing oneself, is not a moderation action.
    if ((t === 'GUILD_MEMBER_REMOVE' || t === 'GUILD_MEMBER_UPDATE') && entry.targetId === actor) return;
    await auditLogFor(store).record({ guildId, userId: actor, reason: req.reason, ...entry });
  });
}

/**
 * preHandler: reads the object a PATCH (or a member role PUT/DELETE, or an overwrite PUT/DELETE) is about to change, so the
 * update's entry can name old values. One read on those routes only.
 */
export async function snapshotBefore(store: Store, req: AuditScope | null, method: string, url: string | undefined, params: Record<string, string>, body?: unknown): Promise<void> {
  if (!req || !url) return;
  const days = (body as { days?: unknown } | undefined)?.days;
  req.route = { method, url, ...(params.guild_id ? { guildId: params.guild_id } : {}), ...(typeof days === 'number' ? { days } : {}) };
  const { channel_id: channelId, guild_id: guildId, role_id: roleId, user_id: userId } = params;
  if (((method === 'PATCH' && url === '/api/v10/channels/:channel_id') || url === '/api/v10/channels/:channel_id/permissions/:overwrite_id') && channelId) {
    const c = await store.guilds.channel(channelId);
    if (c) req.before.set(`channel:${channelId}`, channelWire(c) as unknown as Wire);
  } else if (method === 'PATCH' && url === '/api/v10/guilds/:guild_id/roles/:role_id' && roleId) {
    const r = await store.guilds.role(roleId);
    if (r) req.before.set(`role:${roleId}`, roleWire(r) as unknown as Wire);
  } else if (method === 'PATCH' && url === '/api/v10/guilds/:guild_id' && guildId) {
    const g = await store.guilds.get(guildId);
    if (g) req.before.set(`guild:${guildId}`, guildWire(g, []) as unknown as Wire);
  } else if (guildId && userId && userId !== '@me' && (url === '/api/v10/guilds/:guild_id/members/:user_id' || url === '/api/v10/guilds/:guild_id/members/:user_id/roles/:role_id') && method !== 'GET') {
    const m = await store.guildMembers.get(guildId, userId);
    if (m) req.before.set(`member:${guildId}:${userId}`, memberWire(m) as unknown as Wire);
  }
}

function isPrune(route: AuditScope['route']): boolean {
  return route?.method === 'POST' && route.url === '/api/v10/guilds/:guild_id/prune';
}

/** After a prune request: one MEMBER_PRUNE (21) entry with `delete_member_days` and `members_removed`. */
export async function recordPrune(store: Store, req: AuditScope | null): Promise<void> {
  if (!req || !isPrune(req.route) || req.pruned === 0 || !req.route?.guildId) return;
  const actor = await req.actor();
  if (actor === null) return;
  await auditLogFor(store).record({
    guildId: req.route.guildId,
    userId: actor,
    reason: req.reason,
    actionType: AuditAction.MemberPrune,
    targetId: null,
    options: { delete_member_days: String(req.route.days ?? 7), members_removed: String(req.pruned) },
  });
}

interface Overwrite { id: string; type: number; allow: string; deny: string }
type OverwriteEntry = { actionType: number; targetId: string; changes: AuditChange[]; options: { id: string; type: string } };

/** CHANNEL_OVERWRITE_CREATE/UPDATE/DELETE (13/14/15) for each overwrite added, changed or removed; target the channel. */
function overwriteEntries(channelId: string, before: Overwrite[], after: Overwrite[]): OverwriteEntry[] {
  const out: OverwriteEntry[] = [];
  const opts = (o: Overwrite) => ({ id: o.id, type: String(o.type) });
  for (const o of after) {
    const old = before.find((b) => b.id === o.id);
    if (!old) out.push({ actionType: AuditAction.ChannelOverwriteCreate, targetId: channelId, changes: values(o as unknown as Wire, ['id', 'type', 'allow', 'deny'], 'new_value'), options: opts(o) });
    else if (old.allow !== o.allow || old.deny !== o.deny) out.push({ actionType: AuditAction.ChannelOverwriteUpdate, targetId: channelId, changes: diff(old as unknown as Wire, o as unknown as Wire, ['allow', 'deny']), options: opts(o) });
  }
  for (const o of before) {
    if (!after.some((a) => a.id === o.id)) out.push({ actionType: AuditAction.ChannelOverwriteDelete, targetId: channelId, changes: values(o as unknown as Wire, ['id', 'type', 'allow', 'deny'], 'old_value'), options: opts(o) });
  }
  return out;
}
