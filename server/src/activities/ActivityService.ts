import { invalidateMappings } from './proxyMappingsCache.ts';
import { ApiError, Errors } from '../errors/ApiError.ts';
import { GuildErrors } from '../guilds/guildErrors.ts';
import { viewChannel } from '../guilds/GuildAccess.ts';
import { DEFAULT_EVERYONE_PERMISSIONS, Permission, has } from '../guilds/permissions.ts';
import type { UrlPolicy } from '../config/urlPolicy.ts';
import { ActivityRepo, type ActivityInstancesTable } from '../storage/ActivityRepo.ts';
import { PrivateChannelRepo } from '../storage/PrivateChannelRepo.ts';
import type { Store } from '../storage/Store.ts';
import { type ActivityOrientation, type ActivityPlatform, type ActivitySettings, checkActivitySettings, DEFAULT_ACTIVITY_SETTINGS, type UrlMapping } from './activitySettings.ts';

/** The most applications one channel's activity shelf lists (the user's installed or authorized ones). */
const SHELF_LIMIT = 200;

/** Get Application Activity Instance's shape (protocols.md 2.5). */
export interface ActivityInstanceWire {
  application_id: string;
  instance_id: string;
  launch_id: string;
  /** `gc` guild channel, `pc` private channel (the public kinds), `lobby` a lobby of the application (ours; channel_id is the lobby's ID). */
  location: { id: string; kind: LocationKind; channel_id: string; guild_id?: string };
  users: string[];
}

export type LocationKind = 'gc' | 'pc' | 'lobby';
type Location = { id: string; kind: LocationKind; channel_id: string; guild_id?: string };

export const ActivityErrors = {
  // No public code: 0 with the reason, as for our other codes without a public one.
  notEnabled: () => new ApiError(400, 0, 'Activities are not enabled for this application'),
  unknownInstance: () => new ApiError(404, 0, 'Unknown Activity Instance'),
};

/**
 * Embedded apps (issue 17): an application's activity settings and its instances. An instance is
 * one per launch location (a guild channel or a private channel) while anyone is in it: the first
 * launch makes it, later launches join it, the last participant leaving ends it.
 */
export class ActivityService {
  readonly repo: ActivityRepo;
  private readonly privateChannels: PrivateChannelRepo;

  constructor(private readonly store: Store, private readonly urls: UrlPolicy) {
    this.repo = new ActivityRepo(store.database.db, store.ids, store.database.dialect === 'postgres');
    this.privateChannels = new PrivateChannelRepo(store.database.db, store.ids);
  }

  async settings(applicationId: string): Promise<ActivitySettings> {
    const row = await this.repo.settings(applicationId);
    if (!row) return { ...DEFAULT_ACTIVITY_SETTINGS };
    return {
      enabled: row.enabled === 1,
      url_mappings: JSON.parse(row.url_mappings) as UrlMapping[],
      supported_platforms: JSON.parse(row.supported_platforms) as ActivityPlatform[],
      orientation: row.orientation as ActivityOrientation,
    };
  }

  /** Checks every field (50035 with all problems) and writes nothing unless all pass; fields left out keep their value. */
  async updateSettings(applicationId: string, patch: Partial<ActivitySettings>): Promise<ActivitySettings> {
    const checked = await this.checkSettings(applicationId, patch);
    await this.repo.putSettings({
      application_id: applicationId,
      enabled: checked.enabled ? 1 : 0,
      url_mappings: JSON.stringify(checked.url_mappings),
      supported_platforms: JSON.stringify(checked.supported_platforms),
      orientation: checked.orientation,
      updated_at: Date.now(),
    });
    invalidateMappings(this.store, applicationId);
    return checked;
  }

  /** The settings an edit would leave, checked (50035), without writing: callers that write other things first. */
  async checkSettings(applicationId: string, patch: Partial<ActivitySettings>): Promise<ActivitySettings> {
    const app = await this.store.applications.get(applicationId);
    if (!app || app.first_party === 1) throw Errors.unknownApplication();
    return checkActivitySettings({ ...(await this.settings(applicationId)), ...patch }, this.urls);
  }

