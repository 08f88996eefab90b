import { useEffect, useState } from 'preact/hooks';
import { Button } from '../../components/ui.tsx';
import { navigate } from '../../state/router.ts';
import { activityApi, type ShelfEntry } from './activityApi.ts';

/**
 * A voice channel's activities (issue 17): those installed in the guild or authorized by the user
 * (GET /channels/{id}/activities), Start for one not running here, Join with its player count for
 * one that is. Shows nothing when there are none.
 */
export function ActivityShelf({ channelId, guildId }: { channelId: string; guildId: string | null }) {
  const [entries, setEntries] = useState<ShelfEntry[]>([]);
  useEffect(() => {
    activityApi.shelf(channelId).then(setEntries, () => setEntries([]));
  }, [channelId]);
  if (entries.length === 0) return null;
  const open = (id: string) => {
    const q = new URLSearchParams({ channel_id: channelId, ...(guildId ? { guild_id: guildId } : {}) });
    history.pushState(null, '', `/app/activity/${id}?${q}`);
    navigate({ name: 'activity', applicationId: id }, true);
  };
  return (
    <section class="activity-shelf" id="activity-shelf" aria-label="Activities">
      <h3>Activities</h3>
      <ul>
        {entries.map((e) => (
          <li key={e.application_id} data-application-id={e.application_id}>
            <span>{e.name}</span>
            <Button variant="secondary" class="activity-shelf-launch" onClick={() => open(e.application_id)}>
              {e.instance ? `Join (${e.instance.users.length})` : 'Start'}
            </Button>
          </li>
        ))}
      </ul>
    </section>
  );
}
