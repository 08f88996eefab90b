import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What the audit log needs from the HTTP request that caused a change, without threading it
 * through every route and service: `X-Audit-Log-Reason` (URI-encoded, up to 512 characters) and
 * who acted (resolved once, lazily, from the request's token). An onRequest hook runs the rest
 * of the request inside `runWithAuditContext`.
 */
export interface AuditRequestContext {
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

const storage = new AsyncLocalStorage<AuditRequestContext>();

export function runWithAuditContext(header: string | string[] | undefined, resolveActor: () => Promise<string | null>, next: () => void): void {
  let actor: Promise<string | null> | undefined;
  storage.run({ reason: decodeReason(header), actor: () => (actor ??= resolveActor().catch(() => null)), banned: new Set(), before: new Map(), pruned: 0 }, next);
}

export function auditRequest(): AuditRequestContext | undefined {
  return storage.getStore();
}

export function currentAuditReason(): string | null {
  return storage.getStore()?.reason ?? null;
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
