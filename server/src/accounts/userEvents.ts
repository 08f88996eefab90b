import type { EventBus } from '../events/EventBus.ts';
import { guildUserTopic } from '../guilds/GuildEvents.ts';
import type { User } from '@social-layer/protocol';

/**
 * USER_UPDATE: the public Gateway tells every session of a user when that user's own object
 * changes (the RPC companion relays it as CURRENT_USER_UPDATE). It rides the per-user topic that
 * every session of the user subscribes to, whatever the application, and needs no intent.
 */
export function announceUserUpdate(bus: EventBus, user: User): void {
  bus.publish(guildUserTopic(user.id), { t: 'USER_UPDATE', json: JSON.stringify(user) });
}
