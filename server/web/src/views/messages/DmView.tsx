import { useEffect, useState } from 'preact/hooks';
import { onDispatch } from '../../api/GatewayClient.ts';
import { currentUser } from '../../api/session.ts';
import { Avatar, Empty, Notice } from '../../components/ui.tsx';
import { serialReload } from '../../state/reloads.ts';
import { navigate } from '../../state/router.ts';
import { MessagePane } from './MessagePane.tsx';
import { messagesApi } from './messagesApi.ts';
import { markDmRead, useDmUnread } from './dmUnread.ts';
import { dmName, type DmChannel, type DmUser, userName } from './dmChannel.ts';
import './messages.css';

/**
 * Direct messages (`/app/dms[/ID]`): the user's DMs and group DMs (GET /users/@me/channels,
 * newest first) beside the open conversation, which is the same MessagePane as a guild channel
 * (without guild search). The list reloads on CHANNEL_CREATE/UPDATE/DELETE and recipient changes,
 * and on a message in a DM it does not know yet (the other side's first message). On a phone one side at a time, with a way back.
 */
export function DmView({ channelId }: { channelId?: string }) {
  const [channels, setChannels] = useState<DmChannel[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);
  const [creating, setCreating] = useState(false);
  const me = currentUser();
  const unread = useDmUnread();
  useEffect(() => {
    if (channelId) markDmRead(channelId);
  }, [channelId, unread.size]);

  useEffect(() => {
    let known = new Set<string>();
    // Serial: a burst of events must not end on an older list (state/reloads.ts).
    const load = serialReload(() =>
      messagesApi.dms().then(
        (list) => {
          const dms = list as DmChannel[];
          known = new Set(dms.map((c) => c.id));
          setChannels(dms);
        },
        (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
      ),
    );
    void load();
    return onDispatch((event, data) => {
      const d = data as { guild_id?: string; channel_id?: string; id?: string; type?: number };
      if (/^CHANNEL_(CREATE|UPDATE|DELETE)$/.test(event) && !d.guild_id && (d.type === 1 || d.type === 3)) void load();
      if (event === 'CHANNEL_RECIPIENT_ADD' || event === 'CHANNEL_RECIPIENT_REMOVE') void load();
      if (event === 'MESSAGE_CREATE' && !d.guild_id && d.channel_id && !known.has(d.channel_id)) void load();
    });
  }, [reloads]);

  // A conversation the list does not hold yet (opened a moment ago elsewhere): ask once more.
  useEffect(() => {
    if (channels && channelId && !channels.some((c) => c.id === channelId) && reloads === 0) setReloads(1);
  }, [channels, channelId]);

  const open = channels?.find((c) => c.id === channelId);
  const title = open ? dmName(open) : 'Direct message';
  // A DM is named after a person (@name); a group by its own name.
  const label = open?.type === 3 ? title : `@${title}`;
  return (
    <div class="dms" id="dms" data-open={channelId ? 'conversation' : 'list'}>
      <nav class="dm-list" aria-label="Direct messages">
        <div class="dm-list-head">
          <h2 class="dm-list-title">Direct messages</h2>
          <button type="button" class="msg-action dm-new-group-button" id="new-group" title="New group" aria-label="New group" onClick={() => { setCreating(true); navigate({ name: 'dms' }); }}>+</button>
        </div>
        {error && <Notice kind="error" onClose={() => setError(null)}>{error}</Notice>}
        {channels === null ? <Empty>Loading…</Empty> : channels.length === 0 ? <Empty>No conversations yet. Open a member's profile in a guild and press Message.</Empty> : (
          <ul id="dm-channels">
            {channels.map((c) => (
              <li key={c.id}>
                <a
                  href={`/app/dms/${c.id}`}
                  class={`channel dm-channel${c.id === channelId ? ' channel-active' : ''}`}
                  data-channel-id={c.id}
                  aria-current={c.id === channelId ? 'page' : undefined}
                  onClick={(e) => {
                    e.preventDefault();
                    navigate({ name: 'dms', channelId: c.id });
                  }}
                >
                  <Avatar id={c.recipients[0]?.id ?? c.id} name={dmName(c)} size="sm" />
                  <span class="channel-name">{dmName(c)}</span>
                  {c.type === 3 && <span class="muted small">{c.recipients.length + 1} people</span>}
                  {unread.has(c.id) && c.id !== channelId && <span class="unread-dot" aria-label="New messages" />}
                </a>
              </li>
            ))}
          </ul>
        )}
      </nav>
      <section class={`dm-conversation channel-view${creating && !channelId ? ' dm-creating' : ''}`} aria-label={title}>
        {creating && !channelId ? (
          <NewGroup
            onCancel={() => setCreating(false)}
            onCreated={(id) => { setCreating(false); navigate({ name: 'dms', channelId: id }); }}
          />
        ) : channelId ? (
          <>
            <header class="channel-view-header dm-header">
              <a href="/app/dms" class="dm-back" onClick={(e) => { e.preventDefault(); navigate({ name: 'dms' }); }}>‹ All</a>
              <h2 id="dm-title">{label}</h2>
              {open?.type === 3 && (
                <button type="button" class="msg-action danger dm-leave" id="leave-group" onClick={() => void messagesApi.leave(open.id).then(() => navigate({ name: 'dms' }), (e: unknown) => setError(e instanceof Error ? e.message : String(e)))}>
                  Leave group
                </button>
              )}
            </header>
            <MessagePane key={channelId} channelId={channelId} channelName={label} guildId={null} />
          </>
        ) : (
          <Empty>{me ? 'Pick a conversation.' : ''}</Empty>
        )}
      </section>
    </div>
  );
}

