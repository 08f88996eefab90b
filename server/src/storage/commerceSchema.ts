/**
 * Tables of migration 0009_commerce (issue 14). They live apart from schema.ts (which several
 * slices extend at once) and join it by module augmentation.
 */
declare module './schema.ts' {
  interface Database {
    skus: SkusTable;
    entitlements: EntitlementsTable;
    subscriptions: SubscriptionsTable;
    commerce_settings: CommerceSettingsTable;
  }
}

export interface SkusTable {
  id: string;
  application_id: string;
  type: number;
  name: string;
  slug: string;
  flags: number;
  price: number;
  billing_period_days: number | null;
  created_at: number | string;
}

export interface EntitlementsTable {
  id: string;
  application_id: string;
  sku_id: string;
  user_id: string | null;
  guild_id: string | null;
  type: number;
  starts_at: number | string | null;
  ends_at: number | string | null;
  consumed: number;
  deleted: number;
  test: number;
  subscription_id: string | null;
  created_at: number | string;
}

export interface SubscriptionsTable {
  id: string;
  application_id: string;
  user_id: string;
  sku_id: string;
  renewal_sku_ids: string;
  status: number;
  canceled_at: number | string | null;
  current_period_start: number | string;
  current_period_end: number | string;
  created_at: number | string;
  updated_at: number | string;
}

export interface CommerceSettingsTable {
  application_id: string;
  test_mode: number;
  updated_at: number | string;
}
