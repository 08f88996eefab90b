import type { PresenceStatus } from '@social-layer/protocol';
import type { ConnectionTracker } from '../events/ConnectionTracker.ts';
import type { EventBus } from '../events/EventBus.ts';
import type { Logger } from '../log/Logger.ts';
import { KeyedQueue } from '../social/KeyedQueue.ts';
import type { PresenceService } from '../social/PresenceService.ts';
import type { Store } from '../storage/Store.ts';
import { type BotActivity, type BotPresence, parseBotPresence } from './botPresence.ts';
import { guildUserTopic } from './GuildEvents.ts';

/** A presence as guild members see it (public PRESENCE_UPDATE, less `guild_id`). */
export interface GuildPresence {
  user: { id: string };
  status: Exclude<PresenceStatus, 'invisible'>;
  activities: BotActivity[];
  client_status: { web?: string };
}

/** Bus topic carrying each bot's op 3 presence ({u, p}; p null once its last session ended): any node may build its GUILD_CREATE. */
const BOT_TOPIC = 'cluster:bot-presence';
/**
 * Bus topic carrying each guild PRESENCE_UPDATE a node sent about a user ({u, j}): every node
 * takes it as the last sent, so a change made through another node in between is never mistaken
 * for "unchanged" (the same reason as PresenceService's SENT_TOPIC).
 */
const SENT_TOPIC = 'cluster:guild-presence-sent';

/** How many guilds of a user one change reaches (READY lists as many). */
const MAX_GUILDS = 2500;

/**
 * Guild presences: PRESENCE_UPDATE with `guild_id` to the members of every guild the subject is
 * in; GuildGateway passes it only to sessions holding GUILD_PRESENCES (a privileged intent). The
 * subject is a user (their status from PresenceService: online while they have a Gateway session,
 * as they chose, invisible reading as offline) or a bot (online while it has a Gateway session,
 * with the status and activities of its last op 3). A user's rich presence is not part of it: a
 * game's activity is shown to friends in its own application family only (PresenceService), not
 * to every bot of every guild they share. Bots' presences live in memory on every node, shared
 * over the bus; who is connected comes from the trackers, so this works across nodes as friends'
 * presence does.
 */
export class GuildPresenceFanout {
  private readonly botPresences = new Map<string, BotPresence>();
  private readonly lastSent = new Map<string, string>();
  private readonly queue = new KeyedQueue();
  private readonly off: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly presence: PresenceService,
    /** Bots' Gateway sessions, on any node (users' are PresenceService's tracker). */
    private readonly bots: ConnectionTracker,
    private readonly log: Logger,
  ) {
    this.off.push(
      bus.subscribe(BOT_TOPIC, (d) => {
        const m = JSON.parse(d.json) as { u: string; p: BotPresence | null };
        if (m.p) this.botPresences.set(m.u, m.p);
        else this.botPresences.delete(m.u);
      }),
      bus.subscribe(SENT_TOPIC, (d) => {
        const m = JSON.parse(d.json) as { u: string; j: string | null };
        if (m.j === null) this.lastSent.delete(m.u);
        else this.lastSent.set(m.u, m.j);
      }),
      presence.onPresenceChange((userId) => this.changed(userId)),
      // The tracker announces each bot's first session and last one once across the cluster.
      bots.onChange((_applicationId, botUserId, connected) => {
        if (!connected) this.putBot(botUserId, null);
        this.changed(botUserId);
      }),
    );
    const offResubscribed = bus.onResubscribed?.(() => this.lastSent.clear());
    if (offResubscribed) this.off.push(offResubscribed);
  }

  close(): void {
    this.closed = true;
    for (const off of this.off.splice(0)) off();
  }

  /** Op 3 (or Identify `presence`) from a bot session: stored, shared, and sent to its guilds. False when malformed. */
  async botUpdate(botUserId: string, d: unknown): Promise<boolean> {
    const p = parseBotPresence(d);
    if (!p) return false;
    this.putBot(botUserId, p);
    await this.changed(botUserId);
    return true;
  }

  /** The subject's presence as guild members see it now. */
  async viewOf(userId: string): Promise<GuildPresence> {
    let status: PresenceStatus;
    let activities: BotActivity[] = [];
    if (this.bots.appsOf(userId).size > 0) {
      const p = this.botPresences.get(userId);
      status = p?.status ?? 'online';
      activities = p?.activities ?? [];
    } else {
      status = this.presence.isConnectedAnywhere(userId) ? await this.presence.chosenStatus(userId) : 'offline';
    }
    if (status === 'invisible' || status === 'offline') return { user: { id: userId }, status: 'offline', activities: [], client_status: {} };
    return { user: { id: userId }, status, activities, client_status: { web: status } };
  }

  /** The presences of those of `userIds` not offline, with `guild_id` (GUILD_CREATE and GUILD_MEMBERS_CHUNK). */
  async presencesIn(guildId: string, userIds: readonly string[]): Promise<(GuildPresence & { guild_id: string })[]> {
    const out: (GuildPresence & { guild_id: string })[] = [];
    for (const id of userIds) {
      const view = await this.viewOf(id);
      if (view.status !== 'offline') out.push({ ...view, guild_id: guildId });
    }
    return out;
  }

  /** Whether the subject shows as anything but offline to guild members. */
  async isOnline(userId: string): Promise<boolean> {
    return (await this.viewOf(userId)).status !== 'offline';
  }

  /** A user's or bot's presence may have changed: every member of their guilds hears the new one, once, in order. */
  private changed(userId: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    return this.queue.run(userId, () => this.send(userId)).catch((err: unknown) => {
      if (!this.closed) this.log.error({ err }, 'guild presence fan-out failed');
    });
  }

  private async send(userId: string): Promise<void> {
    const view = await this.viewOf(userId);
    const json = JSON.stringify(view);
    if (this.lastSent.get(userId) === json) return;
    // An offline view is the end of the story: forgotten once sent (a repeat of it is harmless).
    const remembered = view.status === 'offline' ? null : json;
    if (remembered === null) this.lastSent.delete(userId);
    else this.lastSent.set(userId, json);
    this.bus.publish(SENT_TOPIC, { t: 'GUILD_PRESENCE_SENT', json: JSON.stringify({ u: userId, j: remembered }) });
    for (const guildId of await this.store.guilds.idsOfUser(userId, MAX_GUILDS)) {
      if (this.closed) return;
      const members = (await this.store.guildMembers.userIds(guildId)).filter((id) => id !== userId);
      if (members.length === 0) continue;
      this.bus.publishMany(members.map(guildUserTopic), { t: 'PRESENCE_UPDATE', json: JSON.stringify({ ...view, guild_id: guildId }) });
    }
  }

  /** Sets (or, with null, forgets) a bot's presence here and on every other node. */
  private putBot(botUserId: string, p: BotPresence | null): void {
    if (p) this.botPresences.set(botUserId, p);
    else this.botPresences.delete(botUserId);
    this.bus.publish(BOT_TOPIC, { t: 'BOT_PRESENCE', json: JSON.stringify({ u: botUserId, p }) });
  }
}
