import type { APIGuild, APIGuildMember, APIRole, RESTAPIPartialCurrentUserGuild } from 'discord-api-types/v10';
import { useEffect, useState } from 'preact/hooks';
import type { RestClient } from '../api/RestClient.ts';
import type { GuildChannel } from '../model/channels.ts';
import { Reloads } from './reloads.ts';

export interface GuildDetail {
  guild: APIGuild;
  channels: GuildChannel[];
  roles: APIRole[];
  members: APIGuildMember[];
}

export interface State {
  guilds: RESTAPIPartialCurrentUserGuild[] | null;
  /** What the open guild shows, by guild ID (only the open one is kept fresh). */
  detail: Record<string, GuildDetail | undefined>;
  error: string | null;
  /**
   * Who is in which voice channel, by guild then user ID: seeded from GUILD_CREATE's
   * `voice_states` (people already in a channel when the page connected), then kept by
   * VOICE_STATE_UPDATE (both need intent GUILD_VOICE_STATES).
   */
  voice: Record<string, Record<string, string>>;
}

/**
 * The app's data and the REST calls that change it, in one place so views stay plain functions of
 * state. Later features (messages, commands, activities, purchases) add their slice and actions
 * here and their views beside the others.
 */
export class AppState {
  state: State = { guilds: null, detail: {}, error: null, voice: {} };
  private readonly listeners = new Set<() => void>();
  private readonly reloads = new Reloads();

  constructor(readonly rest: RestClient) {}

  private set(patch: Partial<State>): void {
    this.state = { ...this.state, ...patch };
    this.listeners.forEach((l) => l());
  }

  subscribe(l: () => void): () => void {
    this.listeners.add(l);
    return () => void this.listeners.delete(l);
  }

  showError(e: unknown): void {
    this.set({ error: e instanceof Error ? e.message : String(e) });
  }

  clearError(): void {
    this.set({ error: null });
  }

  /** A GUILD_CREATE: its `voice_states` are the whole picture of the guild's voice channels now. */
  guildCreate(d: { id: string; voice_states?: { channel_id: string | null; user_id: string }[] }): void {
    if (!Array.isArray(d.voice_states)) return;
    const guild: Record<string, string> = {};
    for (const v of d.voice_states) if (v.channel_id) guild[v.user_id] = v.channel_id;
    this.set({ voice: { ...this.state.voice, [d.id]: guild } });
  }

  /** A VOICE_STATE_UPDATE: the user is now in `channel_id` of the guild, or in none (null). */
  voiceStateUpdate(d: { guild_id?: string | null; channel_id: string | null; user_id: string }): void {
    if (!d.guild_id) return;
    const guild = { ...this.state.voice[d.guild_id] };
    if (d.channel_id) guild[d.user_id] = d.channel_id;
    else delete guild[d.user_id];
    this.set({ voice: { ...this.state.voice, [d.guild_id]: guild } });
  }

  /** Reloads the guild list; concurrent calls are folded (see Reloads). */
  loadGuilds(): Promise<void> {
    return this.reloads.run('guilds', async () => {
      this.set({ guilds: await this.rest.get<RESTAPIPartialCurrentUserGuild[]>('/users/@me/guilds') });
    });
  }

  /** Reloads what a guild's page shows; concurrent calls are folded (see Reloads). */
  loadGuild(guildId: string): Promise<void> {
    return this.reloads.run(`guild:${guildId}`, async () => {
      const [guild, channels, roles, members] = await Promise.all([
        this.rest.get<APIGuild>(`/guilds/${guildId}`),
        this.rest.get<GuildChannel[]>(`/guilds/${guildId}/channels`),
        this.rest.get<APIRole[]>(`/guilds/${guildId}/roles`),
        this.rest.get<APIGuildMember[]>(`/guilds/${guildId}/members?limit=1000`),
      ]);
      this.set({ detail: { ...this.state.detail, [guildId]: { guild, channels, roles, members } } });
    });
  }

  async createGuild(name: string): Promise<string> {
    const guild = await this.rest.post<{ id: string }>('/guilds', { name });
    await this.loadGuilds();
    return guild.id;
  }

  /** An invite to a channel that lasts 7 days with no use limit: the link people share. */
  async createInvite(channelId: string): Promise<string> {
    const invite = await this.rest.post<{ code: string }>(`/channels/${channelId}/invites`, { max_age: 604_800, max_uses: 0 });
    return invite.code;
  }

  async acceptInvite(code: string): Promise<string> {
    const invite = await this.rest.post<{ guild?: { id: string }; guild_id?: string }>(`/invites/${code}`);
    await this.loadGuilds();
    return invite.guild?.id ?? invite.guild_id ?? '';
  }
}

export function useAppState(store: AppState): State {
  const [state, setState] = useState(store.state);
  useEffect(() => store.subscribe(() => setState(store.state)), [store]);
  return state;
}
