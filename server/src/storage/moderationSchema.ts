/**
 * Tables of migration 0012_search_automod_audit (issue 11): the search index state per guild,
 * PostgreSQL's search rows (SQLite's FTS5 table is reached with raw SQL), AutoMod rules and the
 * audit log. They join schema.ts's Database by module augmentation, as commerceSchema.ts does.
 */
declare module './schema.ts' {
  interface Database {
    message_search_guilds: MessageSearchGuildsTable;
    message_search: MessageSearchTable;
    automod_rules: AutomodRulesTable;
    audit_log_entries: AuditLogEntriesTable;
  }
}

export interface MessageSearchGuildsTable {
  guild_id: string;
  /** 0 building, 1 ready. */
  state: number;
  cursor: string | null;
  target: string | null;
  indexed: number | string;
  started_at: number | string;
  updated_at: number | string;
}

/** PostgreSQL only. */
export interface MessageSearchTable {
  message_id: string;
  guild_id: string;
  channel_id: string;
  author_id: string;
  meta: string;
  tsv: unknown;
}

export interface AutomodRulesTable {
  id: string;
  guild_id: string;
  name: string;
  creator_id: string;
  event_type: number;
  trigger_type: number;
  trigger_metadata: string;
  actions: string;
  enabled: number;
  exempt_roles: string;
  exempt_channels: string;
  created_at: number | string;
}

export interface AuditLogEntriesTable {
  id: string;
  guild_id: string;
  user_id: string | null;
  action_type: number;
  target_id: string | null;
  changes: string | null;
  options: string | null;
  reason: string | null;
  created_at: number | string;
}
