/**
 * Tables and columns that migration 0006_webhooks adds. They live apart from schema.ts (which
 * several slices extend at once) and join it by module augmentation.
 */
declare module './schema.ts' {
  interface Database {
    application_keys: ApplicationKeysTable;
    webhook_settings: WebhookSettingsTable;
  }
  interface WebhookEventsTable {
    last_attempt_at?: number | string | null;
    last_status?: number | null;
    last_error?: string | null;
    latency_ms?: number | null;
    skipped_at?: number | string | null;
  }
}

export interface ApplicationKeysTable {
  application_id: string;
  public_key: string;
  private_key: string;
  created_at: number | string;
}

export interface WebhookSettingsTable {
  application_id: string;
  url: string | null;
  status: number;
  types: string;
  last_error: string | null;
  disabled_at: number | string | null;
  lease_owner: string | null;
  lease_until: number | string;
  retry_at: number | string;
  failing_since: number | string | null;
  updated_at: number | string;
}
