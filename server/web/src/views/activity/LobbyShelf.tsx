import { useEffect, useState } from 'preact/hooks';
import { onDispatch } from '../../api/GatewayClient.ts';
import { Button, Panel } from '../../components/ui.tsx';
import { serialReload } from '../../state/reloads.ts';
import { navigate } from '../../state/router.ts';
import { activityApi, type LobbyShelfEntry } from './activityApi.ts';

/**
 * The lobby shelf (issue 17): the game lobbies the user is in whose game has an activity (GET
 * /users/@me/activity-lobbies), each with Start, or Join with its player count when the lobby's
 * instance runs; either opens the activity in the lobby (`/app/activity/ID?lobby_id=`). Lobbies
 * are made by games (the social SDK), so this only lists them. Reread when one of the user's own
 * instances changes (the Gateway's ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE, sent to participants
 * only) and when the tab comes back into view; the counts are otherwise as of the last read.
 * Shows nothing when there are none.
 */
export function LobbyShelf() {
  const [entries, setEntries] = useState<LobbyShelfEntry[]>([]);
  useEffect(() => {
    // Serial: a burst of updates must not end on an older read (state/reloads.ts).
    const load = serialReload(() => activityApi.lobbies().then(setEntries, () => {}));
    void load();
    const off = onDispatch((event) => event === 'ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE' && void load());
    const onVisible = () => document.visibilityState === 'visible' && void load();
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      off();
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, []);
  if (entries.length === 0) return null;
  const open = (e: LobbyShelfEntry) => {
    history.pushState(null, '', `/app/activity/${e.application_id}?${new URLSearchParams({ lobby_id: e.lobby_id })}`);
    navigate({ name: 'activity', applicationId: e.application_id }, true);
  };
  return (
    <Panel title="Game lobbies" id="lobby-shelf">
      <ul class="lobby-shelf">
        {entries.map((e) => (
          <li key={e.lobby_id} data-lobby-id={e.lobby_id} data-application-id={e.application_id}>
            <span class="lobby-shelf-name">
              {e.name}
              <span class="muted"> · {e.member_count === 1 ? '1 member' : `${e.member_count} members`}</span>
            </span>
            <Button variant="secondary" class="lobby-shelf-launch" onClick={() => open(e)}>
              {e.instance ? `Join (${e.instance.users.length})` : 'Start'}
            </Button>
          </li>
        ))}
      </ul>
    </Panel>
  );
}
