import type { APIGuildMember, APIMessage, APIRole } from 'discord-api-types/v10';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { onDispatch } from '../../api/GatewayClient.ts';
import { currentUser } from '../../api/session.ts';
import { Empty, Notice } from '../../components/ui.tsx';
import { navigate } from '../../state/router.ts';
import { Composer } from './Composer.tsx';
import { CommandBar } from '../interactions/index.ts';
import { MessageItem, type MessageActions } from './MessageItem.tsx';
import { MsgIcon, type NameBook } from './MessageParts.tsx';
import { applyReaction, displayName, idLess, removeMessages, sortMessages, typingLine, typingNow, TYPING_MS, upsertMessage, type ReactionEvent } from './messageModel.ts';
import { messagesApi, type PendingFile } from './messagesApi.ts';
import { PinsPanel, SearchPanel } from './SidePanels.tsx';
import { ForwardPanel } from './ForwardPanel.tsx';
import './messages.css';

export interface MessagePaneProps {
  channelId: string;
  /** `#general` for a guild channel, `@Bo` for a DM. */
  channelName: string;
  /** Null in a DM: no guild search. */
  guildId: string | null;
  members?: readonly APIGuildMember[];
  roles?: readonly APIRole[];
  channels?: readonly { id: string; name: string; type?: number }[];
}

const describe = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * A text channel's (or DM's) messages: history from REST, then live from the Gateway
 * (MESSAGE_CREATE/UPDATE/DELETE, reactions, TYPING_START, CHANNEL_PINS_UPDATE); the composer with
 * replies and uploads; edit and delete of one's own; pins and search in a side panel.
 */
