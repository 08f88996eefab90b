import { RestClient } from '../../api/RestClient.ts';

/** A quest as GET /applications/{id}/quests answers a user (server: quests/QuestService.ts). */
export interface Quest {
  id: string;
  application_id: string;
  name: string;
  description: string;
  starts_at: string;
  ends_at: string | null;
  enrolled_at?: string | null;
}

export interface QuestEnrollment {
  quest_id: string;
  user_id: string;
  enrolled_at: string;
}

/**
 * The quests page's REST calls with the page's session token (the first-party web app may act
 * on every game's quests): the game's name (its storefront header), its open quests, enrolling.
 */
const rest = new RestClient();

export const questsApi = {
  game: (applicationId: string) => rest.get<{ id: string; name: string; description: string }>(`/applications/${applicationId}/storefront`),
  open: (applicationId: string) => rest.get<Quest[]>(`/applications/${applicationId}/quests`),
  enroll: (questId: string) => rest.post<QuestEnrollment>(`/quests/${questId}/enroll`),
};
