import type { ConnectionTracker } from './events/ConnectionTracker.ts';
import type { EventBus } from './events/EventBus.ts';
import type { LobbyService } from './lobbies/LobbyService.ts';
import type { LinkedChannelService } from './lobbies/LinkedChannelService.ts';
import type { Logger } from './log/Logger.ts';
import type { RateLimiter } from './http/RateLimiter.ts';
import type { SessionStartLimit } from './gateway/SessionStartLimit.ts';
import type { AccountServices } from './accounts/accountServices.ts';
import type { SocialServices } from './social/SocialServices.ts';
import type { Store } from './storage/Store.ts';
import type { ApplicationService } from './applications/ApplicationService.ts';
import type { UrlPolicy } from './config/urlPolicy.ts';
import type { WebhookService } from './webhooks/WebhookService.ts';
import type { CommerceService } from './commerce/index.ts';
import type { VoiceStateService } from './voice/VoiceStateService.ts';
import type { InteractionService } from './interactions/InteractionService.ts';

/** What route handlers and the Gateway share (accounts and OAuth2 services included). */
export interface ServerContext extends AccountServices {
  store: Store;
  bus: EventBus;
  connections: ConnectionTracker;
  lobbies: LobbyService;
  /** Lobbies linked to guild text channels: linking, lobby channel invites, the mirror (issue 12). Set by startServer. */
  linkedChannels?: LinkedChannelService;
  /** Relationships, presence, invites and direct messages (issue 6). */
  social: SocialServices;
  log: Logger;
  /** Developer portal and REST rules for applications, approval included. */
  applications: ApplicationService;
  /** Which URLs applications may register (production or development mode). */
  urlPolicy: UrlPolicy;
  /** Webhook event settings (event_webhooks_* fields, verify_key), deliveries, send again (issue 15). */
  webhooks: WebhookService;
  /** SKUs, entitlements, subscriptions and purchases (issue 14). */
  commerce: CommerceService;
  /** Null when rate limits are off (benchmarks measuring raw throughput). */
  rateLimiter: RateLimiter | null;
  /** Gateway Identify budgets (GET /gateway/bot); null when rate limits are off. */
  sessionStarts: SessionStartLimit | null;
  /** The configured public origin, http(s)://host:port (http/publicUrl.ts); never the request's Host. */
  publicHttpUrl(): string;
  /** ws(s)://host:port/gateway from the same public origin. */
  publicWsUrl(): string;
  /** Who is in which call (lobby and guild voice): Get User Voice State reads it. Set by startServer. */
  voiceStates?: VoiceStateService;
  /** Application commands and interactions (issue 13). Set by startServer. */
  interactions?: InteractionService;
  /** The activity proxy host, `host[:port]` without the application ID (issue 17). Set by startServer. */
  activityProxyHost?: () => string;
  /** The data folder (message attachments are stored under it by default, issue 11). Set by startServer. */
  dataDir?: string;
}
