import type { MessageHandle } from '@social-layer/client';
import { el, stopPropagation } from './dom.ts';
import { createPanelFrame } from './panelFrame.ts';
import { compareSnowflakes, messageAuthorLabel } from './handles.ts';
import type { ChatPanelOptions, PanelClient } from './types.ts';

/**
 * A lobby's chat: the message list and an input line. It shows what the client reports
 * (`messageCreated`) and what the game hands it ({@link LobbyChatPanel.showMessages}, for
 * history), and sends through `client.sendLobbyMessage`. It has no engine import, so it works
 * in any DOM.
 */
export class LobbyChatPanel {
  /** The panel's root element (class `sl-panel sl-chat`). */
  readonly element: HTMLElement;
  /** The lobby whose chat this is. */
  readonly lobbyId: string;
  readonly #client: PanelClient;
  readonly #log: HTMLUListElement;
  readonly #input: HTMLInputElement;
  readonly #send: HTMLButtonElement;
  readonly #error: HTMLElement;
  readonly #empty: HTMLLIElement;
  /** 'Linked to #channel' while the lobby is linked to a guild channel (issue 12); hidden otherwise. */
  readonly #linked: HTMLElement;
  /** Shown messages by ID. The handles are kept: history is not in the client's message cache. */
  readonly #rows = new Map<string, { row: HTMLLIElement; message: MessageHandle }>();
  readonly #maxMessages: number;
  readonly #unsubscribe: (() => void)[] = [];
  readonly #unreadBadge: HTMLElement;
  /** Messages that arrived while the panel was folded (the drawer closed): shown on its title. */
  #unread = 0;
  #destroyed = false;

  constructor(client: PanelClient, lobbyId: string, parent: HTMLElement, options: ChatPanelOptions = {}) {
    this.#client = client;
    this.lobbyId = lobbyId;
    this.#maxMessages = options.maxMessages ?? 200;
    const doc = parent.ownerDocument;

    const frame = createPanelFrame(doc, 'sl-chat', options.title ?? 'Lobby chat', options.anchor ?? 'bottom-left');
    this.element = frame.element;
    this.#unreadBadge = frame.count;
    this.#unreadBadge.classList.add('sl-chat-unread');
    // Unfolding the panel means the player sees the messages: the badge goes.
    this.element.addEventListener('sl-layout', this.#onLayout);
    this.#linked = el(doc, 'div', 'sl-chat-linked');
    this.#log = el(doc, 'ul', 'sl-chat-log');
    // New rows are announced politely (a list keeps its list semantics; role=log would drop them).
    this.#log.setAttribute('aria-live', 'polite');
    this.#log.setAttribute('aria-label', 'Messages');
    this.#log.tabIndex = 0; // scrollable with the keyboard
    this.#empty = el(doc, 'li', 'sl-chat-empty');
    this.#empty.textContent = 'No messages yet.';
    this.#log.append(this.#empty);
    this.#error = el(doc, 'div', 'sl-chat-error');
    this.#error.setAttribute('role', 'alert');
    const form = el(doc, 'form', 'sl-chat-form');
    this.#input = el(doc, 'input', 'sl-chat-input');
    this.#input.type = 'text';
    this.#input.placeholder = options.placeholder ?? 'Say something…';
    this.#input.setAttribute('aria-label', 'Chat message');
    this.#input.autocomplete = 'off';
    this.#send = el(doc, 'button', 'sl-chat-send');
    this.#send.type = 'submit';
    this.#send.textContent = 'Send';
    form.append(this.#input, this.#send);
    frame.body.append(this.#linked, this.#log, this.#error, form);
    this.#showLink();

    form.addEventListener('submit', this.#onSubmit);
    this.#input.addEventListener('keydown', stopPropagation);
    this.#input.addEventListener('keyup', stopPropagation);
    this.#unsubscribe.push(client.on('messageCreated', this.#onMessageCreated));
    this.#unsubscribe.push(client.on('userUpdated', this.#onUserUpdated));
    // Linked channels: the link's name, and edits and deletes made in the guild channel.
    this.#unsubscribe.push(client.on('lobbyUpdated', (id) => id === this.lobbyId && this.#showLink()));
    this.#unsubscribe.push(client.on('messageUpdated', this.#onMessageUpdated));
    this.#unsubscribe.push(client.on('messageDeleted', this.#onMessageDeleted));
    parent.append(this.element);
  }

  /** Adds messages (history, say, newest first as `getLobbyMessagesWithLimit` returns them). */
  showMessages(messages: Iterable<MessageHandle>): void {
    for (const message of messages) this.#add(message);
  }

  /** How many messages are on screen. */
  get messageCount(): number {
    return this.#rows.size;
  }

  /** Focuses the input line. */
  focus(): void {
    this.#input.focus();
  }

  /** Unsubscribes from the client and removes the panel from the page. Safe to call twice. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const off of this.#unsubscribe.splice(0)) off();
    this.#input.removeEventListener('keydown', stopPropagation);
    this.#input.removeEventListener('keyup', stopPropagation);
    this.element.querySelector('form')?.removeEventListener('submit', this.#onSubmit);
    this.element.removeEventListener('sl-layout', this.#onLayout);
    this.element.remove();
    this.#rows.clear();
  }

  readonly #onMessageCreated = (messageId: string): void => {
    const message = this.#client.getMessageHandle(messageId);
    if (!message || !this.#add(message)) return;
    if (this.element.classList.contains('sl-collapsed') && message.authorId !== this.#client.getCurrentUserV2()?.id) {
      this.#unread++;
      this.#unreadBadge.textContent = `${this.#unread} new`;
    }
  };

  /** The linked guild channel's name under the title, or nothing when the lobby is not linked. */
  #showLink(): void {
    const channel = this.#client.getLobbyHandle(this.lobbyId)?.linkedChannel?.();
    this.#linked.textContent = channel ? `Linked to #${channel.name}` : '';
    this.#linked.title = channel ? 'Messages here are also visible in the linked server channel' : '';
    this.element.classList.toggle('sl-chat-is-linked', channel !== undefined);
  }

  readonly #onMessageUpdated = (messageId: string): void => {
    const shown = this.#rows.get(messageId);
    const text = shown?.row.querySelector('.sl-chat-text');
    if (shown && text) text.textContent = shown.message.content();
  };

  readonly #onMessageDeleted = (messageId: string): void => {
    const shown = this.#rows.get(messageId);
    if (!shown) return;
    shown.row.remove();
    this.#rows.delete(messageId);
  };

  readonly #onLayout = (): void => {
    if (this.element.classList.contains('sl-collapsed') || this.#unread === 0) return;
    this.#unread = 0;
    this.#unreadBadge.textContent = '';
  };

  /** How many messages arrived while the panel was folded, since it was last unfolded. */
  get unread(): number {
    return this.#unread;
  }

  /** Author names are live, as `MessageHandle.author()` is: a rename relabels old rows too. */
  readonly #onUserUpdated = (userId: string): void => {
    for (const { row, message } of this.#rows.values()) {
      if (message.authorId !== userId) continue;
      const author = row.querySelector('.sl-chat-author');
      if (author) author.textContent = messageAuthorLabel(message);
    }
  };

