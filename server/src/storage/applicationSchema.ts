/**
 * Columns that migration 0004_applications adds to `applications`. They live apart from
 * schema.ts (which several slices extend at once) and join it by module augmentation; optional,
 * because rows written elsewhere need not name them (the columns have defaults).
 */
declare module './schema.ts' {
  interface ApplicationsTable {
    /** The account that created the application in the developer portal; null for operator-made ones. */
    owner_id?: string | null;
    description?: string;
    /** Hash of the current icon; the image (a data URI) is in icon_data. */
    icon?: string | null;
    icon_data?: string | null;
    /** Every flag bit as a decimal string; the old integer `flags` column is no longer read. */
    flags_new?: string;
    /** JSON of the public integration_types_config map. */
    integration_types_config?: string | null;
    /** JSON array of up to 5 tags. */
    tags?: string | null;
    /** 1 once the developer enabled the social SDK in the portal. */
    social_sdk?: number;
    /** 'pre_approval' | 'requested' | 'approved' (see applications/approval.ts). */
    approval?: string;
    approval_requested_at?: number | string | null;
    approved_at?: number | string | null;
    /** 1 for the platform's own client (the web app). */
    first_party?: number;
    /** 1: the application's bot sessions get obfuscated channels (portal toggle, migration 0010). */
    channel_obfuscation?: number;
  }
}

export {};
