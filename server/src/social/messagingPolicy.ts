import type { Store } from '../storage/Store.ts';
import { PreparedListQuery } from '../storage/preparedListQuery.ts';

/** Asked on every DM and invite between players who are not friends: built once, one row is enough. */
const sharedLobby = new PreparedListQuery(2, (db, applicationIds: readonly string[], a: string, b: string) =>
  db
    .selectFrom('lobby_members as ma')
    .innerJoin('lobby_members as mb', 'mb.lobby_id', 'ma.lobby_id')
    .innerJoin('lobbies as l', 'l.id', 'ma.lobby_id')
    .select('ma.lobby_id')
    .where('ma.user_id', '=', a)
    .where('mb.user_id', '=', b)
    .where('l.application_id', 'in', applicationIds)
    .limit(1),
);

/**
 * Who may send a direct message (or an activity invite, which travels as one) to whom. The spec
 * allows DMs between players of the game who do not block each other, between friends, and
 * between users who have talked before; our rule for web games, checked on every send:
 *
 * 1. Never to yourself, never to a bot user, never when either user blocks the other.
 * 2. Friends may always write: platform friends, or game friends in the sending application.
 * 3. Lobby co-members may write: both are members of one lobby of the sending application or of
 *    a sibling application.
 * 4. Anyone may answer: when the recipient has written to the sender before (from this
 *    application family), the sender may reply, even after the lobby they met in is gone.
 *
 * Anything else is refused with 50007 (Cannot send messages to this user) and stores nothing.
 */
export async function canMessage(store: Store, applicationId: string, family: readonly string[], from: string, to: string): Promise<boolean> {
  if (from === to) return false;
  const recipient = await store.users.get(to);
  if (!recipient || recipient.is_bot === 1) return false;
  if (await store.relationships.blockedEitherWay(from, to)) return false;
  if (await store.relationships.areFriends(from, to, applicationId)) return true;
  if (await shareLobby(store, from, to, family)) return true;
  return store.directMessages.hasSent(to, from, family);
}

/** Whether both users are members of one lobby of the given applications. */
export async function shareLobby(store: Store, a: string, b: string, applicationIds: readonly string[]): Promise<boolean> {
  if (applicationIds.length === 0) return false;
  const db = store.database.db;
  return (await sharedLobby.all(db, db, applicationIds, a, b)).length > 0;
}
