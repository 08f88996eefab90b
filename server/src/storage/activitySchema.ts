/**
 * Tables that migration 0018_activities adds, joined to the Database type by module augmentation
 * (schema.ts is extended by several slices at once).
 */
declare module './schema.ts' {
  interface Database {
    activity_settings: ActivitySettingsTable;
    activity_instances: ActivityInstancesTable;
    activity_participants: ActivityParticipantsTable;
  }
}

export interface ActivitySettingsTable {
  application_id: string;
  enabled: number;
  /** JSON array of {prefix, target}. */
  url_mappings: string;
  /** JSON array of platform names. */
  supported_platforms: string;
  orientation: string;
  updated_at: number | string;
}

export interface ActivityInstancesTable {
  id: string;
  application_id: string;
  launch_id: string;
  location_id: string;
  /** 'gc' (guild channel) or 'pc' (private channel), as the public location object. */
  location_kind: string;
  guild_id: string | null;
  channel_id: string;
  created_at: number | string;
}

export interface ActivityParticipantsTable {
  instance_id: string;
  user_id: string;
  joined_at: number | string;
}
