import type { APIMessage } from 'discord-api-types/v10';
import { useEffect, useState } from 'preact/hooks';
import { Empty } from '../../components/ui.tsx';
import { dmName, type DmChannel } from './dmChannel.ts';
import { preview } from './messageModel.ts';
import { messagesApi } from './messagesApi.ts';

/**
 * Forward a message: pick a text channel of this guild or one of the user's DMs; the server
 * makes the forward (`message_reference.type` FORWARD, a `message_snapshots` entry) or refuses it
 * as it words it (160014 when the content cannot be read).
 */
export function ForwardPanel({ message, channels, onDone, onClose }: {
  message: APIMessage;
  channels: readonly { id: string; name: string; type?: number }[];
  onDone: (where: string) => void;
  onClose: () => void;
}) {
  const [dms, setDms] = useState<DmChannel[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    messagesApi.dms().then((l) => live && setDms(l as DmChannel[]), () => live && setDms([]));
    return () => void (live = false);
  }, []);
  const send = async (id: string, label: string) => {
    setBusy(true);
    try {
      await messagesApi.forward(id, message);
      onDone(label);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const text = channels.filter((c) => c.type === undefined || c.type === 0 || c.type === 5);
  return (
    <aside class="msgs-side" id="forward-panel" aria-label="Forward a message">
      <header class="msgs-side-head">
        <h3>Forward</h3>
        <button type="button" class="ui-notice-close" aria-label="Close forward" onClick={onClose}>×</button>
      </header>
      <p class="muted small side-status">“{preview(message, 80) || 'Attachment'}”</p>
      {error && <p class="error-text small side-status">{error}</p>}
      <ul class="side-hits" id="forward-targets">
        {text.map((c) => (
          <li key={c.id}><button type="button" class="side-hit-open forward-target" data-channel-id={c.id} disabled={busy} onClick={() => void send(c.id, `#${c.name}`)}>#{c.name}</button></li>
        ))}
        {dms === null ? <li><Empty>Loading…</Empty></li> : dms.map((c) => (
          <li key={c.id}><button type="button" class="side-hit-open forward-target" data-channel-id={c.id} disabled={busy} onClick={() => void send(c.id, `@${dmName(c)}`)}>@{dmName(c)}</button></li>
        ))}
      </ul>
    </aside>
  );
}
