import type { APIMessage } from 'discord-api-types/v10';
import { useRef, useState } from 'preact/hooks';
import { formatSize, preview } from './messageModel.ts';
import type { PendingFile } from './messagesApi.ts';

/** 10 files per message, 10 MiB each (the server's limits; checked here to save an upload). */
const MAX_FILES = 10;
const MAX_BYTES = 10 * 1024 * 1024;
/** TYPING_START lasts 10 s on the other side: tell again at most every 8 s while typing. */
const TYPING_EVERY_MS = 8_000;

/**
 * The message box: Enter sends, Shift+Enter breaks the line; files from the paper clip, each
 * with a Spoiler switch (sent as `is_spoiler`); the reply being written shows above, with a way
 * out. Typing tells the channel (POST /typing), throttled.
 */
export function Composer({ channelName, replyTo, replyName, onCancelReply, onSend, onTyping, disabled }: {
  channelName: string;
  replyTo: APIMessage | null;
  replyName: string;
  onCancelReply: () => void;
  onSend: (content: string, files: PendingFile[]) => Promise<boolean>;
  onTyping: () => void;
  disabled?: boolean;
}) {
  const [text, setText] = useState('');
  const [files, setFiles] = useState<PendingFile[]>([]);
  const [note, setNote] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const lastTyping = useRef(0);
  const picker = useRef<HTMLInputElement>(null);

  const send = async () => {
    if (sending || (text.trim() === '' && files.length === 0)) return;
    setSending(true);
    const ok = await onSend(text, files);
    setSending(false);
    if (ok) {
      setText('');
      setFiles([]);
      lastTyping.current = 0;
    }
  };

  const addFiles = (list: FileList | null) => {
    if (!list) return;
    const picked = [...list];
    const tooBig = picked.filter((f) => f.size > MAX_BYTES);
    setNote(tooBig.length > 0 ? `${tooBig.map((f) => f.name).join(', ')}: over 10 MB, not added.` : null);
    setFiles((old) => [...old, ...picked.filter((f) => f.size <= MAX_BYTES).map((file) => ({ file, spoiler: file.name.startsWith('SPOILER_') }))].slice(0, MAX_FILES));
  };

  return (
    <form class="composer" id="composer" onSubmit={(e) => { e.preventDefault(); void send(); }}>
      {replyTo && (
        <div class="composer-reply small" id="composer-reply">
          <span>Replying to <b>{replyName}</b> <span class="muted">{preview(replyTo, 60)}</span></span>
          <button type="button" class="ui-notice-close" aria-label="Cancel reply" onClick={onCancelReply}>×</button>
        </div>
      )}
      {files.length > 0 && (
        <ul class="composer-files" id="composer-files">
          {files.map((f, i) => (
            <li key={`${f.file.name}-${i}`} class="composer-file">
              <span class="composer-file-name">{f.file.name}</span>
              <span class="muted small">{formatSize(f.file.size)}</span>
              <label class="small composer-spoiler">
                <input type="checkbox" checked={f.spoiler} onChange={(e) => setFiles(files.map((x, j) => (j === i ? { ...x, spoiler: e.currentTarget.checked } : x)))} /> Spoiler
              </label>
              <button type="button" class="ui-notice-close" aria-label={`Remove ${f.file.name}`} onClick={() => setFiles(files.filter((_, j) => j !== i))}>×</button>
            </li>
          ))}
        </ul>
      )}
      {note && <div class="small error-text">{note}</div>}
      <div class="composer-row">
        <button type="button" class="ui-button ui-button-secondary composer-attach" aria-label="Attach files" title="Attach files" onClick={() => picker.current?.click()} disabled={disabled}>
          <svg class="ui-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true"><path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" d="M20 11.5 12.5 19a5 5 0 0 1-7-7l8-8a3.3 3.3 0 0 1 4.7 4.7l-8 8a1.7 1.7 0 0 1-2.4-2.4L15 7" /></svg>
        </button>
        <input ref={picker} id="composer-file-input" type="file" multiple hidden onChange={(e) => { addFiles(e.currentTarget.files); e.currentTarget.value = ''; }} />
        <textarea
          id="composer-input"
          class="ui-input composer-input"
          rows={1}
          maxLength={2000}
          placeholder={disabled ? 'You cannot send messages here' : `Message ${channelName}`}
          aria-label={`Message ${channelName}`}
          value={text}
          disabled={disabled}
          onInput={(e) => {
            setText(e.currentTarget.value);
            const now = Date.now();
            if (e.currentTarget.value !== '' && now - lastTyping.current > TYPING_EVERY_MS) {
              lastTyping.current = now;
              onTyping();
            }
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              void send();
            }
            if (e.key === 'Escape' && replyTo) onCancelReply();
          }}
        />
        <button type="submit" id="composer-send" class="ui-button ui-button-primary" disabled={disabled || sending}>Send</button>
      </div>
    </form>
  );
}
