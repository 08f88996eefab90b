/**
 * The lobby chat panel with a linked channel (issue 12, happy-dom): "Linked to #channel" under the
 * title while linked (following lobbyUpdated), a 'server' badge on messages written in the guild
 * channel (with their additional content when they have no text), the SDK's disclosure notice
 * styled as a notice without an author, and edits and deletes made in the channel.
 */
import { Window } from 'happy-dom';
import { afterEach, describe, expect, it } from 'vitest';
import { LobbyChatPanel } from '../src/LobbyChatPanel.ts';
import type { PanelClient } from '../src/types.ts';

let win: Window;
afterEach(() => win?.close());

describe('lobby chat panel, linked', () => {
  it('shows the link, marks guild messages and the notice, follows edits and deletes', () => {
    const listeners = new Map<string, ((...args: unknown[]) => void)[]>();
    const emit = (event: string, ...args: unknown[]) => listeners.get(event)?.forEach((fn) => fn(...args));
    let linked: { id: string; name: string; guildId: string } | undefined;
    const message = (id: string, authorId: string, text: string, extra: Record<string, unknown> = {}) => {
      const m = {
        id,
        lobbyId: '1',
        authorId,
        sentTimestamp: Date.now(),
        text,
        content: () => m.text,
        author: () => undefined,
        disclosureType: () => undefined,
        linkedMessage: () => undefined,
        additionalContent: () => undefined,
        ...extra,
      };
      return m;
    };
    const messages = new Map<string, ReturnType<typeof message>>([
      ['100', message('100', '0', 'Messages in this lobby are also visible outside the game', { disclosureType: () => 3 })],
      ['101', message('101', '7', 'from the game', { linkedMessage: () => ({ id: '901', channelId: '5', guildId: '4', origin: 'lobby' }) })],
      ['102', message('102', '8', 'from the web', { linkedMessage: () => ({ id: '902', channelId: '5', guildId: '4', origin: 'channel' }) })],
      ['103', message('103', '8', '', { linkedMessage: () => ({ id: '903', channelId: '5', guildId: '4', origin: 'channel' }), additionalContent: () => ({ type: 1, title: undefined, count: 2 }) })],
    ]);
    const client = {
      on: (event: string, fn: (...args: unknown[]) => void) => {
        listeners.set(event, [...(listeners.get(event) ?? []), fn]);
        return () => {};
      },
      getLobbyHandle: () => ({ linkedChannel: () => linked }),
      getMessageHandle: (id: string) => messages.get(id),
      getCurrentUserV2: () => ({ id: '7' }),
      sendLobbyMessage: () => Promise.resolve('1'),
    } as unknown as PanelClient;
    win = new Window();
    const doc = win.document as unknown as Document;
    const panel = new LobbyChatPanel(client, '1', doc.body);
    const line = () => doc.querySelector('.sl-chat-linked')?.textContent;
    expect(line()).toBe('');

    linked = { id: '5', name: 'general', guildId: '4' };
    emit('lobbyUpdated', '2'); // another lobby: nothing
    expect(line()).toBe('');
    emit('lobbyUpdated', '1');
    expect(line()).toBe('Linked to #general');
    expect(panel.element.classList.contains('sl-chat-is-linked')).toBe(true);

    for (const id of ['100', '101', '102', '103']) emit('messageCreated', id);
    const row = (id: string) => doc.querySelector(`.sl-chat-message[data-message-id="${id}"]`)!;
    expect(row('100').classList.contains('sl-chat-notice')).toBe(true);
    expect(row('100').querySelector('.sl-chat-author')).toBeNull();
    expect(row('101').classList.contains('sl-from-guild')).toBe(false);
    expect(row('102').classList.contains('sl-from-guild')).toBe(true);
    expect(row('102').querySelector('.sl-chat-source')?.textContent).toBe('server');
    expect(row('103').querySelector('.sl-chat-text')?.textContent).toBe('[2 items only visible on the server]');

    messages.get('102')!.text = 'edited on the web';
    emit('messageUpdated', '102');
    expect(row('102').querySelector('.sl-chat-text')?.textContent).toBe('edited on the web');
    emit('messageDeleted', '102', '1');
    expect(doc.querySelector('.sl-chat-message[data-message-id="102"]')).toBeNull();
    expect(panel.messageCount).toBe(3);

    linked = undefined;
    emit('lobbyUpdated', '1');
    expect(line()).toBe('');
    panel.destroy();
  });
});
