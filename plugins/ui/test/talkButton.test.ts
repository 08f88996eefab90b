/**
 * The player bar's hold-to-talk button (happy-dom): pointer down talks, pointer up, cancel and
 * leave stop; the V key and the button hold the microphone independently (releasing one while
 * the other is held keeps it open); the button shows only in a connected call. The real call in
 * Chromium, with touch emulation, is `touchVoice.test.ts`.
 */
import { CallStatus } from '@social-layer/client';
import { Window } from 'happy-dom';
import { afterEach, describe, expect, it } from 'vitest';
import type { GameSession } from '../src/session/GameSession.ts';
import { PlayerBar } from '../src/session/PlayerBar.ts';
import { VoiceChat } from '../src/session/VoiceChat.ts';

let win: Window | undefined;
const globals = globalThis as { window?: unknown; document?: unknown };
afterEach(() => {
  win?.close();
  delete globals.window;
  delete globals.document;
});

function setUp() {
  win = new Window();
  // PushToTalkKey listens on the page's window; here that is happy-dom's.
  globals.window = win;
  globals.document = win.document;
  const doc = win.document as unknown as Document;
  const ptt: boolean[] = [];
  let status: number = CallStatus.Connected;
  const statusListeners: ((s: number) => void)[] = [];
  const call = {
    setAudioMode: () => {},
    setPTTActive: (active: boolean) => ptt.push(active),
    getStatus: () => status,
    on: (event: string, fn: (s: number) => void) => {
      if (event === 'statusChanged') statusListeners.push(fn);
      return () => {};
    },
  };
  const voice = new VoiceChat({ startCall: () => call, endCall: () => Promise.resolve() } as never, '1');
  const header = doc.createElement('header');
  doc.body.append(header);
  const bar = new PlayerBar(header);
  const session = {
    client: { getCurrentUserV2: () => ({ username: 'guest_1', displayName: 'Guest' }) },
    signedIn: true,
    voice,
    onStatus: () => () => {},
    linkAccount: () => Promise.resolve(),
    inviteUrl: () => 'http://x/?lobby=1',
    rename: () => Promise.resolve(),
  };
  bar.attach(session as unknown as GameSession);
  const talk = header.querySelector<HTMLButtonElement>('.sl-bar-talk')!;
  const pointer = (type: string) => talk.dispatchEvent(new win!.PointerEvent(type, { bubbles: true, button: 0, pointerId: 1, pointerType: 'touch' }) as unknown as Event);
  const key = (type: 'keydown' | 'keyup') => win!.dispatchEvent(new win!.KeyboardEvent(type, { code: 'KeyV', key: 'v' }));
  const setStatus = (s: number) => {
    status = s;
    for (const fn of statusListeners) fn(s);
  };
  return { voice, talk, ptt, pointer, key, setStatus, mic: () => ptt.at(-1) ?? false };
}

describe('hold to talk', () => {
  it('talks while a pointer is down, stops on up, cancel and leave', () => {
    const { voice, talk, pointer, mic } = setUp();
    expect(talk.hidden).toBe(true);
    voice.join();
    expect(talk.hidden).toBe(false);
    expect(talk.disabled).toBe(false);

    pointer('pointerdown');
    expect(mic()).toBe(true);
    expect(voice.talking).toBe(true);
    expect(talk.getAttribute('aria-pressed')).toBe('true');
    pointer('pointerup');
    expect(mic()).toBe(false);
    expect(talk.getAttribute('aria-pressed')).toBe('false');

    pointer('pointerdown');
    pointer('pointercancel');
    expect(mic()).toBe(false);
    pointer('pointerdown');
    pointer('pointerleave');
    expect(mic()).toBe(false);
  });

  it('the key and the button hold the microphone independently', () => {
    const { voice, pointer, key, mic } = setUp();
    voice.join();
    key('keydown');
    expect(mic()).toBe(true);
    pointer('pointerdown');
    key('keyup');
    expect(mic(), 'button still held').toBe(true);
    pointer('pointerup');
    expect(mic()).toBe(false);
    pointer('pointerdown');
    key('keydown');
    pointer('pointerup');
    expect(mic(), 'key still held').toBe(true);
    key('keyup');
    expect(mic()).toBe(false);
  });

  it('is disabled until the call connects, and hidden after it ends', async () => {
    const { voice, talk, pointer, setStatus, ptt } = setUp();
    voice.join();
    setStatus(CallStatus.Connecting);
    expect(talk.disabled).toBe(true);
    pointer('pointerdown');
    expect(ptt).not.toContain(true);
    setStatus(CallStatus.Connected);
    expect(talk.disabled).toBe(false);
    await voice.leave();
    expect(talk.hidden).toBe(true);
  });
});
