import type { APIMessage } from 'discord-api-types/v10';
import { useState } from 'preact/hooks';
import { Avatar } from '../../components/ui.tsx';
import { Attachments, authorName, Components, Content, Embeds, MsgIcon, type NameBook } from './MessageParts.tsx';
import { displayName, formatTime, MESSAGE_TYPE_REPLY, preview, REFERENCE_FORWARD } from './messageModel.ts';

export interface MessageActions {
  reply(m: APIMessage): void;
  edit(m: APIMessage, content: string): Promise<void>;
  remove(m: APIMessage): Promise<void>;
  togglePin(m: APIMessage): Promise<void>;
  toggleReaction(m: APIMessage, emoji: string, mine: boolean): Promise<void>;
  jumpTo(id: string): void;
  forward(m: APIMessage): void;
}

interface Snapshot { message: Pick<APIMessage, 'content' | 'attachments' | 'embeds' | 'timestamp'> & { components?: unknown[] } }

/**
 * One message: who and when, the message it replies to, a forward's snapshot, content,
 * attachments, embeds, components and reactions; Reply and Pin for everyone, Edit and Delete on
 * one's own (delete asks once more, inline).
 */
export function MessageItem({ m, meId, names, actions, editing, setEditing }: { m: APIMessage; meId: string | null; names: NameBook; actions: MessageActions; editing: boolean; setEditing: (on: boolean) => void }) {
  const [draft, setDraft] = useState(m.content);
  const [confirming, setConfirming] = useState(false);
  const mine = m.author.id === meId;
  // Messages that mention the reader stand out (a mention of them, or @everyone/@here).
  const mentionsMe = meId !== null && !mine && (m.mention_everyone || m.mentions.some((u) => u.id === meId));
  const snapshots = (m as APIMessage & { message_snapshots?: Snapshot[] }).message_snapshots ?? [];
  const forwarded = m.message_reference?.type === REFERENCE_FORWARD && snapshots.length > 0;
  const ref = m.type === MESSAGE_TYPE_REPLY ? m.referenced_message : undefined;

  const save = async () => {
    await actions.edit(m, draft);
    setEditing(false);
  };

  return (
    // Focusable so that a tap on a phone (no hover) shows the message's actions.
    <li tabIndex={-1} class={`msg${mine ? ' msg-mine' : ''}${mentionsMe ? ' msg-mention' : ''}`} id={`msg-${m.id}`} data-message-id={m.id} data-author-id={m.author.id} data-pinned={m.pinned ? 'true' : 'false'}>
      {m.type === MESSAGE_TYPE_REPLY && (
        <button type="button" class="msg-reply-to" data-reply-to={ref?.id ?? ''} onClick={() => ref && actions.jumpTo(ref.id)}>
          <span aria-hidden="true">↱</span>{' '}
          {ref ? (
            <>
              <b>{displayName(ref.author, names.members)}</b> <span class="msg-reply-preview">{preview(ref, 80) || 'Click to see attachment'}</span>
            </>
          ) : (
            <i class="muted">Original message was deleted</i>
          )}
        </button>
      )}
      <div class="msg-row">
        <Avatar id={m.author.id} name={authorName(m, names)} size="sm" />
        <div class="msg-main">
          <div class="msg-head">
            <span class="msg-author">{authorName(m, names)}</span>
            {m.author.bot && <span class="bot-badge">BOT</span>}
            {/* A player's message mirrored from a linked lobby (issue 12): the game is its source. */}
            {m.application_id && !m.author.bot && <span class="bot-badge msg-via" title={`Sent from a game (application ${m.application_id}) through its linked lobby`}>GAME</span>}
            <time class="msg-time muted small" dateTime={m.timestamp}>{formatTime(m.timestamp)}</time>
            {m.edited_timestamp && <span class="msg-edited muted small">(edited)</span>}
            {m.pinned && <span class="msg-pinned small muted" title="Pinned"><MsgIcon name="pin" /> pinned</span>}
          </div>
          {editing ? (
            <form class="msg-edit" onSubmit={(e) => { e.preventDefault(); void save(); }}>
              <textarea
                class="ui-input msg-edit-input"
                value={draft}
                maxLength={2000}
                rows={2}
                aria-label="Edit message"
                onInput={(e) => setDraft(e.currentTarget.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Escape') setEditing(false);
                  if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); void save(); }
                }}
              />
              <div class="actions small">
                <button type="submit" class="ui-button ui-button-primary msg-edit-save">Save</button>
                <button type="button" class="ui-button ui-button-ghost" onClick={() => setEditing(false)}>Cancel</button>
              </div>
            </form>
          ) : (
            <Content text={m.content} names={names} />
          )}
          {forwarded && (
            <div class="msg-forward" data-forward>
              <div class="msg-forward-label muted small">↪ Forwarded</div>
              {snapshots.map((s, i) => (
                <div key={i} class="msg-forward-body">
                  <Content text={s.message.content} names={names} />
                  <Attachments list={s.message.attachments ?? []} />
                  <Embeds list={s.message.embeds ?? []} names={names} />
                  <div class="muted small">{formatTime(s.message.timestamp)}</div>
                </div>
              ))}
            </div>
          )}
          <Attachments list={m.attachments} />
          <Embeds list={m.embeds} names={names} />
          <Components list={m.components ?? []} />
          {m.reactions && m.reactions.length > 0 && (
            <div class="msg-reactions">
              {m.reactions.map((r) => {
                const key = r.emoji.id ? `${r.emoji.name}:${r.emoji.id}` : (r.emoji.name ?? '');
                return (
                  <button key={key} type="button" class={`reaction${r.me ? ' reaction-me' : ''}`} data-emoji={key} aria-pressed={r.me} onClick={() => void actions.toggleReaction(m, key, r.me)}>
                    {r.emoji.id ? `:${r.emoji.name}:` : r.emoji.name} <span>{r.count}</span>
                  </button>
                );
              })}
            </div>
          )}
        </div>
        <div class="msg-actions" role="group" aria-label="Message actions">
          {confirming ? (
            <>
              <span class="small">Delete?</span>
              <button type="button" class="msg-action msg-delete-confirm danger" onClick={() => void actions.remove(m)}>Delete</button>
              <button type="button" class="msg-action" onClick={() => setConfirming(false)}>Keep</button>
            </>
          ) : (
            <>
              <button type="button" class="msg-action msg-reply" title="Reply" onClick={() => actions.reply(m)}>Reply</button>
              <button type="button" class="msg-action msg-react" title="React with 👍" onClick={() => void actions.toggleReaction(m, '👍', m.reactions?.some((r) => r.emoji.name === '👍' && r.me) ?? false)} aria-label="React with thumbs up"><MsgIcon name="react" /></button>
              <button type="button" class="msg-action msg-forward-button" title="Forward" onClick={() => actions.forward(m)}>Forward</button>
              <button type="button" class="msg-action msg-pin" title={m.pinned ? 'Unpin' : 'Pin'} onClick={() => void actions.togglePin(m)}>{m.pinned ? 'Unpin' : 'Pin'}</button>
              {mine && !forwarded && <button type="button" class="msg-action msg-edit-button" onClick={() => { setDraft(m.content); setEditing(true); }}>Edit</button>}
              {mine && <button type="button" class="msg-action msg-delete danger" onClick={() => setConfirming(true)}>Delete</button>}
            </>
          )}
        </div>
      </div>
    </li>
  );
}
