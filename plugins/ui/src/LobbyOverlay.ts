import { el } from './dom.ts';
import { FriendsPanel } from './FriendsPanel.ts';
import { InviteToasts } from './InviteToasts.ts';
import { LobbyChatPanel } from './LobbyChatPanel.ts';
import { LobbyMemberList } from './LobbyMemberList.ts';
import { safeAreaAround, type SafeArea } from './overlayLayout.ts';
import { isPanelCollapsed, setPanelCollapsed } from './panelFrame.ts';
import { releaseStyles, retainStyles } from './styles.ts';
import { matchesChord, parseKeyChord, type KeyChord } from './toggleKey.ts';
import type { FriendsClient, OverlayOptions, PanelAnchor, PanelClient, ShowFriendsOptions, ShowLobbyOptions } from './types.ts';

/** Below this overlay width the layout is the phone one (see the stylesheet's container query). */
const NARROW_PX = 600;

/** A rectangle in page (viewport) coordinates, as `getBoundingClientRect` gives. */
export interface PageRect {
  /** Left edge, in CSS pixels from the viewport's left. */
  x: number;
  /** Top edge, in CSS pixels from the viewport's top. */
  y: number;
  /** Width in CSS pixels. */
  width: number;
  /** Height in CSS pixels. */
  height: number;
}

/**
 * The DOM layer laid over a game's canvas that holds the lobby panels. Engine-agnostic: each
 * engine plugin owns one per scene and drives it from the engine's lifecycle.
 *
 * Layout: panels dock in the four corners (`anchor`), stacking in a corner rather than covering
 * each other; the corners are the cells of a grid, so left and right columns, top and bottom
 * rows never overlap, whatever the size. Below 600 px wide the chat becomes a drawer across the
 * bottom and the top panels share the top row; there, and on touch screens, every panel starts
 * folded (a drawer opened from its title), so the field gets the screen. Every panel collapses to
 * its title bar; the toggle key (Shift+Tab by default, when focus is in the game rather than in a
 * panel) collapses or expands them all. `safeArea()` tells the game where nothing covers it;
 * `keepClear()` is told where the game must stay seen (a speaking player), and panels there fold
 * or step aside; `onResize()` tells the engine when the canvas's box changed size.
 */
export class LobbyOverlay {
  /** The overlay element (class `sl-overlay`), the size of its parent. */
  readonly element: HTMLElement;
  readonly #client: PanelClient;
  readonly #layout: HTMLElement;
  readonly #docks = new Map<PanelAnchor, HTMLElement>();
  readonly #chord: KeyChord | undefined;
  readonly #layoutListeners = new Set<(area: SafeArea) => void>();
  readonly #resizeListeners = new Set<(width: number, height: number) => void>();
  readonly #keepClear = new Map<string, PageRect>();
  #size = { width: 0, height: 0 };
  readonly #resize: ResizeObserver | undefined;
  #chat: LobbyChatPanel | undefined;
  #members: LobbyMemberList | undefined;
  #friends: FriendsPanel | undefined;
  #toasts: InviteToasts | undefined;
  #collapsed: boolean;
  #narrow: boolean | undefined;
  #destroyed = false;

