import {
  SocialDispatchEvent,
  STATUS_TO_WIRE,
  StatusType,
  type ActivityWire,
  type PresenceStatus,
  type PresenceWire,
} from '@social-layer/protocol';
import type { Activity } from '../Activity.ts';
import { ClientResultError } from '../ClientResultError.ts';
import { activityToWire, checkActivity } from './activityWire.ts';
import { groupSignature } from './groups.ts';
import type { SocialContext } from './SocialContext.ts';

/** Statuses a user may choose (setOnlineStatus); the others are what the server reports. */
const SETTABLE: readonly StatusType[] = [StatusType.Online, StatusType.Idle, StatusType.Dnd, StatusType.Invisible];

/**
 * Online status and rich presence (social-sdk-api.md 3.6, 4.1-4.2). Presence reaches friends
 * only, as PRESENCE_UPDATE; this keeps each friend's latest and emits userUpdated when it changed
 * and relationshipGroupsUpdated when the friend's place in the groups may have.
 */
export class Presence {
  constructor(private readonly ctx: SocialContext) {}

  /** Sets this game's activity; rejects with ValidationError (no request) when it breaks a limit. */
  async updateRichPresence(activity: Activity): Promise<void> {
    const wire = activityToWire(checkActivity(activity));
    if (await this.viaDesktop('updateRichPresence', wire)) return;
    const stored = await this.ctx.http.request<ActivityWire>({ method: 'PUT', path: '/users/@me/activities', body: wire, auth: true });
    this.ctx.state.social.selfActivity = stored;
    this.announceSelf();
  }

  async clearRichPresence(): Promise<void> {
    if (await this.viaDesktop('clearRichPresence', null)) return;
    await this.ctx.http.request<void>({ method: 'DELETE', path: '/users/@me/activities', auth: true });
    this.ctx.state.social.selfActivity = undefined;
    this.announceSelf();
  }

  async setOnlineStatus(status: StatusType): Promise<void> {
    if (!SETTABLE.includes(status)) throw ClientResultError.validation('status must be Online, Idle, Dnd or Invisible');
    this.ctx.requireSession('setOnlineStatus');
    const result = await this.ctx.http.request<{ status: PresenceStatus }>({
      method: 'PATCH',
      path: '/users/@me/settings',
      body: { status: STATUS_TO_WIRE[status] },
      auth: true,
    });
    this.ctx.state.social.selfStatus = result.status;
    this.announceSelf();
  }

  onDispatch(event: string, data: unknown): boolean {
    if (event !== SocialDispatchEvent.PresenceUpdate) return false;
    this.apply(data as PresenceWire, true);
    return true;
  }

  /** Whether presence was last set through the desktop companion (cleared when we connect). */
  private setThroughDesktop = false;
  /** That clear, awaited before our own next change so it cannot land after it. */
  private desktopCleared: Promise<void> | undefined;

  /**
   * Without a session, presence goes to the desktop companion when the game has one, as the
   * native SDK sends it to the desktop app before Connect; otherwise the session is required.
   */
  private async viaDesktop(operation: string, wire: ActivityWire | null): Promise<boolean> {
    try {
      this.ctx.requireSession(operation);
      await this.desktopCleared;
      return false;
    } catch (notReady) {
      if (!this.ctx.desktopActivity || !(await this.ctx.desktopActivity(wire))) throw notReady;
      this.setThroughDesktop = wire !== null;
      return true;
    }
  }

  /** READY: friends' presences (offline ones are left out) and our own chosen status. */
  onReady(presences: PresenceWire[], selfStatus: PresenceStatus | undefined, announce: boolean): void {
    if (this.setThroughDesktop) {
      // The native rule: presence set through the desktop app is cleared when the Client connects.
      this.setThroughDesktop = false;
      this.desktopCleared = this.ctx.desktopActivity?.(null).then(
        () => undefined,
        () => undefined,
      );
    }
    const social = this.ctx.state.social;
    if (selfStatus) social.selfStatus = selfStatus;
    const seen = new Set(presences.map((p) => p.user.id));
    for (const id of [...social.presences.keys()]) {
      if (!seen.has(id)) this.apply({ user: { id }, status: 'offline', activities: [], client_status: {} }, announce);
    }
    for (const p of presences) this.apply(p, announce);
  }

  private apply(p: PresenceWire, announce: boolean): void {
    const state = this.ctx.state;
    const social = state.social;
    const id = p.user?.id;
    if (!id) return;
    if (id === state.selfId) {
      // Our own presence, changed from another session: 'offline' while we are here is invisible.
      const status = p.status === 'offline' ? 'invisible' : p.status;
      if (status !== social.selfStatus) {
        social.selfStatus = status;
        if (announce) this.ctx.emit('userUpdated', id);
      }
      return;
    }
    const before = social.presences.get(id);
    const signature = groupSignature(state, id);
    social.presences.set(id, { status: p.status, activities: p.activities ?? [] });
    // Seen playing this game: they have played it (the groups sort on that).
    const rel = social.relationships.get(id);
    if (rel && (p.activities ?? []).some((a) => a.application_id === social.applicationId)) rel.hasPlayedGame = true;
    const changed = !before || before.status !== p.status || JSON.stringify(before.activities) !== JSON.stringify(p.activities ?? []);
    if (announce && changed) this.ctx.emit('userUpdated', id);
    if (announce && groupSignature(state, id) !== signature) this.ctx.emit('relationshipGroupsUpdated', id);
  }

  private announceSelf(): void {
    const id = this.ctx.state.selfId;
    if (id) this.ctx.emit('userUpdated', id);
  }
}
