import type { ActivityWire, ReadyData, SocialReadyData, User } from '@social-layer/protocol';
import type { ClientState } from '../ClientState.ts';
import type { EventHub } from '../EventHub.ts';
import type { ClientEvents } from '../events.ts';
import type { HttpApi } from '../HttpApi.ts';
import type { Logger } from '../Logger.ts';
import { DirectMessages } from './DirectMessages.ts';
import { Invites } from './Invites.ts';
import { Presence } from './Presence.ts';
import { Relationships } from './Relationships.ts';
import type { SocialContext } from './SocialContext.ts';

type HeldEvent = { [K in keyof ClientEvents]: { event: K; args: Parameters<ClientEvents[K]> } }[keyof ClientEvents];

/**
 * The social half of the Client: relationships, presence, invites and direct messages. The
 * Client delegates its social methods here and hands over the dispatches it does not handle
 * itself. Events caused by READY are held until statusChanged(Ready) has gone out, as the lobby
 * events are, so listeners can already use Ready-only calls.
 */
export class Social {
  readonly relationships: Relationships;
  readonly presence: Presence;
  readonly invites: Invites;
  readonly directMessages: DirectMessages;
  private held: HeldEvent[] | undefined;

  constructor(deps: {
    http: HttpApi;
    state: ClientState;
    events: EventHub<ClientEvents>;
    logger: Logger;
    requireSession(operation: string): void;
    rememberUser(user: User, announce: boolean): void;
    desktopActivity?(activity: ActivityWire | null): Promise<boolean>;
  }) {
    const ctx: SocialContext = {
      http: deps.http,
      state: deps.state,
      logger: deps.logger,
      requireSession: deps.requireSession,
      rememberUser: deps.rememberUser,
      desktopActivity: deps.desktopActivity,
      emit: (event, ...args) => {
        if (this.held) this.held.push({ event, args } as HeldEvent);
        else deps.events.emit(event, ...args);
      },
    };
    this.emitNow = (e) => deps.events.emit(e.event, ...(e.args as [never, never]));
    this.state = deps.state;
    this.relationships = new Relationships(ctx);
    this.presence = new Presence(ctx);
    this.invites = new Invites(ctx);
    this.directMessages = new DirectMessages(ctx);
  }

  private readonly emitNow: (e: HeldEvent) => void;
  private readonly state: ClientState;

  /** Returns true when the dispatch was a social one. */
  onDispatch(event: string, data: unknown): boolean {
    return (
      this.relationships.onDispatch(event, data) ||
      this.presence.onDispatch(event, data) ||
      this.invites.onDispatch(event, data) ||
      this.directMessages.onDispatch(event, data)
    );
  }

  /** A fresh READY (not a Resume): rebuild from it, holding the events it causes. */
  onReady(ready: ReadyData & SocialReadyData, accountChanged: boolean): void {
    const social = this.state.social;
    if (accountChanged) social.clear();
    social.applicationId = ready.application?.id ?? social.applicationId;
    // Messages may have been missed while away, so the conversations must ask the server again.
    social.conversations.clear();
    this.held = [...(this.held ?? [])];
    // The first READY of a connection loads the lists silently (nothing was "created" for the
    // game); a later one, after a session was lost, reports what changed while we were away.
    const announce = this.loaded && !accountChanged;
    this.loaded = true;
    this.relationships.onReady(ready.relationships ?? [], announce);
    this.presence.onReady(ready.presences ?? [], ready.user_settings?.status, announce);
    this.invites.onReady(ready.activity_invites ?? []);
    // statusChanged(Ready) follows READY in the same tick; should no transition come (already
    // Ready), the held events must still go out rather than wait forever.
    queueMicrotask(() => this.flushHeld());
  }

  private loaded = false;

  /** statusChanged(Ready) went out: deliver what READY caused. */
  flushHeld(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const e of held) this.emitNow(e);
  }

  /** Disconnected: drop it all silently; the next READY rebuilds it. */
  reset(): void {
    this.held = undefined;
    this.loaded = false;
    this.state.social.clear();
  }
}
