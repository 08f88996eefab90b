import {
  SocialDispatchEvent,
  type ActivityWire,
  type PresenceStatus,
  type PresenceWire,
} from '@social-layer/protocol';
import type { ConnectionTracker } from '../events/ConnectionTracker.ts';
import type { EventBus } from '../events/EventBus.ts';
import { Errors } from '../errors/ApiError.ts';
import type { Logger } from '../log/Logger.ts';
import type { Store } from '../storage/Store.ts';
import { normalizeActivity, publicActivity, type ParsedActivity } from './activityCheck.ts';
import { publish } from './dispatch.ts';
import { KeyedQueue } from './KeyedQueue.ts';

type ActivityListener = (userId: string, applicationId: string) => void;
type PresenceListener = (userId: string) => void;

/**
 * Bus topic on which a node says "this user's chosen status changed": every other node drops its
 * cached copy (issue 18), so a READY built there does not show a status set on another node.
 */
const CHOSEN_CHANGED_TOPIC = 'cluster:presence-chosen';
/**
 * Bus topic carrying each change of a user's rich presence ({u, a, v}; v null when it ended): a
 * game's session lives on one node, but friends' READY and views are built on any (issue 18).
 */
const ACTIVITY_TOPIC = 'cluster:presence-activity';
/**
 * Bus topic carrying each PRESENCE_UPDATE a node sent about a user ({u, a, j}): every node that
 * remembers what it last sent about that user takes this as the last sent. Each node skipped a
 * view equal to the one it alone had sent last, so a change made through another node in between
 * was undone unseen: invisible through A, online through B, invisible through A again sent
 * nothing (friends kept seeing the user online), and a rich presence cleared through the node
 * that had sent the one before it stayed on friends' screens.
 */
const SENT_TOPIC = 'cluster:presence-sent';

interface AppInfo {
  id: string;
  name: string;
  parentId: string | null;
}

/**
 * Online status and rich presence, and their fan-out as PRESENCE_UPDATE to friends only.
 *
 * A user is online while they have a Gateway session in any application, with the status they
 * chose (invisible reads as offline to everyone else). Each application they are connected to
 * contributes one activity: the rich presence the game set, or else "Playing <application>", so a
 * friend can tell who is in their game. Friends in application X see only the activities of X and
 * its sibling applications (UserHandle.gameActivity is "this game's" presence), never the join
 * secret. Activities are memory only and end with the user's last session in that application;
 * the chosen status is stored and outlives sessions.
 */
