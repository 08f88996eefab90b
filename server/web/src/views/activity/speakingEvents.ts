import { heldCall, watchCall } from '../voiceCallHolder.ts';

export type SpeakingEvent = 'SPEAKING_START' | 'SPEAKING_STOP';

/**
 * SPEAKING_START / SPEAKING_STOP for an activity (issue 17): derived from the held voice call's
 * speaking changes (the client SDK's speakingStatusChanged, the same signal the voice panel's
 * ring shows), as the public client derives them from its own voice connection. Data in the SDK's
 * shape `{user_id, channel_id}`; only for channels the activity subscribed with (`subscribed`).
 * When the call ends or moves, everyone still speaking in it stops.
 */
export function forwardSpeaking(subscribed: (evt: SpeakingEvent, channelId: string) => boolean, dispatch: (evt: SpeakingEvent, data: { user_id: string; channel_id: string }) => void): () => void {
  let channel: string | null = null;
  let speaking = new Set<string>();
  const emit = (evt: SpeakingEvent, userId: string, channelId: string) => {
    if (subscribed(evt, channelId)) dispatch(evt, { user_id: userId, channel_id: channelId });
  };
  const check = () => {
    const call = heldCall();
    const now = new Set(call?.snapshot().speaking ?? []);
    const where = call?.channelId ?? null;
    if (where !== channel) {
      if (channel) for (const u of speaking) emit('SPEAKING_STOP', u, channel);
      speaking = new Set();
      channel = where;
    }
    if (!channel) return;
    for (const u of now) if (!speaking.has(u)) emit('SPEAKING_START', u, channel);
    for (const u of speaking) if (!now.has(u)) emit('SPEAKING_STOP', u, channel);
    speaking = now;
  };
  check();
  return watchCall(check);
}
