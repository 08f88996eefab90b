import type { APIInvite } from 'discord-api-types/v10';
import { useEffect, useState } from 'preact/hooks';
import { ApiRequestError } from '../api/RestClient.ts';
import { Avatar, Button, Panel } from '../components/ui.tsx';
import type { AppState } from '../state/AppState.ts';
import { navigate } from '../state/router.ts';

/** /app/invite/CODE: what the invite is for (GET /invites/{code}) and a button to join (POST). */
export function InviteAccept({ store, code }: { store: AppState; code: string }) {
  const [invite, setInvite] = useState<APIInvite | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    store.rest.get<APIInvite>(`/invites/${code}?with_counts=true`).then(setInvite, (e: unknown) =>
      setProblem(e instanceof ApiRequestError && e.status === 404 ? 'This invite is invalid or has expired.' : String((e as Error).message)),
    );
  }, [code]);
  const accept = async () => {
    setBusy(true);
    try {
      const guildId = await store.acceptInvite(code);
      navigate({ name: 'guild', guildId }, true);
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="home" id="invite-accept">
      <Panel title="You have been invited">
        {problem ? (
          <p class="error-text" role="alert" id="invite-problem">
            {problem}
          </p>
        ) : !invite ? (
          <p class="muted">Loading the invite…</p>
        ) : (
          <div class="stack">
            <div class="invite-guild">
              <Avatar id={invite.guild?.id ?? '0'} name={invite.guild?.name ?? '?'} />
              <div>
                <strong id="invite-guild-name">{invite.guild?.name}</strong>
                <div class="muted small">
                  {invite.inviter ? `${invite.inviter.global_name ?? invite.inviter.username} invited you` : 'Invitation'}
                  {invite.approximate_member_count !== undefined ? ` · ${invite.approximate_member_count} ${invite.approximate_member_count === 1 ? 'member' : 'members'}` : ''}
                </div>
              </div>
            </div>
            <div class="actions">
              <Button id="accept-invite" onClick={() => void accept()} disabled={busy}>
                Accept invite
              </Button>
            </div>
          </div>
        )}
      </Panel>
    </main>
  );
}
