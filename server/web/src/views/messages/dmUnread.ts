import { useEffect, useState } from 'preact/hooks';
import { onDispatch } from '../../api/GatewayClient.ts';
import { currentUser } from '../../api/session.ts';

/**
 * Which DMs hold messages the user has not seen: a DM or group DM message from someone else that
 * arrives while that conversation is not open. Kept for the page's life (no read state on the
 * server yet), shown as a dot on the rail's DM link and on the conversation in the list.
 */
const unread = new Set<string>();
const listeners = new Set<() => void>();
let listening = false;

function changed(): void {
  listeners.forEach((l) => l());
}

function listen(): void {
  if (listening) return;
  listening = true;
  onDispatch((event, data) => {
    if (event !== 'MESSAGE_CREATE') return;
    const m = data as { guild_id?: string; channel_id?: string; author?: { id?: string } };
    if (m.guild_id || !m.channel_id || m.author?.id === currentUser()?.id) return;
    if (location.pathname === `/app/dms/${m.channel_id}` && document.visibilityState !== 'hidden') return;
    unread.add(m.channel_id);
    changed();
  });
}

export function markDmRead(channelId: string): void {
  if (unread.delete(channelId)) changed();
}

/** The DM channel IDs with unseen messages (re-renders the caller when they change). */
export function useDmUnread(): ReadonlySet<string> {
  const [, tick] = useState(0);
  useEffect(() => {
    listen();
    const l = () => tick((n) => n + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return unread;
}
