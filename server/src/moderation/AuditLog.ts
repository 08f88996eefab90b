import type { Kysely, Transaction } from 'kysely';
import type { EventBus } from '../events/EventBus.ts';
import { GuildEvents } from '../guilds/GuildEvents.ts';
import { Permission } from '../guilds/permissions.ts';
import type { Database } from '../storage/schema.ts';
import type { Store } from '../storage/Store.ts';
import type { AuditLogEntriesTable } from '../storage/moderationSchema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Public audit log action types (discord-api-types AuditLogEvent) that this server records. */
export const AuditAction = {
  GuildUpdate: 1,
  ChannelCreate: 10,
  ChannelUpdate: 11,
  ChannelDelete: 12,
  ChannelOverwriteCreate: 13,
  ChannelOverwriteUpdate: 14,
  ChannelOverwriteDelete: 15,
  MemberKick: 20,
  MemberPrune: 21,
  MemberBanAdd: 22,
  MemberBanRemove: 23,
  MemberUpdate: 24,
  MemberRoleUpdate: 25,
  RoleCreate: 30,
  RoleUpdate: 31,
  RoleDelete: 32,
  InviteCreate: 40,
  InviteUpdate: 41,
  InviteDelete: 42,
  MessageDelete: 72,
  MessageBulkDelete: 73,
  MessagePin: 74,
  MessageUnpin: 75,
  AutoModerationRuleCreate: 140,
  AutoModerationRuleUpdate: 141,
  AutoModerationRuleDelete: 142,
  AutoModerationBlockMessage: 143,
  VoiceChannelStatusUpdate: 192,
  VoiceChannelStatusDelete: 193,
} as const;

export interface AuditChange {
  key: string;
  old_value?: unknown;
  new_value?: unknown;
}

export interface AuditInput {
  guildId: string;
  /** Who acted; null for the system (AutoMod blocks name the author instead, as publicly). */
  userId: string | null;
  actionType: number;
  targetId?: string | null;
  changes?: AuditChange[];
  options?: Record<string, string>;
  /** Defaults to the request's X-Audit-Log-Reason. */
  reason?: string | null;
}

/** The public Audit Log Entry object. */
export interface AuditLogEntryWire {
  id: string;
  guild_id?: string;
  target_id: string | null;
  changes?: AuditChange[];
  user_id: string | null;
  action_type: number;
  options?: Record<string, string>;
  reason?: string;
}

export function entryWire(r: AuditLogEntriesTable): AuditLogEntryWire {
  return {
    id: r.id,
    target_id: r.target_id,
    ...(r.changes ? { changes: JSON.parse(r.changes) as AuditChange[] } : {}),
    user_id: r.user_id,
    action_type: r.action_type,
    ...(r.options ? { options: JSON.parse(r.options) as Record<string, string> } : {}),
    ...(r.reason ? { reason: r.reason } : {}),
  };
}

/** `changes` of the fields whose value differs between two objects (only `keys`). */
export function diff(before: Record<string, unknown> | null, after: Record<string, unknown> | null, keys: string[]): AuditChange[] {
  const out: AuditChange[] = [];
  for (const key of keys) {
    const o = before?.[key];
    const n = after?.[key];
    if (JSON.stringify(o) === JSON.stringify(n)) continue;
    out.push({ key, ...(o !== undefined ? { old_value: o } : {}), ...(n !== undefined ? { new_value: n } : {}) });
  }
  return out;
}

/**
 * The guild audit log: entries are written by the services that make each change (after the
 * change; the reason comes from the request), kept 45 days as publicly, listed by
 * GET /guilds/{id}/audit-logs (VIEW_AUDIT_LOG), and announced as GUILD_AUDIT_LOG_ENTRY_CREATE to
 * members holding VIEW_AUDIT_LOG (intent GUILD_MODERATION).
 */
export class AuditLog {
  private readonly events: GuildEvents | null;

  constructor(private readonly store: Store, bus: EventBus | null) {
    this.events = bus ? new GuildEvents(store, bus) : null;
  }

  async record(input: AuditInput, db: Db = this.store.database.db): Promise<AuditLogEntryWire> {
    const now = Date.now();
    const row: AuditLogEntriesTable = {
      id: this.store.ids.next(now),
      guild_id: input.guildId,
      user_id: input.userId,
      action_type: input.actionType,
      target_id: input.targetId ?? null,
      changes: input.changes && input.changes.length > 0 ? JSON.stringify(input.changes) : null,
      options: input.options ? JSON.stringify(input.options) : null,
      reason: input.reason ?? null,
      created_at: now,
    };
    await db.insertInto('audit_log_entries').values(row).execute();
    const wire = entryWire(row);
    await this.events?.publish(input.guildId, 'GUILD_AUDIT_LOG_ENTRY_CREATE', { ...wire, guild_id: input.guildId }, { kind: 'permission', bit: Permission.ViewAuditLog }).catch(() => 0);
    return wire;
  }

  /** Newest first unless only `after` is given (then oldest first after it), as publicly. */
  async list(guildId: string, q: { userId?: string; actionType?: number; before?: string; after?: string; limit: number }): Promise<AuditLogEntriesTable[]> {
    const cutoff = Date.now() - RETENTION_MS;
    let sel = this.store.database.db.selectFrom('audit_log_entries').selectAll().where('guild_id', '=', guildId).where('created_at', '>=', cutoff);
    if (q.userId !== undefined) sel = sel.where('user_id', '=', q.userId);
    if (q.actionType !== undefined) sel = sel.where('action_type', '=', q.actionType);
    // IDs are 19-digit snowflakes: text order is numeric order.
    if (q.before !== undefined) sel = sel.where('id', '<', q.before.padStart(19, '0'));
    if (q.after !== undefined) sel = sel.where('id', '>', q.after.padStart(19, '0'));
    const ascending = q.after !== undefined && q.before === undefined;
    const rows = await sel.orderBy('id', ascending ? 'asc' : 'desc').limit(q.limit).execute();
    return rows;
  }
}

/** Entries older than 45 days are not listed (public retention). */
const RETENTION_MS = 45 * 24 * 3600_000;

const byStore = new WeakMap<Store, AuditLog>();

/** One audit log per store; the first caller with a bus makes it publish events. */
export function auditLogFor(store: Store, bus?: EventBus | null): AuditLog {
  let a = byStore.get(store);
  if (!a && bus) byStore.set(store, (a = new AuditLog(store, bus)));
  return a ?? new AuditLog(store, null);
}
