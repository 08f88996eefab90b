import { type EventBus, userTopic } from '../events/EventBus.ts';

/**
 * Publishes one dispatch, serialized once, to each user's sessions in one application. Topics
 * are per (application, user), so a user's sessions in several games each get their own copy,
 * and a session that lost its socket still buffers it for Resume. A string `d` is taken as JSON
 * already serialized (presence fan-out serializes one view per application).
 */
export function publish(bus: EventBus, applicationId: string, userIds: Iterable<string>, t: string, d: unknown): void {
  const dispatch = { t, json: typeof d === 'string' ? d : JSON.stringify(d) };
  bus.publishMany(Array.from(userIds, (id) => userTopic(applicationId, id)), dispatch);
}
