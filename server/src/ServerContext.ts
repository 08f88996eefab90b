import type { IncomingMessage } from 'node:http';
import type { ConnectionTracker } from './events/ConnectionTracker.ts';
import type { EventBus } from './events/EventBus.ts';
import type { LobbyService } from './lobbies/LobbyService.ts';
import type { Logger } from './log/Logger.ts';
import type { RateLimiter } from './http/RateLimiter.ts';
import type { AccountServices } from './accounts/accountServices.ts';
import type { SocialServices } from './social/SocialServices.ts';
import type { Store } from './storage/Store.ts';
import type { ApplicationService } from './applications/ApplicationService.ts';
import type { UrlPolicy } from './config/urlPolicy.ts';
import type { WebhookService } from './webhooks/WebhookService.ts';

/** What route handlers and the Gateway share (accounts and OAuth2 services included). */
export interface ServerContext extends AccountServices {
  store: Store;
  bus: EventBus;
  connections: ConnectionTracker;
  lobbies: LobbyService;
  /** Relationships, presence, invites and direct messages (issue 6). */
  social: SocialServices;
  log: Logger;
  /** Developer portal and REST rules for applications, approval included. */
  applications: ApplicationService;
  /** Which URLs applications may register (production or development mode). */
  urlPolicy: UrlPolicy;
  /** Webhook event settings (event_webhooks_* fields, verify_key), deliveries, send again (issue 15). */
  webhooks: WebhookService;
  /** Null when rate limits are off (benchmarks measuring raw throughput). */
  rateLimiter: RateLimiter | null;
  /** http(s)://host:port as the caller reached us. */
  publicHttpUrl(req: IncomingMessage): string;
  /** ws(s)://host:port/gateway as the caller reached us. */
  publicWsUrl(req: IncomingMessage): string;
}

/** The origin the request was addressed to, so URLs we hand out work from where the client is. */
export function requestOrigin(req: IncomingMessage, fallbackHost: string): { secure: boolean; host: string } {
  const forwardedProto = req.headers['x-forwarded-proto'];
  const secure = (typeof forwardedProto === 'string' && forwardedProto.split(',')[0]!.trim() === 'https') || Boolean((req.socket as { encrypted?: boolean }).encrypted);
  const host = typeof req.headers.host === 'string' && /^[A-Za-z0-9.\-:[\]]+$/.test(req.headers.host) ? req.headers.host : fallbackHost;
  return { secure, host };
}
