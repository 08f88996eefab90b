import type { APIMessage } from 'discord-api-types/v10';
import { useEffect, useState } from 'preact/hooks';
import { Empty } from '../../components/ui.tsx';
import { authorName, type NameBook } from './MessageParts.tsx';
import { formatTime, preview, searchHits } from './messageModel.ts';
import { messagesApi } from './messagesApi.ts';

function Hit({ m, names, onOpen, extra }: { m: APIMessage; names: NameBook; onOpen: (m: APIMessage) => void; extra?: preact.ComponentChildren }) {
  return (
    <li class="side-hit" data-message-id={m.id}>
      <button type="button" class="side-hit-open" onClick={() => onOpen(m)}>
        <span class="side-hit-head small"><b>{authorName(m, names)}</b> <span class="muted">{formatTime(m.timestamp)}</span>{names.channels.get(m.channel_id) && <span class="muted"> · #{names.channels.get(m.channel_id)}</span>}</span>
        <span class="side-hit-text">{preview(m, 160) || '—'}</span>
      </button>
      {extra}
    </li>
  );
}

/** Get Channel Pins (the new paginated route): newest pin first, reloaded on CHANNEL_PINS_UPDATE. */
export function PinsPanel({ channelId, names, version, onOpen, onUnpin, onClose }: { channelId: string; names: NameBook; version: number; onOpen: (m: APIMessage) => void; onUnpin: (m: APIMessage) => void; onClose: () => void }) {
  const [items, setItems] = useState<APIMessage[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    messagesApi.pins(channelId).then(
      (r) => live && setItems(r.items.map((i) => i.message)),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => void (live = false);
  }, [channelId, version]);
  return (
    <aside class="msgs-side" id="pins-panel" aria-label="Pinned messages">
      <header class="msgs-side-head">
        <h3>Pinned messages</h3>
        <button type="button" class="ui-notice-close" aria-label="Close pins" onClick={onClose}>×</button>
      </header>
      {error && <p class="error-text small">{error}</p>}
      {items === null ? <Empty>Loading…</Empty> : items.length === 0 ? <Empty>No pinned messages yet.</Empty> : (
        <ul class="side-hits" id="pins-list">
          {items.map((m) => <Hit key={m.id} m={m} names={names} onOpen={onOpen} extra={<button type="button" class="msg-action side-unpin" onClick={() => onUnpin(m)}>Unpin</button>} />)}
        </ul>
      )}
    </aside>
  );
}

/**
 * Search Guild Messages: the public route and answer (`total_results`, `messages: [[m]]`). While
 * the guild's index is being built the server answers 202 (110000, `retry_after`): the panel
 * says so and asks again after that long.
 */
export function SearchPanel({ guildId, query, names, onOpen, onClose }: { guildId: string; query: string; names: NameBook; onOpen: (m: APIMessage) => void; onClose: () => void }) {
  const [hits, setHits] = useState<APIMessage[] | null>(null);
  const [total, setTotal] = useState(0);
  const [status, setStatus] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = () => {
      messagesApi.search(guildId, query).then(
        (r) => {
          if (!live) return;
          if (r.indexing) {
            setStatus(`This guild's messages are still being indexed; trying again in ${Math.ceil(r.indexing.retryAfter)} s…`);
            timer = setTimeout(run, Math.max(1, r.indexing.retryAfter) * 1000);
            return;
          }
          setStatus(null);
          setTotal(r.total);
          setHits(searchHits(r));
        },
        (e: unknown) => {
          if (!live) return;
          const status = (e as { status?: number }).status;
          setStatus(status === 404 ? 'Search is not available on this server.' : e instanceof Error ? e.message : String(e));
          setHits([]);
        },
      );
    };
    setHits(null);
    run();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [guildId, query]);
  return (
    <aside class="msgs-side" id="search-panel" aria-label="Search results">
      <header class="msgs-side-head">
        <h3>{hits === null ? 'Searching…' : `${total} result${total === 1 ? '' : 's'}`}</h3>
        <button type="button" class="ui-notice-close" aria-label="Close search" onClick={onClose}>×</button>
      </header>
      {status && <p class="muted small side-status" id="search-status">{status}</p>}
      {hits && hits.length === 0 && !status && <Empty>No messages match “{query}”.</Empty>}
      {hits && hits.length > 0 && <ul class="side-hits" id="search-results">{hits.map((m) => <Hit key={m.id} m={m} names={names} onOpen={onOpen} />)}</ul>}
    </aside>
  );
}
