import { useEffect, useState } from 'preact/hooks';
import { ApiRequestError } from '../../api/RestClient.ts';
import { Button, Empty } from '../../components/ui.tsx';
import { type Quest, questsApi } from './questsApi.ts';
import './quests.css';

type Data = { name: string; quests: Quest[] };

const day = (iso: string) => new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

/**
 * A game's quests (`/app/quests/APPLICATION_ID`, issue 15): the ones open now, each with an
 * Enroll button, or when the user enrolled. Enrolling tells the game's backend through its
 * QUEST_USER_ENROLLMENT webhook event.
 */
export function QuestsPage({ applicationId }: { applicationId: string }) {
  const [data, setData] = useState<Data | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  const load = async () => {
    const [game, quests] = await Promise.all([questsApi.game(applicationId), questsApi.open(applicationId)]);
    setData({ name: game.name, quests });
  };
  useEffect(() => {
    load().catch((e) => setError(e instanceof ApiRequestError && (e.code === 10002 || e.code === 50001) ? 'There are no quests for this game.' : e instanceof Error ? e.message : String(e)));
  }, [applicationId]);

  const enroll = async (q: Quest) => {
    setBusy(q.id);
    try {
      const e = await questsApi.enroll(q.id);
      setData((d) => d && { ...d, quests: d.quests.map((x) => (x.id === q.id ? { ...x, enrolled_at: e.enrolled_at } : x)) });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(null);
    }
  };

  if (error) return <Empty>{error}</Empty>;
  if (!data) return <Empty>Loading…</Empty>;
  return (
    <main class="quests" id="quests" data-application-id={applicationId}>
      <h1 id="quests-game">{data.name}: quests</h1>
      {data.quests.length === 0 ? (
        <p class="muted" id="no-quests">No quests are open right now.</p>
      ) : (
        <ul class="quest-list" id="quest-list">
          {data.quests.map((q) => (
            <li key={q.id} class="quest" data-quest-id={q.id} data-enrolled={q.enrolled_at ? 'yes' : 'no'}>
              <div class="quest-text">
                <h2 class="quest-name">{q.name}</h2>
                {q.description && <p class="muted small">{q.description}</p>}
                <p class="muted small">{q.ends_at ? `Open until ${day(q.ends_at)}` : 'Open'}</p>
              </div>
              {q.enrolled_at ? (
                <span class="quest-enrolled">Enrolled {day(q.enrolled_at)}</span>
              ) : (
                <Button class="quest-enroll" disabled={busy === q.id} onClick={() => void enroll(q)}>
                  Enroll
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
