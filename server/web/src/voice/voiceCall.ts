/**
 * Guild voice for the web app, through our client SDK (`@social-layer/client`). Built as its own
 * bundle (`voice.js`, build.mjs) and imported only when the user presses "Join voice": the SDK
 * (codecs, E2EE, WebRTC transport) is several times the size of the rest of the app.
 *
 * The SDK signs in with the page's first-party session token (api/session.ts) as a Bearer token
 * and joins the channel's call with `startCall(channelId)`: the server routes a guild voice join
 * by channel ID (server/README.md, "Voice in guild voice channels"). Push-to-talk is the SDK's
 * PTT mode: `PushToTalkKey` (plugins/ui) for the key, `setPTTActive` for the on-screen button.
 */
import { AuthorizationTokenType, CallStatus, Client, type Call } from '@social-layer/client';
import { PushToTalkKey } from '@social-layer/ui';

export { CallStatus };

export interface VoiceSnapshot {
  status: number;
  /** User IDs in the call, the SDK's view (VOICE_STATE_UPDATE). */
  participants: string[];
  speaking: string[];
  talking: boolean;
  e2ee: boolean;
}

export interface VoiceSession {
  readonly channelId: string;
  snapshot(): VoiceSnapshot;
  /** The on-screen push-to-talk button: held = talking. */
  setTalking(on: boolean): void;
  leave(): Promise<void>;
}

/** Joins `channelId`'s call; `onChange` runs on every status, participant or speaking change. */
export async function joinVoice(channelId: string, token: string, onChange: () => void, pushToTalkCode = 'KeyV'): Promise<VoiceSession> {
  const client = new Client({ apiBase: location.origin });
  await client.updateToken(AuthorizationTokenType.Bearer, token);
  await client.connect();
  const call: Call | undefined = client.startCall(channelId);
  if (!call) {
    await client.disconnect();
    throw new Error('Could not start the call');
  }
  const speaking = new Set<string>();
  let buttonHeld = false;
  const ptt = new PushToTalkKey(call);
  const off = [
    call.on('speakingStatusChanged', (userId, on) => {
      if (on) speaking.add(userId);
      else speaking.delete(userId);
      onChange();
    }),
    call.on('participantChanged', () => onChange()),
    call.on('statusChanged', () => onChange()),
  ];
  // The key's state shows on the page too (the talk button lights up while V is held).
  const keyChanged = (e: Event) => {
    if ((e as KeyboardEvent).code === ptt.code) queueMicrotask(onChange);
  };
  addEventListener('keydown', keyChanged);
  addEventListener('keyup', keyChanged);
  const talking = () => ptt.active || buttonHeld;
  let left = false;
  return {
    channelId,
    snapshot: () => ({
      status: left ? CallStatus.Disconnected : call.getStatus(),
      participants: call.getParticipants(),
      speaking: [...speaking],
      talking: talking(),
      e2ee: call.isE2eeReady(),
    }),
    setTalking(on) {
      buttonHeld = on;
      // The key may still hold it; the call talks while either is held.
      call.setPTTActive(talking());
      onChange();
    },
    async leave() {
      if (left) return;
      left = true;
      ptt.destroy();
      removeEventListener('keydown', keyChanged);
      removeEventListener('keyup', keyChanged);
      for (const f of off) f();
      await client.endCall(channelId).catch(() => undefined);
      await client.disconnect().catch(() => undefined);
      onChange();
    },
  };
}
