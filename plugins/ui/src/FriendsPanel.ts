import type { RelationshipGroupType, RelationshipHandle, StatusType, UserHandle } from '@social-layer/client';
import { el, stopPropagation } from './dom.ts';
import { createPanelFrame } from './panelFrame.ts';
import { userLabel } from './handles.ts';
import type { FriendsClient, FriendsPanelOptions } from './types.ts';

// Enum values spelled out, so the plugin imports only types from the client (its README's rule).
const GROUPS: { group: RelationshipGroupType; title: string }[] = [
  { group: 0 as RelationshipGroupType, title: 'Playing' },
  { group: 1 as RelationshipGroupType, title: 'Online' },
  { group: 2 as RelationshipGroupType, title: 'Offline' },
];
const FRIEND = 1;
const PENDING_INCOMING = 3;
const PENDING_OUTGOING = 4;
const STATUS_NAMES: Partial<Record<StatusType, string>> = { 0: 'online', 1: 'offline', 3: 'idle', 4: 'dnd', 5: 'offline' };
const REDRAW_EVENTS = ['relationshipGroupsUpdated', 'relationshipCreated', 'relationshipDeleted', 'userUpdated'] as const;

/**
 * The player's friends with their presence, grouped as the client groups them (playing this
 * game, online elsewhere, offline), with an Invite button each; friend requests to answer; and a
 * line to add a friend by username. It redraws from the client whenever the client says a list
 * may have changed (relationshipGroupsUpdated and friends), so it keeps no social state of its
 * own. No engine import.
 */
export class FriendsPanel {
  /** The panel's root element (class `sl-panel sl-friends`). */
  readonly element: HTMLElement;
  readonly #client: FriendsClient;
  readonly #list: HTMLElement;
  readonly #count: HTMLElement;
  readonly #status: HTMLElement;
  readonly #input: HTMLInputElement;
  readonly #unsubscribe: (() => void)[] = [];
  /** The username of the request sent from this panel, until it is answered. */
  #sentTo: string | undefined;
  /** Rows whose Invite was just clicked, so a redraw keeps showing "Invited". */
  readonly #invited = new Map<string, number>();
  #destroyed = false;

