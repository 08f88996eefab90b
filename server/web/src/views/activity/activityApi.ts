import { RestClient } from '../../api/RestClient.ts';

/** The activity's REST calls: launch/join, leave, AUTHORIZE, and the host commands' reads. */
const rest = new RestClient();

export interface ActivityInstance {
  application_id: string;
  instance_id: string;
  launch_id: string;
  /** `lobby`: a lobby of the application (ours), whose ID is `channel_id`. */
  location: { id: string; kind: 'gc' | 'pc' | 'lobby'; channel_id: string; guild_id?: string };
  users: string[];
}

export interface ActivityLaunch {
  instance: ActivityInstance;
  activity_origin: string;
  supported_platforms: string[];
  orientation: string;
  participants: { id: string; username: string; global_name: string | null; avatar: string | null }[];
  /** The user's permissions in the channel, a decimal bitfield. */
  permissions: string;
}

export interface ShelfEntry {
  application_id: string;
  name: string;
  icon: string | null;
  instance: { instance_id: string; users: string[] } | null;
}

/** A lobby the user is in whose game has an activity (GET /users/@me/activity-lobbies). */
export interface LobbyShelfEntry {
  lobby_id: string;
  application_id: string;
  name: string;
  icon: string | null;
  member_count: number;
  instance: { instance_id: string; users: string[] } | null;
}

/** Where an activity launches: a guild channel or DM, or a lobby of the application. */
export type ActivityPlace = { channel_id: string } | { lobby_id: string };

/** The web app's link to an instance's place (shared links, the invite dialog). */
export function placeQuery(l: ActivityInstance['location']): Record<string, string> {
  if (l.kind === 'lobby') return { lobby_id: l.channel_id };
  return { channel_id: l.channel_id, ...(l.guild_id ? { guild_id: l.guild_id } : {}) };
}

export const activityApi = {
  shelf: (channelId: string) => rest.get<ShelfEntry[]>(`/channels/${channelId}/activities`),
  lobbies: () => rest.get<LobbyShelfEntry[]>('/users/@me/activity-lobbies'),
  launch: (applicationId: string, where: ActivityPlace, platform?: string) => rest.post<ActivityLaunch>(`/applications/${applicationId}/activity-instances`, { ...where, ...(platform ? { platform } : {}) }),
  leave: (applicationId: string, instanceId: string) => rest.request<void>('DELETE', `/applications/${applicationId}/activity-instances/${instanceId}/participants/@me`),
  authorize: (applicationId: string, instanceId: string, body: Record<string, unknown>) => rest.post<{ code: string }>(`/applications/${applicationId}/activity-instances/${instanceId}/authorize`, body),
  /** SET_ACTIVITY: the user's rich presence in the application while the activity runs (the stored activity comes back). */
  setPresence: (applicationId: string, instanceId: string, activity: Record<string, unknown>) => rest.request<Record<string, unknown>>('PUT', `/applications/${applicationId}/activity-instances/${instanceId}/activity`, activity),
  clearPresence: (applicationId: string, instanceId: string) => rest.request<void>('DELETE', `/applications/${applicationId}/activity-instances/${instanceId}/activity`),
  channel: (channelId: string) => rest.get<Record<string, unknown>>(`/channels/${channelId}`),
  /** A guild member (who is in the voice channel): the platform has no public GET /users/{id}. */
  member: (guildId: string, userId: string) => rest.get<{ nick?: string | null; user: { id: string; username: string; global_name: string | null; avatar: string | null; bot?: boolean } }>(`/guilds/${guildId}/members/${userId}`),
  user: (userId: string) => rest.get<{ id: string; username: string; global_name: string | null; avatar: string | null; bot?: boolean }>(`/users/${userId}`),
  application: (applicationId: string) => rest.get<{ id: string; name: string; description?: string; icon?: string | null }>(`/applications/${applicationId}/storefront`).catch(() => ({ id: applicationId, name: 'Activity' })),
};

/** A call with the activity's own access token (AUTHENTICATE's), so the server applies its scopes. */
export async function withActivityToken<T>(token: string, path: string): Promise<T> {
  const res = await fetch(`/api/v10${path}`, { headers: { authorization: `Bearer ${token}` }, cache: 'no-store' });
  const body = (await res.json().catch(() => undefined)) as T & { code?: number; message?: string };
  if (!res.ok) throw Object.assign(new Error(body?.message ?? `HTTP ${res.status}`), { status: res.status });
  return body;
}
