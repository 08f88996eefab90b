import { useState } from 'preact/hooks';
import { Button, Panel, TextField } from '../components/ui.tsx';
import type { AppState } from '../state/AppState.ts';
import { navigate } from '../state/router.ts';
import { currentUser } from '../api/session.ts';
import { LobbyShelf } from './activity/index.ts';

/** No guild open: a welcome and the form that creates a guild (POST /guilds). */
export function Home({ store, guildCount }: { store: AppState; guildCount: number }) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const me = currentUser();
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const id = await store.createGuild(name.trim());
      setName('');
      navigate({ name: 'guild', guildId: id });
    } catch (err) {
      store.showError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="home" id="home">
      <h1>Hi{me ? `, ${me.global_name ?? me.username}` : ''}</h1>
      <p class="muted">{guildCount === 0 ? 'You are not in any guild yet. Create one, or open an invite link a friend sent you.' : 'Pick a guild on the left, or create a new one.'}</p>
      <Panel title="Create a guild">
        <form class="stack" onSubmit={(e) => void submit(e)} id="create-guild">
          <TextField id="guild-name" label="Guild name" value={name} onInput={setName} minLength={2} maxLength={100} required placeholder="My friends" />
          <div class="actions">
            <Button type="submit" id="create-guild-submit" disabled={busy || name.trim().length < 2}>
              Create guild
            </Button>
          </div>
        </form>
      </Panel>
      <LobbyShelf />
    </main>
  );
}