  /**
   * Launches or joins the application's instance where the user is: a guild channel they can see
   * and may use activities in (VIEW_CHANNEL, USE_EMBEDDED_ACTIVITIES; CONNECT too in a voice
   * channel), or a DM / group DM they are in.
   */
  async launch(applicationId: string, userId: string, where: string | { lobby_id: string }, outcome: { joined?: boolean } = {}): Promise<ActivityInstanceWire> {
    const app = /^\d{1,20}$/.test(applicationId) ? await this.store.applications.get(applicationId) : undefined;
    if (!app || app.first_party === 1) throw Errors.unknownApplication();
    if (!(await this.settings(applicationId)).enabled) throw ActivityErrors.notEnabled();
    const location = typeof where === 'string' ? await this.locationFor(userId, where) : await this.lobbyLocation(applicationId, userId, where.lobby_id);
    // The instance may end between finding it and joining it (its last participant left): then
    // a new one is made and joined (a few tries; each loss needs another leave to win a race).
    for (let attempt = 0; ; attempt++) {
      const instance = (await this.repo.instanceAt(applicationId, location.id)) ?? (await this.repo.createInstance({
        id: this.store.ids.next(),
        application_id: applicationId,
        launch_id: this.store.ids.next(),
        location_id: location.id,
        // The column holds 4 characters (migration 0018): a lobby is stored as `lb`.
        location_kind: location.kind === 'lobby' ? 'lb' : location.kind,
        guild_id: location.guild_id ?? null,
        channel_id: location.channel_id,
        created_at: Date.now(),
      }));
      const joined = await this.repo.joinIfExists(instance.id, userId, Date.now());
      if (joined !== 'gone') {
        outcome.joined = joined === 'joined';
        return this.wire(instance);
      }
      if (attempt >= 4) throw new Error('activity instance ended during every join attempt');
    }
  }

  /**
   * The activity shelf of a channel the user may launch in: applications with activities enabled
   * that are installed in the guild (their bot is a member) or that the user authorized before,
   * each with the instance running there, if any.
   */
  async shelf(userId: string, channelId: string): Promise<{ application_id: string; name: string; icon: string | null; instance: { instance_id: string; users: string[] } | null }[]> {
    const location = await this.locationFor(userId, channelId);
    // One query over every activity-enabled application (not a first page of the platform's):
    // installed here (its bot is a member of this guild) or authorized by this user. At most
    // SHELF_LIMIT of them, by id.
    const guildId = location.guild_id;
    const apps = await this.store.database.db
      .selectFrom('activity_settings as s')
      .innerJoin('applications as a', 'a.id', 's.application_id')
      .select(['a.id', 'a.name', 'a.icon'])
      .where('s.enabled', '=', 1)
      .where('a.first_party', '=', 0)
      .where((eb) => {
        const authorized = eb.exists(eb.selectFrom('oauth_authorizations as o').select('o.application_id').whereRef('o.application_id', '=', 'a.id').where('o.user_id', '=', userId));
        if (!guildId) return authorized;
        const installed = eb.exists(eb.selectFrom('guild_members as m').select('m.user_id').where('m.guild_id', '=', guildId).whereRef('m.user_id', '=', 'a.bot_user_id'));
        return eb.or([installed, authorized]);
      })
      .orderBy('a.id')
      .limit(SHELF_LIMIT)
      .execute();
    const out = [];
    for (const app of apps) {
      const running = await this.repo.instanceAt(app.id, location.id);
      out.push({ application_id: app.id, name: app.name, icon: app.icon ?? null, instance: running ? { instance_id: running.id, users: (await this.repo.participants(running.id)).map((p) => p.user_id) } : null });
    }
    return out;
  }

  /**
   * The web app's lobby shelf (ours): the lobbies the user is a member of whose application has
   * activities enabled, newest first, each with its member count and the instance running there.
   * A lobby is made by a game (the social SDK), so the application is the lobby's own.
   */
  async lobbyShelf(userId: string): Promise<{ lobby_id: string; application_id: string; name: string; icon: string | null; member_count: number; instance: { instance_id: string; users: string[] } | null }[]> {
    const rows = await this.store.database.db
      .selectFrom('lobby_members as m')
      .innerJoin('lobbies as l', 'l.id', 'm.lobby_id')
      .innerJoin('activity_settings as s', 's.application_id', 'l.application_id')
      .innerJoin('applications as a', 'a.id', 'l.application_id')
      .select(['l.id as lobby_id', 'a.id as application_id', 'a.name', 'a.icon'])
      .where('m.user_id', '=', userId)
      .where('s.enabled', '=', 1)
      .orderBy('l.id', 'desc')
      .limit(SHELF_LIMIT)
      .execute();
    const out = [];
    for (const r of rows) {
      const running = await this.repo.instanceAt(r.application_id, `lobby-${r.lobby_id}`);
      out.push({
        lobby_id: r.lobby_id,
        application_id: r.application_id,
        name: r.name,
        icon: r.icon ?? null,
        member_count: await this.store.lobbies.memberCount(r.lobby_id),
        instance: running ? { instance_id: running.id, users: (await this.repo.participants(running.id)).map((p) => p.user_id) } : null,
      });
    }
    return out;
  }

