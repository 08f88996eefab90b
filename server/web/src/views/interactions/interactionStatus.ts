import { onDispatch } from '../../api/GatewayClient.ts';

/**
 * What the user's own interactions are doing, from the Gateway: sent (INTERACTION_CREATE),
 * answered (INTERACTION_SUCCESS), the app "thinking" (a deferred response: a message with the
 * LOADING flag until it is edited), failed (INTERACTION_FAILURE: no answer within 3 s).
 */
export type InteractionPhase = 'sending' | 'thinking' | 'done' | 'failed';
export interface Tracked { nonce: string; id?: string; label: string; phase: InteractionPhase; at: number }

const LOADING = 1 << 7;
const tracked = new Map<string, Tracked>();
const listeners = new Set<() => void>();
const changed = () => listeners.forEach((l) => l());

export function track(nonce: string, label: string): void {
  tracked.set(nonce, { nonce, label, phase: 'sending', at: Date.now() });
  changed();
}

export function onStatus(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** The latest interaction worth showing (done ones fade after 4 s). */
export function current(): Tracked | null {
  const list = [...tracked.values()].filter((t) => t.phase !== 'done' || Date.now() - t.at < 4000);
  return list.sort((a, b) => b.at - a.at)[0] ?? null;
}

export function dismiss(nonce: string): void {
  tracked.delete(nonce);
  changed();
}

const byId = (id: string) => [...tracked.values()].find((t) => t.id === id);

onDispatch((event, data) => {
  const d = data as { id?: string; nonce?: string | null; flags?: number; interaction_metadata?: { id?: string } };
  const t = d?.nonce ? tracked.get(d.nonce) : undefined;
  if (event === 'INTERACTION_CREATE' && t) t.id = d.id;
  else if (event === 'INTERACTION_SUCCESS' && t && t.phase === 'sending') Object.assign(t, { phase: 'done', at: Date.now() });
  else if (event === 'INTERACTION_FAILURE' && t) Object.assign(t, { phase: 'failed', at: Date.now() });
  else if ((event === 'MESSAGE_CREATE' || event === 'MESSAGE_UPDATE') && d.interaction_metadata?.id) {
    const owner = byId(d.interaction_metadata.id);
    if (!owner) return;
    const loading = ((d.flags ?? 0) & LOADING) !== 0;
    Object.assign(owner, { phase: loading ? 'thinking' : 'done', at: Date.now() });
  } else return;
  changed();
});
