import type { ServerContext } from '../ServerContext.ts';
import { userTopic } from '../events/EventBus.ts';
import type { ActivityService } from './ActivityService.ts';
import { announceParticipants, embeddedEnded } from './activityLifetime.ts';

/**
 * Leaving a lobby ends the user's participation in that lobby's activity instance (issue 17): a
 * lobby instance is for the lobby's members, so when the user leaves the lobby (or is removed, or
 * the lobby is deleted) they leave the instance, the others hear ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE
 * and the last one out ends it, as when the Gateway session ends (activityLifetime.ts).
 *
 * The signal is the lobby service's own LOBBY_DELETE to the leaver (userTopic of the application,
 * on the bus, so a leave handled on another node is heard too); the node that let the user in
 * listens from the launch until they leave the instance. A node that restarts forgets its watches:
 * the membership is checked again at the next launch, and the Gateway-session expiry still applies.
 */
export function watchLobbyMembership(ctx: ServerContext, activities: () => ActivityService) {
  const watches = new Map<string, () => void>();
  let stopped = false;
  const running = new Set<Promise<void>>();
  const key = (instanceId: string, userId: string) => `${instanceId}:${userId}`;
  const forget = (instanceId: string, userId: string) => {
    watches.get(key(instanceId, userId))?.();
    watches.delete(key(instanceId, userId));
  };
  const end = (applicationId: string, instanceId: string, userId: string) => {
    forget(instanceId, userId);
    const work = (async () => {
      if (!(await activities().isParticipant(instanceId, userId))) return;
      await activities().leave(applicationId, instanceId, userId);
      await announceParticipants(ctx, activities(), applicationId, instanceId, [userId]);
      await embeddedEnded(ctx, activities(), applicationId, userId);
    })().catch((err: unknown) => {
      if (!stopped) ctx.log.warn({ err }, 'activity lobby leave failed');
    });
    running.add(work);
    void work.finally(() => running.delete(work));
  };
  return {
    /** The user is in `instanceId`, the instance of `lobbyId`: end it for them when they leave the lobby. */
    async watch(applicationId: string, lobbyId: string, instanceId: string, userId: string): Promise<void> {
      if (stopped || watches.has(key(instanceId, userId))) return;
      const off = ctx.bus.subscribe(userTopic(applicationId, userId), (d) => {
        if (d.t !== 'LOBBY_DELETE') return;
        let id: unknown;
        try {
          id = (JSON.parse(d.json) as { id?: unknown }).id;
        } catch {
          return;
        }
        if (id === lobbyId) end(applicationId, instanceId, userId);
      });
      watches.set(key(instanceId, userId), off);
      await ctx.bus.whenSubscribed(userTopic(applicationId, userId));
      // A leave between the launch's membership check and the subscription is caught here.
      if (!(await ctx.store.lobbies.member(lobbyId, userId))) end(applicationId, instanceId, userId);
    },
    forget,
    async stop(): Promise<void> {
      stopped = true;
      for (const off of watches.values()) off();
      watches.clear();
      await Promise.all([...running]);
    },
  };
}