export function MessagePane({ channelId, channelName, guildId, members = [], roles = [], channels = [] }: MessagePaneProps) {
  const meId = currentUser()?.id ?? null;
  const [messages, setMessages] = useState<APIMessage[] | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [replyTo, setReplyTo] = useState<APIMessage | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [typing, setTyping] = useState<Record<string, number>>({});
  const [side, setSide] = useState<{ kind: 'pins' } | { kind: 'search'; query: string } | { kind: 'forward'; message: APIMessage } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [pinsVersion, setPinsVersion] = useState(0);
  const [searchText, setSearchText] = useState('');
  const [, tick] = useState(0);
  const list = useRef<HTMLOListElement>(null);
  const stick = useRef(true);
  const typingUsers = useRef(new Map<string, { id: string; username: string; global_name?: string | null }>());
  /** Showing older messages around a jump target, not the newest: live messages wait for "Jump to present". */
  const [detached, setDetached] = useState(false);
  /** Messages that arrived while the reader was scrolled up: a button takes them down to them. */
  const [unseen, setUnseen] = useState(0);
  const detachedRef = useRef(false);
  detachedRef.current = detached;

  const load = () =>
    messagesApi.history(channelId).then(
      (page) => {
        setMessages(sortMessages(page));
        setMore(page.length === 50);
        setDetached(false);
        stick.current = true;
      },
      (e: unknown) => setError(describe(e)),
    );

  useEffect(() => {
    setMessages(null);
    void load();
    const off = onDispatch((event, data) => {
      const d = data as { channel_id?: string; id?: string; ids?: string[]; user_id?: string; member?: APIGuildMember; author?: { id: string } };
      if (event === 'READY') return void load();
      if (d?.channel_id !== channelId) return;
      switch (event) {
        case 'MESSAGE_CREATE':
        case 'MESSAGE_UPDATE': {
          const m = data as APIMessage;
          if (event === 'MESSAGE_CREATE' && detachedRef.current) {
            setTyping((t) => ({ ...t, [m.author.id]: 0 }));
            break;
          }
          setMessages((old) => (old ? upsertMessage(old, m) : old));
          if (event === 'MESSAGE_CREATE') setTyping((t) => ({ ...t, [m.author.id]: 0 }));
          if (event === 'MESSAGE_CREATE' && !stick.current && m.author.id !== meId) setUnseen((n) => n + 1);
          break;
        }
        case 'MESSAGE_DELETE':
          setMessages((old) => (old ? removeMessages(old, [d.id!]) : old));
          break;
        case 'MESSAGE_DELETE_BULK':
          setMessages((old) => (old ? removeMessages(old, d.ids ?? []) : old));
          break;
        case 'MESSAGE_REACTION_ADD':
        case 'MESSAGE_REACTION_REMOVE':
          setMessages((old) => (old ? applyReaction(old, data as ReactionEvent, event === 'MESSAGE_REACTION_ADD' ? 1 : -1, meId) : old));
          break;
        case 'TYPING_START':
          if (d.user_id && d.user_id !== meId) {
            if (d.member?.user) typingUsers.current.set(d.user_id, d.member.user);
            setTyping((t) => ({ ...t, [d.user_id!]: Date.now() }));
            // Redraw when it runs out.
            setTimeout(() => tick((n) => n + 1), TYPING_MS + 50);
          }
          break;
        case 'CHANNEL_PINS_UPDATE':
          setPinsVersion((v) => v + 1);
          break;
      }
    });
    return off;
  }, [channelId]);

  // Keep the newest message in view when the reader is at the bottom.
  useEffect(() => {
    const el = list.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [messages]);

  const names: NameBook = useMemo(() => {
    const users = new Map<string, { id: string; username: string; global_name?: string | null }>();
    for (const m of members) if (m.user) users.set(m.user.id, m.user);
    for (const [id, u] of typingUsers.current) users.set(id, u);
    for (const m of messages ?? []) {
      users.set(m.author.id, m.author);
      for (const u of m.mentions) users.set(u.id, u);
    }
    return { members, users, channels: new Map(channels.map((c) => [c.id, c.name])), roles: new Map(roles.map((r) => [r.id, r.name])) };
  }, [members, messages, roles, channels]);

  const jumpTo = (id: string) => {
    const go = () => {
      const el = document.getElementById(`msg-${id}`);
      if (!el) return false;
      el.scrollIntoView({ block: 'center' });
      el.classList.add('msg-highlight');
      setTimeout(() => el.classList.remove('msg-highlight'), 2000);
      return true;
    };
    if (go()) return;
    // Not loaded (an older pin or search hit): show the messages around it instead.
    stick.current = false;
    void run(messagesApi.around(channelId, id).then((page) => {
      const sorted = sortMessages(page);
      setMessages(sorted);
      // `around` takes about half before the target: fewer means the channel starts there.
      setMore(sorted.filter((m) => idLess(m.id, id)).length >= Math.floor(page.length / 2) && page.length === 50);
      setDetached(true);
      setTimeout(go, 50);
    }));
  };

  const run = async (p: Promise<unknown>) => {
    try {
      await p;
      setError(null);
      return true;
    } catch (e) {
      setError(describe(e));
      return false;
    }
  };

  const actions: MessageActions = {
    reply: (m) => {
      setReplyTo(m);
      document.getElementById('composer-input')?.focus();
    },
    edit: async (m, content) => {
      if (content === m.content) return;
      await run(messagesApi.edit(channelId, m.id, content).then((u) => setMessages((old) => (old ? upsertMessage(old, u) : old))));
    },
    remove: async (m) => {
      await run(messagesApi.remove(channelId, m.id).then(() => setMessages((old) => (old ? removeMessages(old, [m.id]) : old))));
    },
    togglePin: async (m) => {
      await run(m.pinned ? messagesApi.unpin(channelId, m.id) : messagesApi.pin(channelId, m.id));
      setPinsVersion((v) => v + 1);
    },
    toggleReaction: async (m, emoji, mine) => {
      await run(mine ? messagesApi.unreact(channelId, m.id, emoji) : messagesApi.react(channelId, m.id, emoji));
    },
    jumpTo,
    forward: (m) => setSide({ kind: 'forward', message: m }),
  };

  const send = async (content: string, files: PendingFile[]) => {
    const body = { content, nonce: `${Date.now()}${Math.floor(Math.random() * 1000)}`.slice(0, 25), ...(replyTo ? { message_reference: { message_id: replyTo.id } } : {}) };
    stick.current = true;
    if (detachedRef.current) await load();
    const ok = await run(messagesApi.send(channelId, body, files).then((m) => setMessages((old) => (old ? upsertMessage(old, m) : [m]))));
    if (ok) setReplyTo(null);
    return ok;
  };

  const loadEarlier = async () => {
    const first = messages?.[0];
    if (!first) return;
    stick.current = false;
    await run(messagesApi.history(channelId, first.id).then((page) => {
      setMessages((old) => sortMessages([...page, ...(old ?? [])]));
      setMore(page.length === 50);
    }));
  };

  const openHit = (m: APIMessage) => {
    if (m.channel_id === channelId) jumpTo(m.id);
    else if (guildId) navigate({ name: 'guild', guildId, channelId: m.channel_id });
  };

  const typers = typingNow(typing, Date.now(), meId).map((id) => {
    const u = names.users.get(id);
    return displayName({ id, username: u?.username ?? 'Someone', global_name: u?.global_name ?? null }, members);
  });

  return (
    <div class="msgs" id="messages" data-channel-id={channelId}>
      <div class="msgs-toolbar">
        {guildId && (
          <form class="msgs-search" role="search" onSubmit={(e) => { e.preventDefault(); if (searchText.trim()) setSide({ kind: 'search', query: searchText.trim() }); }}>
            <input id="message-search" class="ui-input" type="search" placeholder="Search messages" aria-label="Search messages" value={searchText} maxLength={200} onInput={(e) => setSearchText(e.currentTarget.value)} />
          </form>
        )}
        <button type="button" id="open-pins" class={`ui-button ui-button-${side?.kind === 'pins' ? 'primary' : 'secondary'}`} aria-pressed={side?.kind === 'pins'} onClick={() => setSide(side?.kind === 'pins' ? null : { kind: 'pins' })}>
          <MsgIcon name="pin" /> Pins
        </button>
      </div>
      {error && <Notice kind="error" onClose={() => setError(null)}>{error}</Notice>}
      {notice && <Notice onClose={() => setNotice(null)}>{notice}</Notice>}
      <div class="msgs-body">
        <ol class="msgs-list" id="message-list" ref={list} aria-live="polite" onScroll={(e) => { const el = e.currentTarget; stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40; if (stick.current) setUnseen(0); }}>
          {messages === null ? (
            <li><Empty>Loading messages…</Empty></li>
          ) : (
            <>
              {more ? (
                <li class="msgs-more"><button type="button" class="ui-button ui-button-ghost" id="load-earlier" onClick={() => void loadEarlier()}>Load earlier messages</button></li>
              ) : (
                <li class="msgs-start"><Empty>This is the start of {channelName}.</Empty></li>
              )}
              {messages.map((m) => (
                <MessageItem key={m.id} m={m} meId={meId} names={names} actions={actions} editing={editing === m.id} setEditing={(on) => setEditing(on ? m.id : null)} />
              ))}
            </>
          )}
        </ol>
        {side?.kind === 'pins' && <PinsPanel channelId={channelId} names={names} version={pinsVersion} onOpen={(m) => jumpTo(m.id)} onUnpin={(m) => void actions.togglePin({ ...m, pinned: true })} onClose={() => setSide(null)} />}
        {side?.kind === 'forward' && (
          <ForwardPanel
            message={side.message}
            channels={channels}
            onDone={(where) => { setSide(null); setNotice(`Forwarded to ${where}.`); setTimeout(() => setNotice(null), 8000); }}
            onClose={() => setSide(null)}
          />
        )}
        {side?.kind === 'search' && guildId && <SearchPanel guildId={guildId} query={side.query} names={names} onOpen={openHit} onClose={() => setSide(null)} />}
      </div>
      {unseen > 0 && !detached && (
        <button
          type="button"
          class="ui-button ui-button-primary msgs-present"
          id="new-messages"
          onClick={() => {
            const el = list.current;
            if (el) el.scrollTop = el.scrollHeight;
            stick.current = true;
            setUnseen(0);
          }}
        >
          {unseen === 1 ? '1 new message' : `${unseen} new messages`} ↓
        </button>
      )}
      {detached && (
        <button type="button" class="ui-button ui-button-secondary msgs-present" id="jump-to-present" onClick={() => void load()}>
          You are viewing older messages · Jump to present
        </button>
      )}
      <div class="typing small muted" id="typing-indicator" aria-live="polite">{typingLine(typers)}</div>
      <CommandBar channelId={channelId} guildId={guildId} />
      <Composer
        channelName={channelName}
        replyTo={replyTo}
        replyName={replyTo ? displayName(replyTo.author, members) : ''}
        onCancelReply={() => setReplyTo(null)}
        onSend={send}
        onTyping={() => void messagesApi.typing(channelId).catch(() => undefined)}
      />
    </div>
  );
}
