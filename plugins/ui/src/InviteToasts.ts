import type { ActivityInvite } from '@social-layer/client';
import { el } from './dom.ts';
import { userLabel } from './handles.ts';
import type { FriendsClient, InviteToastOptions } from './types.ts';

const JOIN = 1;
const JOIN_REQUEST = 5;

/**
 * Game invites as toasts over the canvas: "<friend> invites you to play" with Accept and
 * Dismiss, or "<friend> wants to join" with Let in. Accept asks the client for the join secret
 * (acceptActivityInvite) and hands it to the game's `onJoin`, which joins the lobby: joining is
 * the game's business, not the plugin's. A toast greys out when the client reports its invite
 * invalid, and goes away after `timeoutMs`. No engine import.
 */
export class InviteToasts {
  /** The container (class `sl-toasts`). */
  readonly element: HTMLElement;
  readonly #client: FriendsClient;
  readonly #options: InviteToastOptions;
  readonly #toasts = new Map<string, { toast: HTMLElement; timer: ReturnType<typeof setTimeout> }>();
  readonly #unsubscribe: (() => void)[] = [];
  #destroyed = false;

  constructor(client: FriendsClient, parent: HTMLElement, options: InviteToastOptions = {}) {
    this.#client = client;
    this.#options = options;
    this.element = el(parent.ownerDocument, 'div', `sl-toasts sl-anchor-${options.anchor ?? 'top-center'}`);
    this.element.setAttribute('aria-live', 'polite');
    this.#unsubscribe.push(client.on('activityInviteCreated', this.#onCreated));
    this.#unsubscribe.push(client.on('activityInviteUpdated', this.#onUpdated));
    parent.append(this.element);
  }

  /** How many toasts are showing. */
  get count(): number {
    return this.#toasts.size;
  }

  /** Shows a toast for an invite (the client's activityInviteCreated does this by itself). */
  show(invite: ActivityInvite): void {
    if (this.#destroyed || this.#toasts.has(invite.messageId())) return;
    const type = invite.type();
    if (type !== JOIN && type !== JOIN_REQUEST) return;
    const doc = this.element.ownerDocument;
    const toast = el(doc, 'div', 'sl-toast');
    toast.dataset.inviteId = invite.messageId();
    toast.dataset.senderId = invite.senderId();
    toast.dataset.valid = String(invite.isValid());
    const url = invite.url();
    if (url) toast.dataset.inviteUrl = url;
    const cover = invite.coverImage();
    if (cover && /^https?:\/\//.test(cover)) {
      const banner = el(doc, 'div', 'sl-toast-cover');
      banner.style.backgroundImage = `url("${cover.replace(/["\\]/g, '')}")`;
      toast.append(banner);
    }
    const sender = userLabel(this.#client.getUser(invite.senderId()), 'A friend');
    const title = el(doc, 'div', 'sl-toast-title');
    title.textContent = type === JOIN ? `${sender} invites you to play` : `${sender} wants to join you`;
    toast.append(title);
    if (invite.content()) {
      const content = el(doc, 'div', 'sl-toast-content');
      content.textContent = invite.content();
      toast.append(content);
    }
    const error = el(doc, 'div', 'sl-toast-error');
    const actions = el(doc, 'div', 'sl-toast-actions');
    const accept = el(doc, 'button', 'sl-toast-accept');
    accept.type = 'button';
    accept.textContent = type === JOIN ? 'Accept' : 'Let in';
    accept.disabled = !invite.isValid();
    const dismiss = el(doc, 'button', 'sl-toast-dismiss');
    dismiss.type = 'button';
    dismiss.textContent = 'Dismiss';
    actions.append(accept, dismiss);
    toast.append(actions, error);

    accept.addEventListener('click', () => {
      accept.disabled = true;
      error.textContent = '';
      const done =
        type === JOIN
          ? this.#client.acceptActivityInvite(invite).then((secret) => this.#options.onJoin?.(secret, invite))
          : this.#client.sendActivityJoinRequestReply(invite);
      Promise.resolve(done).then(
        () => this.dismiss(invite.messageId()),
        (e: unknown) => {
          if (this.#destroyed) return;
          error.textContent = e instanceof Error ? e.message : String(e);
          accept.disabled = false;
        },
      );
    });
    dismiss.addEventListener('click', () => this.dismiss(invite.messageId()));

    const timer = setTimeout(() => this.dismiss(invite.messageId()), this.#options.timeoutMs ?? 30_000);
    this.#toasts.set(invite.messageId(), { toast, timer });
    this.element.append(toast);
  }

  /** Removes the toast of this invite, if shown. */
  dismiss(inviteId: string): void {
    const entry = this.#toasts.get(inviteId);
    if (!entry) return;
    clearTimeout(entry.timer);
    entry.toast.remove();
    this.#toasts.delete(inviteId);
  }

  /** Unsubscribes and removes every toast. Safe to call twice. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const off of this.#unsubscribe.splice(0)) off();
    for (const id of [...this.#toasts.keys()]) this.dismiss(id);
    this.element.remove();
  }

  readonly #onCreated = (invite: ActivityInvite): void => this.show(invite);

  readonly #onUpdated = (invite: ActivityInvite): void => {
    const entry = this.#toasts.get(invite.messageId());
    if (!entry) return;
    entry.toast.dataset.valid = String(invite.isValid());
    const accept = entry.toast.querySelector<HTMLButtonElement>('.sl-toast-accept');
    if (accept) accept.disabled = !invite.isValid();
  };
}
