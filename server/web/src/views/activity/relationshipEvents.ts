/**
 * RELATIONSHIP_UPDATE for the activity (issue 17). The web app's Gateway session hears the user's
 * RELATIONSHIP_ADD / _UPDATE / _REMOVE (as the first-party app sees them: platform friends,
 * requests and blocks); for each one the host rereads the relationship list with the activity's
 * own token (so the server applies relationships.read and the activity's view, game
 * relationships included) and sends the entry for that user, type 0 when it is gone.
 */
import { onDispatch } from '../../api/GatewayClient.ts';
import { activityApi, withActivityToken } from './activityApi.ts';
import { sdkRelationship, type UserLike } from './sdkEvents.ts';

const GATEWAY_EVENTS = new Set(['RELATIONSHIP_ADD', 'RELATIONSHIP_UPDATE', 'RELATIONSHIP_REMOVE']);

export interface RelationshipWatch {
  /** The activity's AUTHENTICATE token and scopes, null before it authenticated. */
  auth(): { token: string; scopes: string[] } | null;
  /** Whether the activity subscribed to RELATIONSHIP_UPDATE. */
  subscribed(): boolean;
  dispatch(data: ReturnType<typeof sdkRelationship>): void;
  /** Injectable for tests: the Gateway dispatches, the relationship list, a user by id. */
  on?: typeof onDispatch;
  list?: (token: string) => Promise<{ type: number; user: UserLike }[]>;
  user?: (id: string) => Promise<UserLike | null>;
}

/** Starts listening; returns the function that stops. */
export function watchRelationships(w: RelationshipWatch): () => void {
  const on = w.on ?? onDispatch;
  const list = w.list ?? ((token: string) => withActivityToken<{ type: number; user: UserLike }[]>(token, '/users/@me/relationships'));
  const userById = w.user ?? ((id: string) => activityApi.user(id).catch(() => null));
  // Users seen in ADD/UPDATE, so a REMOVE (which carries only the id) names them without a request.
  const seen = new Map<string, UserLike>();
  return on((event, data) => {
    if (!GATEWAY_EVENTS.has(event)) return;
    const d = data as { id?: unknown; user?: UserLike } | null;
    if (typeof d?.id !== 'string') return;
    const id = d.id;
    if (d.user?.id === id) seen.set(id, d.user);
    const auth = w.auth();
    if (!w.subscribed() || !auth || !auth.scopes.includes('relationships.read')) return;
    void (async () => {
      const rows = await list(auth.token).catch(() => null);
      if (!rows) return;
      const row = rows.find((r) => r.user?.id === id);
      const user = row?.user ?? seen.get(id) ?? (await userById(id));
      if (user && w.subscribed()) w.dispatch(sdkRelationship(row?.type ?? 0, user));
    })();
  });
}
