import type { Transaction } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { Store } from '../storage/Store.ts';
import { userToWire } from '../storage/UserRepo.ts';
import { guildWire } from './guildWire.ts';

type Tx = Transaction<Database>;

/** `integration_type` of an install to a guild (1 is a user install, OAuth2's path). */
export const GUILD_INSTALL = 0;

async function guildPayload(store: Store, tx: Tx, guildId: string) {
  const guild = await store.guilds.get(guildId, tx);
  return guild ? guildWire(guild, await store.guilds.roles(guildId, tx)) : undefined;
}

/**
 * APPLICATION_AUTHORIZED for a bot added to a guild (protocols.md 7: `integration_type` 0, the
 * `scopes`, the `user` who added it and the `guild`), written in the install's transaction so the
 * event exists exactly when the membership does.
 */
export async function recordBotInstalled(store: Store, tx: Tx, applicationId: string, guildId: string, installerId: string, scopes: string[]): Promise<void> {
  const user = await tx.selectFrom('users').selectAll().where('id', '=', installerId).executeTakeFirst();
  const guild = await guildPayload(store, tx, guildId);
  await store.webhookEvents.record(tx, applicationId, 'APPLICATION_AUTHORIZED', {
    integration_type: GUILD_INSTALL,
    scopes,
    ...(user ? { user: userToWire(user) } : {}),
    ...(guild ? { guild } : {}),
  });
}

/**
 * APPLICATION_DEAUTHORIZED for every application whose bot is among `removedUserIds` (kicked,
 * banned, pruned, or leaving by itself), in the removal's transaction. The public payload is
 * `{user}`: here the user who removed the bot (the bot's own user when it left); we add
 * `integration_type` 0 and the `guild` so a receiver knows which install ended.
 */
export async function recordBotsRemoved(store: Store, tx: Tx, guildId: string, removedUserIds: readonly string[], actorId: string): Promise<void> {
  if (removedUserIds.length === 0) return;
  const apps = await tx.selectFrom('applications').select('id').where('bot_user_id', 'in', [...removedUserIds]).execute();
  if (apps.length === 0) return;
  const actor = await tx.selectFrom('users').selectAll().where('id', '=', actorId).executeTakeFirst();
  const guild = await guildPayload(store, tx, guildId);
  for (const app of apps) {
    await store.webhookEvents.record(tx, app.id, 'APPLICATION_DEAUTHORIZED', {
      ...(actor ? { user: userToWire(actor) } : {}),
      integration_type: GUILD_INSTALL,
      ...(guild ? { guild } : {}),
    });
  }
}
