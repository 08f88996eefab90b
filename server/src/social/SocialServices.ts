import type { ConnectionTracker } from '../events/ConnectionTracker.ts';
import type { EventBus } from '../events/EventBus.ts';
import type { Logger } from '../log/Logger.ts';
import type { Store } from '../storage/Store.ts';
import type { SocialReadyData } from '@social-layer/protocol';
import { parsePresenceUpdate } from './activityCheck.ts';
import { DirectMessageService } from './DirectMessageService.ts';
import { InviteService } from './InviteService.ts';
import { PresenceService } from './PresenceService.ts';
import { RelationshipService } from './RelationshipService.ts';

/** The social graph's services, wired once per server; routes and the Gateway share them. */
export class SocialServices {
  readonly presence: PresenceService;
  readonly relationships: RelationshipService;
  readonly invites: InviteService;
  readonly directMessages: DirectMessageService;

  constructor(
    private readonly store: Store,
    bus: EventBus,
    connections: ConnectionTracker,
    log: Logger,
  ) {
    this.presence = new PresenceService(store, bus, connections, log.child({ scope: 'presence' }));
    this.relationships = new RelationshipService(store, bus, this.presence);
    this.invites = new InviteService(store, bus, this.presence, log.child({ scope: 'invites' }));
    this.directMessages = new DirectMessageService(store, bus);
  }

  close(): void {
    this.presence.close();
  }

  /** What READY adds for a user session: relationships, friends' presences, own status, open invites. */
  async readyData(applicationId: string, userId: string): Promise<SocialReadyData> {
    // Recorded here as well as on connect, so the dispatches of anything done right after READY
    // already find this application among the user's.
    await this.store.socialSettings.markPlayed(applicationId, userId);
    return {
      relationships: await this.relationships.list(applicationId, userId),
      presences: await this.presence.friendsPresences(applicationId, userId),
      user_settings: { status: await this.presence.chosenStatus(userId) },
      activity_invites: await this.invites.pending(applicationId, userId),
    };
  }

  /**
   * Gateway op 3 (and Identify `presence`): validated exactly as the REST routes are. Returns
   * false for an invalid payload, which the connection answers with close code 4001.
   */
  async gatewayPresenceUpdate(applicationId: string, userId: string, d: unknown): Promise<boolean> {
    let update;
    try {
      update = parsePresenceUpdate(d);
    } catch {
      return false;
    }
    await this.presence.applyUpdate(applicationId, userId, { status: update.status, activities: update.activities });
    return true;
  }
}