export class PresenceService {
  /** Rich presence set by each user, per application. */
  private readonly activities = new Map<string, Map<string, ActivityWire>>();
  /** Applications each user runs as an embedded activity inside the web app (issue 17): they count as played. */
  private readonly embeddedApps = new Map<string, Set<string>>();
  private readonly chosen = new Map<string, PresenceStatus>();
  /** The last PRESENCE_UPDATE sent about a user to an application, so unchanged views go unsent. */
  private readonly lastSent = new Map<string, Map<string, string>>();
  private readonly apps = new Map<string, AppInfo>();
  private readonly queue = new KeyedQueue();
  private readonly activityListeners = new Set<ActivityListener>();
  private readonly presenceListeners = new Set<PresenceListener>();

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    /** Applications in which each user has a live session now, on any node (issue 18). */
    private readonly connections: ConnectionTracker,
    private readonly log: Logger,
  ) {
    this.offChosen = bus.subscribe(CHOSEN_CHANGED_TOPIC, (d) => this.chosen.delete(JSON.parse(d.json) as string));
    this.offActivity = bus.subscribe(ACTIVITY_TOPIC, (d) => {
      const m = JSON.parse(d.json) as { u: string; a: string; v: ActivityWire | null };
      this.applyActivity(m.u, m.a, m.v);
    });
    this.offSent = bus.subscribe(SENT_TOPIC, (d) => {
      const m = JSON.parse(d.json) as { u: string; a: string; j: string };
      this.lastSent.get(m.u)?.set(m.a, m.j);
    });
    // Back from a cut in the bus's subscription: what other nodes said meanwhile is lost, so
    // the statuses and last-sent views kept here may be stale; they are read or sent afresh.
    this.offResubscribed = bus.onResubscribed?.(() => {
      this.chosen.clear();
      this.lastSent.clear();
    });
    connections.onChange((applicationId, userId, connected) => {
      if (this.closed) return;
      this.onConnectionChange(applicationId, userId, connected).catch((err) => {
        if (!this.closed) this.log.error({ err }, 'presence change failed');
      });
    });
  }

  private closed = false;
  private readonly offChosen: () => void;
  private readonly offActivity: () => void;
  private readonly offSent: () => void;
  private readonly offResubscribed: (() => void) | undefined;

  /** Server shutdown: the sessions that end now are not news to anyone (the store closes next). */
  close(): void {
    this.closed = true;
    this.offChosen();
    this.offActivity();
    this.offSent();
    this.offResubscribed?.();
  }

  /** Called when a user's activity in an application changed or ended (invite validity follows it). */
  onActivityChange(listener: ActivityListener): () => void {
    this.activityListeners.add(listener);
    return () => this.activityListeners.delete(listener);
  }

  /**
   * Called after each change of a user's status or activities has gone to their friends, on the
   * node that made it (guild presences follow it: guilds/GuildPresenceFanout.ts).
   */
  onPresenceChange(listener: PresenceListener): () => void {
    this.presenceListeners.add(listener);
    return () => this.presenceListeners.delete(listener);
  }

  // ---- changes ------------------------------------------------------------------------------

  /** UpdateRichPresence: replaces the user's activity in this application. */
  async setActivity(applicationId: string, userId: string, activity: ParsedActivity): Promise<ActivityWire> {
    const app = await this.app(applicationId);
    const stored = normalizeActivity(activity, app, Date.now());
    this.putActivity(userId, applicationId, stored);
    await this.changed(userId, [applicationId]);
    return stored;
  }

  /** ClearRichPresence; the node serving it may not have the activity's copy, so the views are computed anyway (unchanged ones go unsent). */
  async clearActivity(applicationId: string, userId: string): Promise<void> {
    this.putActivity(userId, applicationId, null);
    await this.changed(userId, [applicationId]);
  }

  /** SetOnlineStatus: stored, and fanned out when it changes what friends see. */
  async setStatus(userId: string, status: PresenceStatus): Promise<void> {
    const value = status === 'offline' ? 'invisible' : status;
    await this.store.socialSettings.setChosenStatus(userId, value);
    this.chosenChanged(userId, value);
    await this.changed(userId, []);
  }

  /** Op 3 / Identify `presence`: status and the one activity of this application, each optional. */
  async applyUpdate(applicationId: string, userId: string, update: { status?: PresenceStatus; activities?: ParsedActivity[] }): Promise<void> {
    if (update.status !== undefined) {
      const value = update.status === 'offline' ? 'invisible' : update.status;
      if (value !== (await this.chosenStatus(userId))) {
        await this.store.socialSettings.setChosenStatus(userId, value);
        this.chosenChanged(userId, value);
      }
    }
    if (update.activities === undefined) return this.changed(userId, []);
    const [activity] = update.activities;
    // The status (if any) is already stored, so the activity's fan-out carries both.
    if (activity) await this.setActivity(applicationId, userId, activity);
    // No activity: cleared, whether or not this node has the copy (it may have been set through another).
    else await this.clearActivity(applicationId, userId);
  }

  /**
   * An embedded activity started or ended for the user (issue 17): while it runs, friends see the
   * application as played (its rich presence from SET_ACTIVITY, or "Playing <application>"); when
   * it ends, its rich presence ends with it, even if the game's own session lives on.
   */
  async setEmbedded(applicationId: string, userId: string, running: boolean): Promise<void> {
    let apps = this.embeddedApps.get(userId);
    if (running) {
      if (apps?.has(applicationId)) return;
      if (!apps) this.embeddedApps.set(userId, (apps = new Set()));
      apps.add(applicationId);
      await this.store.socialSettings.markPlayed(applicationId, userId);
      return this.changed(userId, []);
    }
    if (!apps?.delete(applicationId)) return;
    if (apps.size === 0) this.embeddedApps.delete(userId);
    const hadActivity = this.putActivity(userId, applicationId, null);
    await this.changed(userId, hadActivity ? [applicationId] : []);
  }

  // ---- reads --------------------------------------------------------------------------------

  async chosenStatus(userId: string): Promise<PresenceStatus> {
    let status = this.chosen.get(userId);
    if (status === undefined) {
      status = ((await this.store.socialSettings.chosenStatus(userId)) as PresenceStatus | undefined) ?? 'online';
      this.chosen.set(userId, status);
    }
    return status;
  }

  /** The user's own activity in an application, secrets included (for their own sessions). */
  ownActivity(applicationId: string, userId: string): ActivityWire | undefined {
    return this.activities.get(userId)?.get(applicationId);
  }

  isConnectedAnywhere(userId: string): boolean {
    return this.connections.appsOf(userId).size > 0;
  }

  /** The user's presence as sessions of `applicationId` see it (its family's activities only). */
  async viewFor(userId: string, applicationId: string, family?: readonly string[]): Promise<PresenceWire> {
    const apps = this.connections.appsOf(userId);
    // Nobody connected is offline whatever they chose: no need to read their setting.
    const chosen = apps.size > 0 ? await this.chosenStatus(userId) : 'invisible';
    const status: PresenceStatus = chosen === 'invisible' ? 'offline' : chosen;
    const activities: ActivityWire[] = [];
    if (status !== 'offline') {
      const visible = family ?? (await this.store.socialSettings.family(applicationId));
      for (const app of [...new Set([...apps, ...(this.embeddedApps.get(userId) ?? [])])].sort()) {
        if (!visible.includes(app)) continue;
        const own = this.activities.get(userId)?.get(app);
        activities.push(own ? publicActivity(own) : await this.playing(app));
      }
    }
    return { user: { id: userId }, status, activities, client_status: status === 'offline' ? {} : { web: status } };
  }

  /** Presences of the user's friends as one application sees them, for READY (offline ones left out). */
  async friendsPresences(applicationId: string, userId: string): Promise<PresenceWire[]> {
    const family = await this.store.socialSettings.family(applicationId);
    const out: PresenceWire[] = [];
    for (const friendId of await this.store.relationships.friendIds(userId, applicationId)) {
      const view = await this.viewFor(friendId, applicationId, family);
      if (view.status !== 'offline') out.push(view);
    }
    return out;
  }

  /**
   * Sends each of two users the other's presence in every application where that friendship now
   * counts (new friends must not wait for the next change to see each other).
   */
  async introduce(a: string, b: string): Promise<void> {
    for (const [viewer, subject] of [
      [a, b],
      [b, a],
    ] as const) {
      for (const appId of await this.store.socialSettings.applicationsOf(viewer)) {
        if (!(await this.store.relationships.areFriends(viewer, subject, appId))) continue;
        publish(this.bus, appId, [viewer], SocialDispatchEvent.PresenceUpdate, await this.viewFor(subject, appId));
      }
    }
  }

  // ---- fan-out ------------------------------------------------------------------------------

  /**
   * Sends the user's new presence to every friend's sessions whose view of it changed, and to the
   * user's own sessions (another tab or device must see a status set here). Serialized per user
   * so friends never end on an older view.
   */
  private changed(userId: string, activityApps: readonly string[]): Promise<void> {
    return this.queue.run(userId, async () => {
      const targets = new Map<string, string[]>();
      for (const { friendId, applicationId } of await this.store.relationships.friendSessions(userId)) {
        let list = targets.get(applicationId);
        if (!list) targets.set(applicationId, (list = []));
        list.push(friendId);
      }
      const connectedApps = this.connections.appsOf(userId);
      for (const appId of connectedApps) {
        if (!targets.has(appId)) targets.set(appId, []);
      }
      const sent = this.lastSent.get(userId) ?? new Map<string, string>();
      this.lastSent.set(userId, sent);
      for (const [appId, friends] of targets) {
        const json = JSON.stringify(await this.viewFor(userId, appId));
        if (sent.get(appId) === json) continue;
        sent.set(appId, json);
        const recipients = connectedApps.has(appId) ? [...friends, userId] : friends;
        publish(this.bus, appId, recipients, SocialDispatchEvent.PresenceUpdate, json);
        this.bus.publish(SENT_TOPIC, { t: 'PRESENCE_SENT', json: JSON.stringify({ u: userId, a: appId, j: json }) });
      }
      for (const appId of activityApps) for (const l of this.activityListeners) l(userId, appId);
      for (const l of this.presenceListeners) l(userId);
    });
  }

  /** The tracker announces each change once across the cluster: this node tells everyone concerned. */
  private async onConnectionChange(applicationId: string, userId: string, connected: boolean): Promise<void> {
    if (connected) {
      // Back from offline: what this node last sent about the user may predate an offline
      // announced by another node (one that reaped a dead node), so it says nothing now.
      if (this.connections.appsOf(userId).size <= 1) this.lastSent.delete(userId);
      await this.store.socialSettings.markPlayed(applicationId, userId);
      await this.chosenStatus(userId);
      await this.changed(userId, []);
      return;
    }
    // The game stopped: its rich presence ends with its last session (unless it still runs as an embedded activity).
    const hadActivity = this.embeddedApps.get(userId)?.has(applicationId) ? false : this.putActivity(userId, applicationId, null);
    await this.changed(userId, hadActivity ? [applicationId] : []);
    if (this.connections.appsOf(userId).size === 0) this.lastSent.delete(userId);
  }

  /**
   * Sets (or, with null, ends) the user's activity in an application, here and on every other
   * node. Returns whether there was one before.
   */
  private putActivity(userId: string, applicationId: string, activity: ActivityWire | null): boolean {
    const had = this.applyActivity(userId, applicationId, activity);
    // An end goes out even when this node had no copy (it started after the activity was set):
    // the nodes that have one must drop it, join secret and all.
    this.bus.publish(ACTIVITY_TOPIC, { t: 'ACTIVITY_SHARED', json: JSON.stringify({ u: userId, a: applicationId, v: activity }) });
    return had;
  }

  private applyActivity(userId: string, applicationId: string, activity: ActivityWire | null): boolean {
    let perApp = this.activities.get(userId);
    const had = perApp?.has(applicationId) ?? false;
    if (activity) {
      if (!perApp) this.activities.set(userId, (perApp = new Map()));
      perApp.set(applicationId, activity);
    } else if (perApp) {
      perApp.delete(applicationId);
      if (perApp.size === 0) this.activities.delete(userId);
    }
    return had;
  }

  /** Tells the other nodes first (this node hears it too, in-process), then caches the new value. */
  private chosenChanged(userId: string, value: PresenceStatus): void {
    this.bus.publish(CHOSEN_CHANGED_TOPIC, { t: 'CHOSEN_STATUS_CHANGED', json: JSON.stringify(userId) });
    this.chosen.set(userId, value);
  }

  /** "Playing <application>": what friends see of a game that set no rich presence. */
  private async playing(applicationId: string): Promise<ActivityWire> {
    const app = await this.app(applicationId);
    return { name: app.name, type: 0, application_id: app.id, parent_application_id: app.parentId };
  }

  /** Name and parent per application, read once: both change rarely, and only labels depend on them. */
  private async app(applicationId: string): Promise<AppInfo> {
    let info = this.apps.get(applicationId);
    if (!info) {
      const row = await this.store.applications.get(applicationId);
      if (!row) throw Errors.unknownApplication();
      info = { id: row.id, name: row.name, parentId: await this.store.socialSettings.parentOf(applicationId) };
      this.apps.set(applicationId, info);
    }
    return info;
  }
}
