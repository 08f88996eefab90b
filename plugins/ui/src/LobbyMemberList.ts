import type { LobbyMemberHandle } from '@social-layer/client';
import { el } from './dom.ts';
import { createPanelFrame } from './panelFrame.ts';
import { compareSnowflakes, memberLabel } from './handles.ts';
import type { MemberListOptions, PanelClient } from './types.ts';

const LOBBY_EVENTS = ['lobbyCreated', 'lobbyUpdated', 'lobbyDeleted'] as const;
const MEMBER_EVENTS = ['lobbyMemberAdded', 'lobbyMemberUpdated', 'lobbyMemberRemoved'] as const;

/**
 * A lobby's members with their display names and whether they are connected now. It redraws
 * from the client's `LobbyHandle` whenever the client reports a change to that lobby, so it
 * never keeps a copy of lobby state. No engine import.
 */
export class LobbyMemberList {
  /** The panel's root element (class `sl-panel sl-members`). */
  readonly element: HTMLElement;
  /** The lobby whose members this lists. */
  readonly lobbyId: string;
  readonly #client: PanelClient;
  readonly #list: HTMLUListElement;
  readonly #count: HTMLElement;
  readonly #memberColor: MemberListOptions['memberColor'];
  readonly #unsubscribe: (() => void)[] = [];
  #destroyed = false;

  constructor(client: PanelClient, lobbyId: string, parent: HTMLElement, options: MemberListOptions = {}) {
    this.#client = client;
    this.lobbyId = lobbyId;
    this.#memberColor = options.memberColor;
    const doc = parent.ownerDocument;

    const frame = createPanelFrame(doc, 'sl-members', options.title ?? 'Players', options.anchor ?? 'top-right');
    this.element = frame.element;
    this.#count = frame.count;
    this.#count.classList.add('sl-member-count');
    this.#list = el(doc, 'ul', 'sl-member-list');
    this.#list.setAttribute('aria-label', options.title ?? 'Players');
    frame.body.append(this.#list);

    for (const event of LOBBY_EVENTS) this.#unsubscribe.push(client.on(event, this.#onLobbyEvent));
    for (const event of MEMBER_EVENTS) this.#unsubscribe.push(client.on(event, this.#onLobbyEvent));
    this.#unsubscribe.push(client.on('userUpdated', this.#onUserUpdated));
    parent.append(this.element);
    this.refresh();
  }

  /** Redraws from the client's current state; the game may call it after changes it made itself. */
  refresh(): void {
    if (this.#destroyed) return;
    const doc = this.element.ownerDocument;
    const selfId = this.#client.getCurrentUserV2()?.id;
    const members = [...(this.#client.getLobbyHandle(this.lobbyId)?.lobbyMembers() ?? [])].sort(byConnectedThenId);
    const rows = members.map((member) => this.#row(doc, member, member.id === selfId));
    this.#list.replaceChildren(...rows);
    const online = members.filter((member) => member.connected()).length;
    this.#count.textContent = `${online}/${members.length}`;
  }

  /** Unsubscribes from the client and removes the panel from the page. Safe to call twice. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const off of this.#unsubscribe.splice(0)) off();
    this.element.remove();
  }

  readonly #onLobbyEvent = (lobbyId: string): void => {
    if (lobbyId === this.lobbyId) this.refresh();
  };

  readonly #onUserUpdated = (userId: string): void => {
    if (this.#client.getLobbyHandle(this.lobbyId)?.getLobbyMemberHandle(userId)) this.refresh();
  };

  #row(doc: Document, member: LobbyMemberHandle, isSelf: boolean): HTMLLIElement {
    const row = el(doc, 'li', 'sl-member');
    row.dataset.userId = member.id;
    const connected = member.connected();
    row.dataset.connected = String(connected);
    if (connected) row.classList.add('sl-connected');
    const status = el(doc, 'span', 'sl-member-status');
    status.title = connected ? 'Connected' : 'Offline';
    row.append(status);
    const color = this.#memberColor?.(member.id);
    if (color) {
      const swatch = el(doc, 'span', 'sl-member-swatch');
      swatch.style.background = color;
      row.append(swatch);
    }
    const name = el(doc, 'span', 'sl-member-name');
    name.textContent = memberLabel(member);
    row.append(name);
    if (isSelf) {
      const you = el(doc, 'span', 'sl-member-you');
      you.textContent = 'you';
      row.append(you);
    }
    return row;
  }
}

function byConnectedThenId(a: LobbyMemberHandle, b: LobbyMemberHandle): number {
  return Number(b.connected()) - Number(a.connected()) || compareSnowflakes(a.id, b.id);
}
