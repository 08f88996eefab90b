import type { ReadyData, User } from '@social-layer/protocol';
import type { ConnectionTracker } from '../events/ConnectionTracker.ts';
import type { GuildGateway } from '../guilds/GuildGateway.ts';
import type { GuildPresenceFanout } from '../guilds/GuildPresenceFanout.ts';
import type { LobbyService } from '../lobbies/LobbyService.ts';
import type { SocialServices } from '../social/SocialServices.ts';
import type { VoiceStateService } from '../voice/VoiceStateService.ts';
import type { ReadyStoreFields } from './readyFields.ts';
import type { RedisSessionStore, SessionMeta } from './RedisSessionStore.ts';
import type { Session } from './Session.ts';

export interface GatewayIdentity {
  kind: 'bearer' | 'bot';
  user: User;
  applicationId: string;
  /**
   * Whether the session hears its user's guilds (READY's guild list, GUILD_CREATE and the guild
   * dispatches): bots, the web app's session, and a game's token with `rpc` (the desktop
   * companion). A game's token otherwise reads no guild over REST, so none on the Gateway either:
   * only its own VOICE_STATE_UPDATE, which the SDK's guild voice call needs.
   */
  guildEvents: boolean;
}

/**
 * What one socket's protocol (GatewayConnection) needs of the Gateway that accepted it
 * (GatewayServer, which implements this and passes itself): the sessions, the services READY
 * and the ops reach, and the session lifecycle. An interface, so the server and its connections
 * do not import each other.
 */
export interface GatewayHub {
  readonly sessions: ReadonlyMap<string, Session>;
  readonly shared: RedisSessionStore | undefined;
  readonly heartbeatIntervalMs: number;
  readonly maxBufferedDispatches: number;
  readonly connections: ConnectionTracker;
  readonly lobbies: LobbyService;
  voice: VoiceStateService | null;
  social: SocialServices | null;
  guilds: GuildGateway | null;
  readyProfiles: ((applicationId: string, ready: ReadyData) => Promise<ReadyData>) | null;
  readyStoreFields: ((identity: { kind: 'bearer' | 'bot'; applicationId: string; userId: string }) => Promise<ReadyStoreFields>) | null;
  guildPresences: GuildPresenceFanout | null;
  authenticate(token: string): Promise<GatewayIdentity | undefined>;
  sessionStartAllowed(identity: GatewayIdentity): Promise<boolean>;
  register(session: Session, meta: SessionMeta): Promise<void>;
  heartbeat(session: Session): void;
  track(session: Session, kind: 'bearer' | 'bot'): void;
  detach(session: Session, graceful: boolean): void;
  orphan(session: Session): void;
  resumable(sessionId: string, token: string, identity: GatewayIdentity): Promise<Session | null>;
  /** `by` is the connection that resumed `session`; any other holding it is let go. */
  takeOver(session: Session, by: object): void;
  endSession(session: Session): void;
}