  constructor(client: PanelClient, parent: HTMLElement, options: OverlayOptions = {}) {
    this.#client = client;
    const doc = parent.ownerDocument;
    retainStyles(doc);
    this.element = el(doc, 'div', 'sl-overlay');
    this.element.setAttribute('data-social-layer-overlay', '');
    this.#layout = el(doc, 'div', 'sl-layout');
    this.element.append(this.#layout);
    // All four corners exist from the start (empty ones take no room), so the phone layout can
    // give a lone panel the whole row (`:has(.sl-dock-…:empty)`).
    for (const anchor of ['top-left', 'top-right', 'bottom-left', 'bottom-right'] as const) this.#dock(anchor);
    this.#collapsed = options.collapsed ?? false;
    this.#chord = options.toggleKey === false ? undefined : parseKeyChord(options.toggleKey ?? 'Shift+Tab');
    // The overlay fills its parent, so the parent must be a containing block.
    if (doc.defaultView?.getComputedStyle(parent).position === 'static') parent.style.position = 'relative';
    parent.append(this.element);
    doc.defaultView?.addEventListener('keydown', this.#onKeyDown, true);
    this.element.addEventListener('sl-layout', this.#onLayoutEvent);
    this.element.addEventListener('click', this.#onToggleClick);
    const Observer = doc.defaultView?.ResizeObserver;
    if (Observer) {
      this.#resize = new Observer(() => this.#onResize());
      this.#resize.observe(this.element);
      for (const dock of this.#docks.values()) this.#resize.observe(dock);
    }
  }

  /** The lobby chat panel, while `showLobby` shows one. */
  get chat(): LobbyChatPanel | undefined {
    return this.#chat;
  }

  /** The member list, while `showLobby` shows one. */
  get members(): LobbyMemberList | undefined {
    return this.#members;
  }

  /** The friends panel, while `showFriends` shows one. */
  get friends(): FriendsPanel | undefined {
    return this.#friends;
  }

  /** The invite toasts, while `showFriends` shows them. */
  get toasts(): InviteToasts | undefined {
    return this.#toasts;
  }

  /** Whether the panels are collapsed to their title bars (the toggle key's state). */
  get collapsed(): boolean {
    return this.#collapsed;
  }

  /** Shows the panels for one lobby, replacing any shown before. */
  showLobby(lobbyId: string, options: ShowLobbyOptions = {}): void {
    if (this.#destroyed) throw new Error('LobbyOverlay: showLobby after destroy');
    this.hideLobby();
    if (options.members !== false) {
      const members = options.members ?? {};
      this.#members = new LobbyMemberList(this.#client, lobbyId, this.#dock(members.anchor ?? 'top-right'), members);
      this.#adopt(this.#members.element);
    }
    if (options.chat !== false) {
      const chat = options.chat ?? {};
      this.#chat = new LobbyChatPanel(this.#client, lobbyId, this.#dock(chat.anchor ?? 'bottom-left'), chat);
      // On a phone the chat is a drawer across the bottom, closed until the player opens it.
      this.#chat.element.classList.add('sl-drawer');
      this.#adopt(this.#chat.element);
    }
  }

  /** Shows the friends panel and the invite toasts (either may be `false`), replacing any shown. */
  showFriends(client: FriendsClient, options: ShowFriendsOptions = {}): void {
    if (this.#destroyed) throw new Error('LobbyOverlay: showFriends after destroy');
    this.hideFriends();
    if (options.panel !== false) {
      const panel = options.panel ?? {};
      this.#friends = new FriendsPanel(client, this.#dock(panel.anchor ?? 'top-left'), panel);
      this.#adopt(this.#friends.element);
    }
    // Toasts float over the top center: they come and go, and must be seen.
    if (options.toasts !== false) this.#toasts = new InviteToasts(client, this.element, options.toasts ?? {});
  }

  /** Removes the friends panel and the invite toasts. */
  hideFriends(): void {
    this.#friends?.destroy();
    this.#toasts?.destroy();
    this.#friends = undefined;
    this.#toasts = undefined;
    this.#changed();
  }

  /** Removes the panels and their client listeners; the overlay stays. */
  hideLobby(): void {
    this.#chat?.destroy();
    this.#members?.destroy();
    this.#chat = undefined;
    this.#members = undefined;
    this.#changed();
  }

  /** Collapses every panel to its title bar, or expands them all. */
  setCollapsed(collapsed: boolean): void {
    this.#collapsed = collapsed;
    for (const panel of this.#panels()) setPanelCollapsed(panel, collapsed);
    this.element.classList.toggle('sl-all-collapsed', collapsed);
    this.#changed();
  }

  /** What the toggle key does. */
  toggle(): void {
    this.setCollapsed(!this.#panels().every(isPanelCollapsed));
  }

  /** Moves a panel to another corner (it joins the panels already docked there). */
  dock(panel: 'chat' | 'members' | 'friends', anchor: PanelAnchor): void {
    const element = (panel === 'chat' ? this.#chat : panel === 'members' ? this.#members : this.#friends)?.element;
    if (!element) return;
    for (const old of ['top-left', 'top-right', 'bottom-left', 'bottom-right']) element.classList.remove(`sl-anchor-${old}`);
    element.classList.add(`sl-anchor-${anchor}`);
    this.#dock(anchor).append(element);
    this.#changed();
  }

  /**
   * The part of the overlay (and so of the canvas under it) that no panel or toast covers, as
   * insets from each edge in CSS pixels: where a game should keep avatars, hints and spawn
   * points. It changes with the size and the panels; `onLayout` says when.
   */
  safeArea(): SafeArea {
    const box = this.element.getBoundingClientRect();
    const obstacles = [...this.element.querySelectorAll<HTMLElement>('.sl-panel:not(.sl-yield-hidden), .sl-toast')]
      .map((node) => node.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0)
      .map((r) => ({ left: r.left - box.left, top: r.top - box.top, right: r.right - box.left, bottom: r.bottom - box.top }));
    return safeAreaAround(box.width, box.height, obstacles);
  }

  /**
   * Keeps the panels off a rectangle of the page (client coordinates), named by `key`: a speaking
   * player's avatar, say, so nobody talks from under the chat. An open panel over it folds to its
   * title bar, and a title bar still over it steps out of sight, until the rectangle moves or is
   * cleared (`undefined`), when what was folded for it opens again. Panels the player folded stay
   * folded.
   */
  keepClear(key: string, rect: PageRect | undefined): void {
    if (this.#destroyed) return;
    if (rect) this.#keepClear.set(key, rect);
    else if (!this.#keepClear.delete(key)) return;
    this.#yield();
    this.#changed();
  }

  /**
   * Called with the overlay's new size (its parent's: the canvas's box) whenever it changes, e.g.
   * when the page header grows a row. Engine plugins resize their canvas here: a game that draws on
   * demand does not poll its container's size.
   */
  onResize(listener: (width: number, height: number) => void): () => void {
    this.#resizeListeners.add(listener);
    return () => this.#resizeListeners.delete(listener);
  }

  /** Called with the new safe area when the overlay's size or its panels change. */
  onLayout(listener: (area: SafeArea) => void): () => void {
    this.#layoutListeners.add(listener);
    return () => this.#layoutListeners.delete(listener);
  }

  /** Removes everything this overlay added to the page. Safe to call twice. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.hideLobby();
    this.hideFriends();
    this.#layoutListeners.clear();
    this.#resizeListeners.clear();
    this.#keepClear.clear();
    this.#resize?.disconnect();
    const doc = this.element.ownerDocument;
    doc.defaultView?.removeEventListener('keydown', this.#onKeyDown, true);
    this.element.removeEventListener('sl-layout', this.#onLayoutEvent);
    this.element.removeEventListener('click', this.#onToggleClick);
    this.element.remove();
    releaseStyles(doc);
  }

  #dock(anchor: PanelAnchor): HTMLElement {
    let dock = this.#docks.get(anchor);
    if (!dock) {
      dock = el(this.element.ownerDocument, 'div', `sl-dock sl-dock-${anchor}`);
      this.#docks.set(anchor, dock);
      this.#layout.append(dock);
      this.#resize?.observe(dock);
    }
    return dock;
  }

  /** A new panel takes the overlay's collapsed state (folded on a phone or touch screen). */
  #adopt(panel: HTMLElement): void {
    setPanelCollapsed(panel, this.#collapsed || this.#isPhone());
    this.#yield();
    this.#changed();
  }

  #panels(): HTMLElement[] {
    return [...this.#layout.querySelectorAll<HTMLElement>('.sl-panel')];
  }

  #isNarrow(): boolean {
    const width = this.element.getBoundingClientRect().width;
    return width > 0 && width < NARROW_PX;
  }

  /** A narrow canvas, or a touch screen (coarse pointer): panels start folded there. */
  #isPhone(): boolean {
    return this.#isNarrow() || this.element.ownerDocument.defaultView?.matchMedia?.('(pointer: coarse)').matches === true;
  }

  /**
   * Folds the open panels that cover a kept-clear rectangle, hides title bars that still do, and
   * opens again what it folded once nothing is in the way. Measured with the folded panels opened
   * and the hidden ones shown (synchronously, so nothing flickers).
   */
  #yield(): void {
    const panels = this.#panels();
    for (const panel of panels) {
      if (panel.dataset.slYielded === 'folded') panel.classList.remove('sl-collapsed');
      panel.classList.remove('sl-yield-hidden');
      delete panel.dataset.slYielded;
    }
    const rects = [...this.#keepClear.values()];
    if (rects.length === 0) for (const panel of panels) delete panel.dataset.slPlayerOpened;
    const covers = (panel: HTMLElement) => {
      const r = panel.getBoundingClientRect();
      return rects.some((k) => r.left < k.x + k.width && k.x < r.right && r.top < k.y + k.height && k.y < r.bottom);
    };
    if (rects.length > 0) {
      for (const panel of panels) {
        if (panel.dataset.slPlayerOpened !== undefined) continue;
        if (!isPanelCollapsed(panel) && covers(panel)) {
          panel.classList.add('sl-collapsed');
          panel.dataset.slYielded = 'folded';
        }
      }
      for (const panel of panels) {
        if (panel.dataset.slPlayerOpened !== undefined || !covers(panel)) continue;
        panel.classList.add('sl-yield-hidden');
        panel.dataset.slYielded ??= 'hidden';
      }
    }
    // The toggles tell what is open; a folded-for-now panel reads as folded.
    for (const panel of panels) panel.querySelector('.sl-panel-toggle')?.setAttribute('aria-expanded', String(!isPanelCollapsed(panel)));
  }

  readonly #onResize = (): void => {
    // Turning into a phone layout folds the panels once; the player opens them from there.
    const narrow = this.#isNarrow();
    if (narrow && this.#narrow !== true) for (const panel of this.#panels()) setPanelCollapsed(panel, true);
    this.#narrow = narrow;
    const { width, height } = this.element.getBoundingClientRect();
    if (width !== this.#size.width || height !== this.#size.height) {
      const first = this.#size.width === 0 && this.#size.height === 0;
      this.#size = { width, height };
      if (!first) for (const listener of this.#resizeListeners) listener(width, height);
    }
    this.#yield();
    this.#changed();
  };

  readonly #onLayoutEvent = (): void => this.#changed();

  /** A panel the player opens while it is folded for a kept-clear rectangle stays open: their choice wins. */
  readonly #onToggleClick = (event: Event): void => {
    const panel = (event.target as Element | null)?.closest?.('.sl-panel-toggle')?.closest<HTMLElement>('.sl-panel');
    if (!panel || panel.dataset.slYielded === undefined) return;
    delete panel.dataset.slYielded;
    panel.dataset.slPlayerOpened = '';
    panel.classList.remove('sl-yield-hidden');
  };

  #changed(): void {
    if (this.#destroyed || this.#layoutListeners.size === 0) return;
    const area = this.safeArea();
    for (const listener of this.#layoutListeners) listener(area);
  }

  readonly #onKeyDown = (event: KeyboardEvent): void => {
    if (!this.#chord || !matchesChord(event, this.#chord)) return;
    // Inside the panels Shift+Tab keeps its meaning (focus goes back); in a text field it is typing.
    const active = this.element.ownerDocument.activeElement;
    if (active && (this.element.contains(active) || /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName) || (active as HTMLElement).isContentEditable)) return;
    event.preventDefault();
    this.toggle();
  };
}
