import { useState } from 'preact/hooks';
import { Button, Panel, TextField } from '../components/ui.tsx';
import type { AppState } from '../state/AppState.ts';

/** Creates an invite link to a channel (POST /channels/{id}/invites) and offers to copy it. */
export function InvitePanel({ store, channelId, onClose }: { store: AppState; channelId: string | null; onClose: () => void }) {
  const [link, setLink] = useState('');
  const [busy, setBusy] = useState(false);
  const [copied, setCopied] = useState(false);
  const create = async () => {
    if (!channelId) return;
    setBusy(true);
    try {
      const code = await store.createInvite(channelId);
      setLink(`${location.origin}/app/invite/${code}`);
    } catch (err) {
      store.showError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Panel title="Invite people" id="invite-panel" actions={<Button variant="ghost" onClick={onClose} aria-label="Close">Close</Button>}>
      {!channelId ? (
        <p class="muted">This guild has no text channel to invite people to.</p>
      ) : link ? (
        <div class="stack">
          <TextField id="invite-link" label="Send this link to a friend (valid 7 days)" value={link} onInput={() => undefined} readOnly />
          <div class="actions">
            <Button
              id="copy-invite"
              variant="secondary"
              onClick={() =>
                void navigator.clipboard?.writeText(link).then(
                  () => setCopied(true),
                  () => setCopied(false),
                )
              }
            >
              {copied ? 'Copied' : 'Copy link'}
            </Button>
          </div>
        </div>
      ) : (
        <div class="actions">
          <Button id="create-invite" onClick={() => void create()} disabled={busy}>
            Create invite link
          </Button>
        </div>
      )}
    </Panel>
  );
}
