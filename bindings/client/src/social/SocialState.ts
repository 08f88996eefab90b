import type { ActivityWire, PresenceStatus, RelationshipWire } from '@social-layer/protocol';
import { ConversationCache } from './ConversationCache.ts';

/** What the client keeps of one relationship (RelationshipHandle reads it). */
export interface RelationshipRecord {
  id: string;
  type: number;
  gameType: number;
  isSpamRequest: boolean;
  hasPlayedGame: boolean;
  since: string;
}

/** What the client keeps of one user's presence, as this application sees it. */
export interface PresenceRecord {
  status: PresenceStatus;
  activities: ActivityWire[];
}

/**
 * Social state beside the lobby state in ClientState: relationships, friends' presences, our own
 * chosen status and activity, and the per-conversation DM cache. Rebuilt from READY.
 */
export class SocialState {
  readonly relationships = new Map<string, RelationshipRecord>();
  readonly presences = new Map<string, PresenceRecord>();
  readonly conversations = new ConversationCache();
  /** The application this client's session belongs to (gameActivity picks its activity). */
  applicationId: string | undefined;
  /** The status we chose (setOnlineStatus / READY user_settings). */
  selfStatus: PresenceStatus = 'online';
  /** Our own rich presence as last set (with the join secret, which friends never see). */
  selfActivity: ActivityWire | undefined;

  static record(w: RelationshipWire): RelationshipRecord {
    return {
      id: w.id,
      type: w.type,
      gameType: w.game_type,
      isSpamRequest: w.is_spam_request === true,
      hasPlayedGame: w.has_played_game === true,
      since: w.since,
    };
  }

  clear(): void {
    this.relationships.clear();
    this.presences.clear();
    this.conversations.clear();
    this.selfActivity = undefined;
  }
}
