import { sessionToken } from '../api/session.ts';
import type { VoiceSession } from '../voice/voiceCall.ts';

/**
 * The user's one guild voice call, held outside any view (issue 17): the voice channel's page
 * (VoicePanel) starts it, and an activity launched in that channel (ActivityView) keeps it going
 * beside its iframe, as the public platform does. A view that shows the call adopts it on mount and
 * releases it on unmount; a call nobody adopts within RELEASE_GRACE_MS is left, so going to another
 * channel still leaves the call as before, while going from the channel to its activity (or back)
 * hands it over. The grace covers the gap between the old view's unmount and the new view's effects.
 */
const RELEASE_GRACE_MS = 5_000;

/** Where the on-demand voice bundle is served (build.mjs writes it beside app.js). */
const VOICE_BUNDLE = '/app/assets/voice.js';
type VoiceModule = typeof import('../voice/voiceCall.ts');
let loading: Promise<VoiceModule> | null = null;
/** The SDK comes in its own file, fetched the first time someone joins voice. */
function loadVoice(): Promise<VoiceModule> {
  loading ??= (import(/* @vite-ignore */ VOICE_BUNDLE) as Promise<VoiceModule>).catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}

let current: VoiceSession | null = null;
let releaseTimer: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<() => void>();
const changed = () => {
  for (const l of [...listeners]) l();
};

/** The call, if it is in `channelId` (any channel when none is given). */
export function heldCall(channelId?: string): VoiceSession | null {
  return current && (channelId === undefined || current.channelId === channelId) ? current : null;
}

/** Every status, participant or speaking change of the held call, and its start and end. */
export function watchCall(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Joins `channelId`'s call (leaving any other first) and holds it. */
export async function joinCall(channelId: string): Promise<VoiceSession> {
  if (current?.channelId === channelId) return current;
  await leaveCall();
  const mod = await loadVoice();
  const session = await mod.joinVoice(channelId, await sessionToken(), changed);
  current = session;
  changed();
  return session;
}

/** Leaves the held call now. */
export async function leaveCall(): Promise<void> {
  clearTimeout(releaseTimer);
  const s = current;
  current = null;
  if (s) {
    changed();
    await s.leave();
  }
}

/** A view showing `channelId`'s call mounts: the call stays (a pending release is cancelled). */
export function adoptCall(channelId: string): VoiceSession | null {
  const s = heldCall(channelId);
  if (s) clearTimeout(releaseTimer);
  return s;
}

/** A view showing `channelId`'s call goes away: the call ends unless another view adopts it soon. */
export function releaseCall(channelId: string): void {
  if (!heldCall(channelId)) return;
  clearTimeout(releaseTimer);
  releaseTimer = setTimeout(() => {
    if (heldCall(channelId)) void leaveCall();
  }, RELEASE_GRACE_MS);
}
