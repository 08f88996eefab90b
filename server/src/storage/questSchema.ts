/**
 * Tables that migration 0016_quests adds, joined to the Database type by module augmentation
 * (schema.ts is extended by several slices at once).
 */
declare module './schema.ts' {
  interface Database {
    quests: QuestsTable;
    quest_enrollments: QuestEnrollmentsTable;
  }
}

export interface QuestsTable {
  id: string;
  application_id: string;
  name: string;
  description: string;
  starts_at: number | string;
  ends_at: number | string | null;
  created_at: number | string;
}

export interface QuestEnrollmentsTable {
  quest_id: string;
  user_id: string;
  enrolled_at: number | string;
}
