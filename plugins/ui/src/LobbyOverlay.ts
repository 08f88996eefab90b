import { el } from './dom.ts';
import { FriendsPanel } from './FriendsPanel.ts';
import { InviteToasts } from './InviteToasts.ts';
import { LobbyChatPanel } from './LobbyChatPanel.ts';
import { LobbyMemberList } from './LobbyMemberList.ts';
import { releaseStyles, retainStyles } from './styles.ts';
import type { FriendsClient, PanelClient, ShowFriendsOptions, ShowLobbyOptions } from './types.ts';

/**
 * The DOM layer laid over a game's canvas that holds the lobby panels. Engine-agnostic: each
 * engine plugin owns one per scene and drives it from the engine's lifecycle.
 */
export class LobbyOverlay {
  /** The overlay element (class `sl-overlay`), the size of its parent. */
  readonly element: HTMLElement;
  readonly #client: PanelClient;
  #chat: LobbyChatPanel | undefined;
  #members: LobbyMemberList | undefined;
  #friends: FriendsPanel | undefined;
  #toasts: InviteToasts | undefined;
  #destroyed = false;

  constructor(client: PanelClient, parent: HTMLElement) {
    this.#client = client;
    const doc = parent.ownerDocument;
    retainStyles(doc);
    this.element = el(doc, 'div', 'sl-overlay');
    // The overlay fills its parent, so the parent must be a containing block.
    if (doc.defaultView?.getComputedStyle(parent).position === 'static') parent.style.position = 'relative';
    parent.append(this.element);
  }

  get chat(): LobbyChatPanel | undefined {
    return this.#chat;
  }

  get members(): LobbyMemberList | undefined {
    return this.#members;
  }

  /** Shows the panels for one lobby, replacing any shown before. */
  showLobby(lobbyId: string, options: ShowLobbyOptions = {}): void {
    if (this.#destroyed) throw new Error('LobbyOverlay: showLobby after destroy');
    this.hideLobby();
    if (options.members !== false) {
      this.#members = new LobbyMemberList(this.#client, lobbyId, this.element, options.members ?? {});
    }
    if (options.chat !== false) {
      this.#chat = new LobbyChatPanel(this.#client, lobbyId, this.element, options.chat ?? {});
    }
  }

  get friends(): FriendsPanel | undefined {
    return this.#friends;
  }

  get toasts(): InviteToasts | undefined {
    return this.#toasts;
  }

  /** Shows the friends panel and the invite toasts (either may be `false`), replacing any shown. */
  showFriends(client: FriendsClient, options: ShowFriendsOptions = {}): void {
    if (this.#destroyed) throw new Error('LobbyOverlay: showFriends after destroy');
    this.hideFriends();
    if (options.panel !== false) this.#friends = new FriendsPanel(client, this.element, options.panel ?? {});
    if (options.toasts !== false) this.#toasts = new InviteToasts(client, this.element, options.toasts ?? {});
  }

  hideFriends(): void {
    this.#friends?.destroy();
    this.#toasts?.destroy();
    this.#friends = undefined;
    this.#toasts = undefined;
  }

  /** Removes the panels and their client listeners; the overlay stays. */
  hideLobby(): void {
    this.#chat?.destroy();
    this.#members?.destroy();
    this.#chat = undefined;
    this.#members = undefined;
  }

  /** Removes everything this overlay added to the page. Safe to call twice. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.hideLobby();
    this.hideFriends();
    const doc = this.element.ownerDocument;
    this.element.remove();
    releaseStyles(doc);
  }
}