  constructor(client: FriendsClient, parent: HTMLElement, options: FriendsPanelOptions = {}) {
    this.#client = client;
    const doc = parent.ownerDocument;
    const frame = createPanelFrame(doc, 'sl-friends', options.title ?? 'Friends', options.anchor ?? 'top-left');
    this.element = frame.element;
    this.#count = frame.count;
    this.#count.classList.add('sl-friends-count');
    this.#count.title = 'Friends online / all friends';
    this.#list = el(doc, 'div', 'sl-friends-list');
    this.#status = el(doc, 'div', 'sl-friends-status');
    this.#status.setAttribute('role', 'status');
    const form = el(doc, 'form', 'sl-friends-add');
    this.#input = el(doc, 'input', 'sl-friends-input');
    this.#input.placeholder = 'Add friend by username';
    this.#input.setAttribute('aria-label', 'Username to add');
    this.#input.autocomplete = 'off';
    const add = el(doc, 'button', 'sl-friends-add-button');
    add.type = 'submit';
    add.textContent = 'Add';
    form.append(this.#input, add);
    const you = this.#youRow(doc);
    frame.body.append(...(you ? [you] : []), this.#list, this.#status, form);

    form.addEventListener('submit', this.#onAdd);
    this.#input.addEventListener('keydown', stopPropagation);
    this.#input.addEventListener('keyup', stopPropagation);
    for (const event of REDRAW_EVENTS) this.#unsubscribe.push(client.on(event, this.#redraw));
    parent.append(this.element);
    this.refresh();
  }

  /** Redraws from the client's current state. */
  refresh(): void {
    if (this.#destroyed) return;
    const doc = this.element.ownerDocument;
    const sections: HTMLElement[] = [];
    const requests = this.#client
      .getRelationships()
      .filter((r) => isPending(r.discordRelationshipType()) || isPending(r.gameRelationshipType()));
    if (requests.length > 0) sections.push(this.#section(doc, 'Requests', requests.map((r) => this.#requestRow(doc, r))));
    let online = 0;
    let total = 0;
    for (const { group, title } of GROUPS) {
      const friends = this.#client.getRelationshipsByGroup(group);
      total += friends.length;
      if (group !== 2) online += friends.length;
      if (friends.length > 0) sections.push(this.#section(doc, title, friends.map((r) => this.#friendRow(doc, r, group))));
    }
    if (sections.length === 0) {
      const empty = el(doc, 'p', 'sl-friends-empty');
      empty.textContent = 'No friends yet. Add one by username below.';
      sections.push(empty);
    }
    this.#list.replaceChildren(...sections);
    this.#count.textContent = `${online}/${total}`;
    this.#followSentRequest();
  }

  /** Unsubscribes from the client and removes the panel. Safe to call twice. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const off of this.#unsubscribe.splice(0)) off();
    this.element.querySelector('form')?.removeEventListener('submit', this.#onAdd);
    this.#input.removeEventListener('keydown', stopPropagation);
    this.#input.removeEventListener('keyup', stopPropagation);
    this.element.remove();
  }

  readonly #redraw = (): void => this.refresh();

  readonly #onAdd = (event: Event): void => {
    event.preventDefault();
    const username = this.#input.value.trim();
    if (!username) return;
    this.#run(this.#client.sendDiscordFriendRequest(username), `Request sent to ${username}`, () => {
      this.#input.value = '';
      this.#sentTo = username.toLowerCase();
      this.#followSentRequest();
    });
  };

  /**
   * "Request sent to X" must not outlive the request: once X accepts (the relationship turns
   * into a friendship) or it goes away, the status line says so.
   */
  #followSentRequest(): void {
    const username = this.#sentTo;
    if (!username) return;
    const relationship = this.#client.getRelationships().find((r) => (r.user()?.username ?? '').toLowerCase() === username);
    if (!relationship) return;
    const type = relationship.discordRelationshipType();
    if (isPending(type)) return;
    this.#sentTo = undefined;
    this.#status.classList.remove('sl-error');
    this.#status.textContent = type === FRIEND ? `You and ${userLabel(relationship.user(), username)} are friends` : '';
  }

  /**
   * "You are @name" with a Copy button: what a friend types to add this player. The bar shows it
   * on wide screens; on a phone this panel (a drawer there) is where it can be read and copied.
   */
  #youRow(doc: Document): HTMLElement | undefined {
    const username = this.#client.getCurrentUserV2?.()?.username;
    if (!username) return undefined;
    const row = el(doc, 'div', 'sl-friends-you');
    const text = el(doc, 'div', 'sl-friends-you-text');
    const label = el(doc, 'span', 'sl-friends-you-label');
    label.textContent = 'Friends add you as';
    const name = el(doc, 'span', 'sl-friends-you-name');
    name.textContent = `@${username}`;
    name.title = 'Friends add you with this username';
    const copy = el(doc, 'button', 'sl-friends-copy');
    copy.type = 'button';
    copy.textContent = 'Copy';
    copy.setAttribute('aria-label', `Copy your username ${username}`);
    copy.addEventListener('click', () => {
      const flash = (text: string) => {
        copy.textContent = text;
        setTimeout(() => (copy.textContent = 'Copy'), 1500);
      };
      const clipboard = globalThis.navigator?.clipboard;
      if (!clipboard) return flash('Select it');
      clipboard.writeText(username).then(() => flash('Copied'), () => flash('Select it'));
    });
    text.append(label, name);
    row.append(text, copy);
    return row;
  }

  #section(doc: Document, title: string, rows: HTMLElement[]): HTMLElement {
    const section = el(doc, 'div', 'sl-friends-group');
    section.dataset.group = title.toLowerCase();
    const heading = el(doc, 'h3', 'sl-friends-group-title');
    heading.textContent = `${title} — ${rows.length}`;
    const list = el(doc, 'ul', 'sl-friends-rows');
    list.append(...rows);
    section.append(heading, list);
    return section;
  }

  #friendRow(doc: Document, relationship: RelationshipHandle, group: RelationshipGroupType): HTMLLIElement {
    const user = relationship.user();
    const row = el(doc, 'li', 'sl-friend');
    row.dataset.userId = relationship.id;
    const status = STATUS_NAMES[user?.status() ?? (1 as StatusType)] ?? 'offline';
    row.dataset.status = status;
    row.dataset.group = String(group);
    const dot = el(doc, 'span', `sl-friend-status sl-status-${status}`);
    dot.title = status;
    const text = el(doc, 'div', 'sl-friend-text');
    const name = el(doc, 'span', 'sl-friend-name');
    name.textContent = userLabel(user, relationship.id);
    const activity = el(doc, 'span', 'sl-friend-activity');
    activity.textContent = activityLine(user, group);
    text.append(name, activity);
    const invite = el(doc, 'button', 'sl-friend-invite');
    invite.type = 'button';
    const recently = (this.#invited.get(relationship.id) ?? 0) > Date.now() - 3000;
    invite.textContent = recently ? 'Invited' : 'Invite';
    invite.disabled = recently;
    invite.addEventListener('click', () => {
      invite.disabled = true;
      this.#run(this.#client.sendActivityInvite(relationship.id, ''), `Invite sent to ${name.textContent}`, () => {
        this.#invited.set(relationship.id, Date.now());
        invite.textContent = 'Invited';
        setTimeout(() => this.refresh(), 3100);
      }, () => (invite.disabled = false));
    });
    row.append(dot, text, invite);
    return row;
  }

  #requestRow(doc: Document, relationship: RelationshipHandle): HTMLLIElement {
    const row = el(doc, 'li', 'sl-friend sl-friend-request');
    row.dataset.userId = relationship.id;
    const text = el(doc, 'div', 'sl-friend-text');
    const name = el(doc, 'span', 'sl-friend-name');
    name.textContent = userLabel(relationship.user(), relationship.id);
    const actions = el(doc, 'div', 'sl-friend-actions');
    const note = el(doc, 'span', 'sl-friend-activity');
    const incoming = relationship.discordRelationshipType() === PENDING_INCOMING || relationship.gameRelationshipType() === PENDING_INCOMING;
    note.textContent = incoming ? (relationship.isSpamRequest() ? 'Wants to be friends (possible spam)' : 'Wants to be friends') : 'Request sent';
    text.append(name, note);
    row.append(text);
    if (incoming) {
      row.dataset.direction = 'incoming';
      const accept = el(doc, 'button', 'sl-friend-accept');
      accept.type = 'button';
      accept.textContent = 'Accept';
      accept.addEventListener('click', () => this.#run(this.#client.acceptDiscordFriendRequest(relationship.id), `You and ${name.textContent} are friends`));
      const decline = el(doc, 'button', 'sl-friend-decline');
      decline.type = 'button';
      decline.textContent = 'Decline';
      decline.addEventListener('click', () => this.#run(this.#client.rejectDiscordFriendRequest(relationship.id), ''));
      actions.append(accept, decline);
      row.append(actions);
    } else {
      row.dataset.direction = 'outgoing';
    }
    return row;
  }

  /** Runs one client call and shows how it went under the list. */
  #run(call: Promise<unknown>, success: string, onSuccess?: () => void, onFailure?: () => void): void {
    this.#status.classList.remove('sl-error');
    call.then(
      () => {
        if (this.#destroyed) return;
        this.#status.textContent = success;
        onSuccess?.();
      },
      (error: unknown) => {
        if (this.#destroyed) return;
        this.#status.classList.add('sl-error');
        this.#status.textContent = error instanceof Error ? error.message : String(error);
        onFailure?.();
      },
    );
  }
}

function isPending(type: number): boolean {
  return type === PENDING_INCOMING || type === PENDING_OUTGOING;
}

/** "In a party · Round 3" from this game's rich presence; a plain label otherwise. */
function activityLine(user: UserHandle | undefined, group: RelationshipGroupType): string {
  const activity = user?.gameActivity();
  if (activity) {
    const parts = [activity.state(), activity.details()].filter(Boolean);
    const party = activity.party();
    if (party && party.maxSize() > 0) parts.push(`${party.currentSize()}/${party.maxSize()}`);
    return parts.length > 0 ? parts.join(' · ') : `Playing ${activity.name()}`;
  }
  return group === 1 ? 'Online elsewhere' : group === 0 ? 'Playing' : 'Offline';
}