  /**
   * GET_CHANNEL_PERMISSIONS for the activity: the user's permissions in a guild channel (roles and
   * overwrites); in a DM, which has no roles, what @everyone gets in a new guild (our choice).
   */
  async channelPermissions(userId: string, channelId: string): Promise<string> {
    const guildChannel = /^\d{1,20}$/.test(channelId) ? await this.store.guilds.channel(channelId) : undefined;
    if (!guildChannel) {
      await this.locationFor(userId, channelId);
      return DEFAULT_EVERYONE_PERMISSIONS.toString();
    }
    const { view, channel } = await viewChannel(this.store, channelId, userId);
    return view.channelPermissions(channel).toString();
  }

  /** The user leaves; the instance ends with its last participant. */
  async leave(applicationId: string, instanceId: string, userId: string): Promise<void> {
    const instance = await this.repo.instance(instanceId);
    if (!instance || instance.application_id !== applicationId) throw ActivityErrors.unknownInstance();
    await this.repo.leaveAndEndIfEmpty(instanceId, userId);
  }

  /** Get Application Activity Instance: only the application's own instances (others read as unknown). */
  async instance(applicationId: string, instanceId: string): Promise<ActivityInstanceWire> {
    const instance = /^\d{1,20}$/.test(instanceId) ? await this.repo.instance(instanceId) : undefined;
    if (!instance || instance.application_id !== applicationId) throw ActivityErrors.unknownInstance();
    return this.wire(instance);
  }

  async isParticipant(instanceId: string, userId: string): Promise<boolean> {
    return (await this.repo.participants(instanceId)).some((p) => p.user_id === userId);
  }

  async wire(instance: ActivityInstancesTable): Promise<ActivityInstanceWire> {
    const users = (await this.repo.participants(instance.id)).map((p) => p.user_id);
    const location: ActivityInstanceWire['location'] = { id: instance.location_id, kind: instance.location_kind === 'lb' ? 'lobby' : (instance.location_kind as LocationKind), channel_id: instance.channel_id };
    if (instance.guild_id) location.guild_id = instance.guild_id;
    return { application_id: instance.application_id, instance_id: instance.id, launch_id: instance.launch_id, location, users };
  }

  /**
   * A lobby of the application (issue 17: "launching an activity in ... a lobby"): its members
   * launch there, `lobby-<lobby>` (ours; the public location kinds are gc and pc). Another
   * application's lobby reads as unknown, as the lobby routes answer it.
   */
  private async lobbyLocation(applicationId: string, userId: string, lobbyId: string): Promise<Location> {
    const lobby = /^\d{1,20}$/.test(lobbyId) ? await this.store.lobbies.get(lobbyId) : undefined;
    if (!lobby || lobby.application_id !== applicationId) throw Errors.unknownLobby();
    if (!(await this.store.lobbies.member(lobbyId, userId))) throw Errors.unknownLobby();
    return { id: `lobby-${lobby.id}`, kind: 'lobby', channel_id: lobby.id };
  }

  private async locationFor(userId: string, channelId: string): Promise<Location> {
    if (!/^\d{1,20}$/.test(channelId)) throw GuildErrors.unknownChannel();
    const guildChannel = await this.store.guilds.channel(channelId);
    if (guildChannel) {
      const { view, channel } = await viewChannel(this.store, channelId, userId);
      const perms = view.channelPermissions(channel);
      const voice = channel.type === 2 || channel.type === 13;
      if (!has(perms, Permission.UseEmbeddedActivities) || (voice && !has(perms, Permission.Connect))) throw GuildErrors.missingPermissions();
      // The public location id shape: gc-<guild>-<channel>, pc-<channel>.
      return { id: `gc-${channel.guild_id}-${channel.id}`, kind: 'gc', channel_id: channel.id, guild_id: channel.guild_id };
    }
    const dm = await this.privateChannels.get(channelId);
    if (!dm) throw GuildErrors.unknownChannel();
    if (!dm.userIds.includes(userId)) throw GuildErrors.missingAccess();
    return { id: `pc-${dm.id}`, kind: 'pc', channel_id: dm.id };
  }
}

const byStore = new WeakMap<Store, ActivityService>();

/** One service per store, shared by the routes, the portal and the proxy host. */
export function activityServiceFor(store: Store, urls: UrlPolicy): ActivityService {
  let s = byStore.get(store);
  if (!s) byStore.set(store, (s = new ActivityService(store, urls)));
  return s;
}