/** A new group DM: pick friends (platform friends only, as the server asks), an optional name. */
function NewGroup({ onCancel, onCreated }: { onCancel: () => void; onCreated: (id: string) => void }) {
  const [friends, setFriends] = useState<DmUser[] | null>(null);
  const [picked, setPicked] = useState<string[]>([]);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    messagesApi.friends().then(setFriends, (e: unknown) => { setFriends([]); setError(e instanceof Error ? e.message : String(e)); });
  }, []);
  const create = () =>
    messagesApi.createGroup(picked, name.trim() || null).then((c) => onCreated(c.id), (e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  return (
    <form class="dm-new-group stack" id="new-group-form" onSubmit={(e) => { e.preventDefault(); if (picked.length > 0) void create(); }}>
      <h2>New group</h2>
      {error && <Notice kind="error" onClose={() => setError(null)}>{error}</Notice>}
      {friends === null ? <Empty>Loading…</Empty> : friends.length === 0 ? <Empty>Groups are made with friends; you have none yet.</Empty> : (
        <ul class="dm-friends">
          {friends.map((f) => (
            <li key={f.id}>
              <label class="dm-friend" data-user-id={f.id}>
                <input type="checkbox" checked={picked.includes(f.id)} disabled={!picked.includes(f.id) && picked.length >= 9} onChange={(e) => setPicked(e.currentTarget.checked ? [...picked, f.id] : picked.filter((x) => x !== f.id))} />
                <Avatar id={f.id} name={userName(f)} size="sm" />
                <span>{userName(f)}</span>
              </label>
            </li>
          ))}
        </ul>
      )}
      <label class="ui-field" for="new-group-name">
        <span class="ui-field-label">Name (optional)</span>
        <input id="new-group-name" class="ui-input" maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <div class="actions">
        <button type="submit" class="ui-button ui-button-primary" id="create-group" disabled={picked.length === 0}>Create group</button>
        <button type="button" class="ui-button ui-button-ghost" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

/** Opens (or finds) the DM with `userId` and goes to it. */
export async function messageUser(userId: string): Promise<void> {
  try {
    const ch = await messagesApi.openDm(userId);
    navigate({ name: 'dms', channelId: ch.id });
  } catch (e) {
    // The member list has no notice area of its own; the refusal is the server's words.
    window.alert(`Could not open the conversation: ${e instanceof Error ? e.message : String(e)}`);
  }
}