  readonly #onSubmit = (event: Event): void => {
    event.preventDefault();
    const content = this.#input.value.trim();
    if (!content || this.#send.disabled) return;
    this.#error.textContent = '';
    this.#send.disabled = true;
    this.#input.value = '';
    this.#client
      .sendLobbyMessage(this.lobbyId, content)
      .then((messageId) => {
        // The Gateway echo normally shows it first; this covers a slow or missed dispatch.
        const message = this.#client.getMessageHandle(messageId);
        if (message) this.#add(message);
      })
      .catch((error: unknown) => {
        if (this.#destroyed) return;
        if (!this.#input.value) this.#input.value = content;
        this.#error.textContent = `Not sent: ${error instanceof Error ? error.message : String(error)}`;
      })
      .finally(() => {
        this.#send.disabled = false;
      });
  };

  /** Shows a message; false when it was not one to show (another lobby, already shown). */
  #add(message: MessageHandle): boolean {
    if (this.#destroyed || message.lobbyId !== this.lobbyId || this.#rows.has(message.id)) return false;
    const doc = this.element.ownerDocument;
    const row = el(doc, 'li', 'sl-chat-message');
    row.dataset.messageId = message.id;
    row.dataset.authorId = message.authorId;
    if (message.authorId === this.#client.getCurrentUserV2()?.id) row.classList.add('sl-own');
    const time = el(doc, 'time', 'sl-chat-time');
    const sent = new Date(message.sentTimestamp);
    time.dateTime = sent.toISOString();
    time.textContent = sent.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    const author = el(doc, 'span', 'sl-chat-author');
    author.textContent = messageAuthorLabel(message);
    const text = el(doc, 'span', 'sl-chat-text');
    text.textContent = message.content();
    row.append(time, author, text);
    // Optional calls: a panel may be handed a client (or a test's fake) from before linked channels.
    if (message.disclosureType?.() !== undefined) {
      // The SDK's notice that messages are visible outside the game: no author.
      row.classList.add('sl-chat-notice');
      author.remove();
    } else if (message.linkedMessage?.()?.origin === 'channel') {
      // Written in the linked guild channel (the web app), not in a game.
      row.classList.add('sl-from-guild');
      const badge = el(doc, 'span', 'sl-chat-source');
      badge.textContent = 'server';
      badge.title = 'Sent from the linked server channel';
      author.after(badge);
      const extra = message.additionalContent();
      if (extra && !message.content()) text.textContent = `[${extra.count} ${extra.count === 1 ? 'item' : 'items'} only visible on the server]`;
    }

    const stick = this.#log.scrollHeight - this.#log.scrollTop - this.#log.clientHeight < 24;
    this.#insertInOrder(message.id, row);
    this.#rows.set(message.id, { row, message });
    this.#empty.remove();
    while (this.#rows.size > this.#maxMessages) {
      const oldest = this.#log.firstElementChild as HTMLLIElement;
      this.#rows.delete(oldest.dataset.messageId ?? '');
      oldest.remove();
    }
    if (stick) this.#log.scrollTop = this.#log.scrollHeight;
    return true;
  }

  /** Message IDs are snowflakes, so their order is send order even when history arrives late. */
  #insertInOrder(id: string, row: HTMLLIElement): void {
    let after: HTMLLIElement | null = null;
    for (const existing of this.#log.children) {
      const existingId = (existing as HTMLElement).dataset.messageId;
      if (existingId && compareSnowflakes(existingId, id) > 0) {
        after = existing as HTMLLIElement;
        break;
      }
    }
    this.#log.insertBefore(row, after);
  }
}
