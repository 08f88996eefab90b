import type { ServerContext } from '../ServerContext.ts';
import { userTopic } from '../events/EventBus.ts';
import type { ActivityService } from './ActivityService.ts';

/**
 * Tells the web app sessions of everyone in the instance (and of those who just left) who is in it
 * now: ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE {application_id, instance_id, users}, which the
 * activity page passes on to the activity as the SDK event of that name.
 */
export async function announceParticipants(ctx: ServerContext, activities: ActivityService, applicationId: string, instanceId: string, also: string[] = []): Promise<void> {
  const instance = await activities.instance(applicationId, instanceId).catch(() => undefined);
  const users = instance?.users ?? [];
  const firstParty = (await ctx.store.applications.firstParty()).id;
  const json = JSON.stringify({ application_id: applicationId, instance_id: instanceId, users });
  ctx.bus.publishMany(Array.from(new Set([...users, ...also]), (userId) => userTopic(firstParty, userId)), { t: 'ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE', json });
}

/**
 * Participation lives as long as the user's web app is connected (issue 17, gap "a crashed
 * browser stays listed"): the activity page runs inside the web app, whose Gateway session is
 * the liveness signal we already have. When the user's last Gateway session of the first-party
 * application ends (a clean close at once, a dropped socket after the resume grace period, a
 * missed heartbeat the same), they leave every instance they were in, and the others hear it.
 * A page that leaves normally has already left (unmount or pagehide), so this changes nothing then.
 */
export function expireWithGatewaySession(ctx: ServerContext, activities: ActivityService): { stop(): Promise<void> } {
  let firstParty: string | undefined;
  let stopped = false;
  // Work in flight, awaited on close so nothing touches the store after it closes.
  const running = new Set<Promise<void>>();
  const off = ctx.connections.onChange((applicationId, userId, connected) => {
    if (connected || stopped) return;
    const work = (async () => {
      firstParty ??= (await ctx.store.applications.firstParty()).id;
      if (applicationId !== firstParty) return;
      for (const instance of await activities.repo.instancesOf(userId)) {
        await activities.leave(instance.application_id, instance.id, userId);
        await announceParticipants(ctx, activities, instance.application_id, instance.id, [userId]);
        await embeddedEnded(ctx, activities, instance.application_id, userId);
      }
    })().catch((err: unknown) => {
      if (!stopped) ctx.log.warn({ err }, 'activity participation expiry failed');
    });
    running.add(work);
    void work.finally(() => running.delete(work));
  });
  return {
    async stop() {
      stopped = true;
      off();
      await Promise.all([...running]);
    },
  };
}

/**
 * The user left an instance of the application: unless they are still in another of its
 * instances (another channel, another tab), the application no longer runs for them as an embedded
 * activity, and the rich presence it set (SET_ACTIVITY) ends.
 */
export async function embeddedEnded(ctx: ServerContext, activities: ActivityService, applicationId: string, userId: string): Promise<void> {
  if ((await activities.repo.instancesOf(userId)).some((i) => i.application_id === applicationId)) return;
  await ctx.social.presence.setEmbedded(applicationId, userId, false);
}
