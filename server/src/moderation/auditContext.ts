/**
 * What the audit log needs from the HTTP request that caused a change: `X-Audit-Log-Reason`
 * (URI-encoded, up to 512 characters) and who acted (resolved once, lazily, from the request's
 * token). Each write request gets one scope (`req.audit`, set by the moderation route family's
 * onRequest hook), and the routes hand it to the guild services, which hand it to
 * `GuildEvents.publish`, where the audit tap reads it.
 *
 * Why explicit and not an AsyncLocalStorage: on Node 20 a store that was ever entered installs a
 * promise hook for the whole process, so every promise of every request, Gateway session and
 * fan-out paid for it (11-15% of a small request's CPU when it went, tools/README.md "Ninth session").
 */
export interface AuditScope {
  reason: string | null;
  /** The acting user (a bot's user for Bot tokens); null when the request is not authenticated. */
  actor: () => Promise<string | null>;
  /** Targets banned in this request: their GUILD_MEMBER_REMOVE is the ban, not a kick. */
  banned: Set<string>;
  /**
   * Objects as they were before the request changed them (`channel:<id>`, `role:<id>`,
   * `guild:<id>`, `member:<guild>:<user>`), read by a preHandler hook for the routes that update
   * them, so update entries carry `old_value`.
   */
  before: Map<string, Record<string, unknown>>;
  /** Set by the preHandler: the matched route, so a prune's removals become one MEMBER_PRUNE entry. */
  route?: { method: string; url: string; guildId?: string; days?: number };
  /** Members removed by this request's prune. */
  pruned: number;
}

export function auditScope(header: string | string[] | undefined, resolveActor: () => Promise<string | null>): AuditScope {
  let actor: Promise<string | null> | undefined;
  return { reason: decodeReason(header), actor: () => (actor ??= resolveActor().catch(() => null)), banned: new Set(), before: new Map(), pruned: 0 };
}

function decodeReason(header: string | string[] | undefined): string | null {
  const raw = Array.isArray(header) ? header[0] : header;
  if (!raw) return null;
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    text = raw;
  }
  text = text.trim();
  return text === '' ? null : text.slice(0, 512);
}
