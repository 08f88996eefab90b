/**
 * The chat drawer's unread badge (happy-dom): messages that arrive while the chat is folded are
 * counted on its title ("2 new"), the player's own are not, history is not, and unfolding clears it.
 */
import { Window } from 'happy-dom';
import { afterEach, describe, expect, it } from 'vitest';
import { LobbyOverlay } from '../src/LobbyOverlay.ts';
import { setPanelCollapsed } from '../src/panelFrame.ts';
import type { PanelClient } from '../src/types.ts';

let win: Window;
afterEach(() => win?.close());

function setUp() {
  const listeners = new Map<string, ((...args: unknown[]) => void)[]>();
  const message = (id: string, authorId: string) => ({
    id,
    lobbyId: '1',
    authorId,
    sentTimestamp: Date.now(),
    content: () => `message ${id}`,
    author: () => undefined,
  });
  const messages = new Map([['101', message('101', '9')], ['102', message('102', '7')], ['103', message('103', '9')], ['104', message('104', '9')]]);
  const client = {
    on: (event: string, fn: (...args: unknown[]) => void) => {
      listeners.set(event, [...(listeners.get(event) ?? []), fn]);
      return () => {};
    },
    getLobbyHandle: () => undefined,
    getMessageHandle: (id: string) => messages.get(id),
    getCurrentUserV2: () => ({ id: '7' }),
    sendLobbyMessage: () => Promise.resolve('1'),
  } as unknown as PanelClient;
  win = new Window();
  const doc = win.document as unknown as Document;
  const parent = doc.createElement('div');
  doc.body.append(parent);
  const overlay = new LobbyOverlay(client, parent);
  overlay.showLobby('1', { members: false });
  const emit = (id: string) => listeners.get('messageCreated')?.forEach((fn) => fn(id));
  const badge = () => doc.querySelector('.sl-chat .sl-chat-unread')?.textContent ?? null;
  return { overlay, emit, badge, history: (id: string) => overlay.chat!.showMessages([messages.get(id)! as never]) };
}

describe('chat drawer', () => {
  it('counts messages that arrive while folded, not its own nor history, and clears on unfold', () => {
    const { overlay, emit, badge, history } = setUp();
    emit('101');
    expect(badge()).toBe(''); // open: read as it comes
    setPanelCollapsed(overlay.chat!.element, true);
    emit('102'); // our own
    history('103'); // history loaded while folded
    expect(badge()).toBe('');
    emit('104');
    emit('104'); // the same message twice counts once
    expect(badge()).toBe('1 new');
    expect(overlay.chat!.unread).toBe(1);
    expect(overlay.chat!.messageCount).toBe(4);
    setPanelCollapsed(overlay.chat!.element, false);
    expect(badge()).toBe('');
    expect(overlay.chat!.unread).toBe(0);
  });
});
