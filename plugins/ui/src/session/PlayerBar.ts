import { CallStatus, ClientStatus, type Client } from '@social-layer/client';
import { el, stopPropagation } from '../dom.ts';
import { releaseStyles, retainStyles } from '../styles.ts';
import type { VoiceChat } from './VoiceChat.ts';

/**
 * What the bar needs of the session it shows: GameSession, which makes the bar and passes itself
 * to attach(). An interface, so the session and its bar do not import each other.
 */
export interface PlayerBarSession {
  readonly client: Pick<Client, 'getCurrentUserV2'>;
  readonly signedIn: boolean;
  readonly voice: Pick<VoiceChat, 'status' | 'call' | 'toggle' | 'onChange' | 'setTalking'>;
  onStatus(listener: (status: ClientStatus) => void): () => void;
  linkAccount(): Promise<void>;
  inviteUrl(): string;
  rename(name: string): Promise<void>;
}

/** Options of `PlayerBar`. */
export interface PlayerBarOptions {
  /** The push-to-talk key's `KeyboardEvent.code`, for the hint. Default 'KeyV'. */
  pushToTalkKey?: string;
}

/**
 * The player's controls in the page header, beside the game's title: a status line (signing in,
 * reconnecting, errors), who you are (`@username`, what friends add you by), your name, the
 * invite link, "Sign in to keep your progress" for guests, and the voice button with its
 * push-to-talk hint. It wraps onto a second row on narrow screens instead of running off them.
 */
export class PlayerBar {
  /** The bar's root element (inside the container it was given). */
  readonly element: HTMLElement;
  readonly #status: HTMLElement;
  readonly #controls: HTMLElement;
  readonly #keyName: string;
  readonly #off: (() => void)[] = [];
  #destroyed = false;

  constructor(host: HTMLElement, options: PlayerBarOptions = {}) {
    const doc = host.ownerDocument;
    retainStyles(doc);
    this.element = host;
    host.classList.add('sl-bar');
    this.#keyName = (options.pushToTalkKey ?? 'KeyV').replace(/^(Key|Digit)/, '');
    this.#status = el(doc, 'span', 'sl-bar-status');
    this.#status.setAttribute('role', 'status');
    this.#controls = el(doc, 'div', 'sl-bar-controls');
    host.append(this.#status, this.#controls);
  }

  /** Shows a line of progress or an error (empty: nothing). */
  setStatus(text: string, error = false): void {
    this.#status.textContent = text;
    this.#status.classList.toggle('sl-error', error);
  }

  /** Fills the controls for a started session. */
  attach(session: PlayerBarSession): void {
    const doc = this.element.ownerDocument;
    const user = session.client.getCurrentUserV2();
    const you = el(doc, 'span', 'sl-bar-you');
    you.textContent = `@${user?.username ?? ''}`;
    you.title = 'Your username: friends add you with it';
    this.#controls.append(you);
    if (!session.signedIn) this.#controls.append(this.#nameForm(session, user?.displayName ?? ''), this.#signInButton(session));
    this.#controls.append(this.#inviteButton(session), ...this.#voiceControls(session));
    // The client reconnects by itself; the player should still know when the lobby is stale.
    this.#off.push(
      session.onStatus((status) =>
        this.setStatus(status === ClientStatus.Ready ? '' : status === ClientStatus.Disconnected ? 'Disconnected' : 'Reconnecting…'),
      ),
    );
  }

  /** Removes the bar and its listeners. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const off of this.#off.splice(0)) off();
    this.#status.remove();
    this.#controls.remove();
    this.element.classList.remove('sl-bar');
    releaseStyles(this.element.ownerDocument);
  }

  #nameForm(session: PlayerBarSession, name: string): HTMLFormElement {
    const doc = this.element.ownerDocument;
    const form = el(doc, 'form', 'sl-bar-name');
    const input = el(doc, 'input', 'sl-bar-name-input');
    input.maxLength = 32;
    input.autocomplete = 'off';
    input.value = name;
    input.setAttribute('aria-label', 'Your name');
    const save = el(doc, 'button', 'sl-bar-button');
    save.type = 'submit';
    save.textContent = 'Save';
    form.append(input, save);
    // Keys typed here are not game input (engines listen on the window).
    input.addEventListener('keydown', stopPropagation);
    input.addEventListener('keyup', stopPropagation);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const next = input.value.trim();
      if (!next) return;
      input.disabled = true;
      session
        .rename(next)
        .then(() => input.blur())
        .catch((error: unknown) => this.setStatus(`Could not rename: ${message(error)}`, true))
        .finally(() => (input.disabled = false));
    });
    return form;
  }

  #signInButton(session: PlayerBarSession): HTMLButtonElement {
    const button = this.#button('sl-bar-signin sl-bar-secondary', 'Sign in');
    const wide = el(this.element.ownerDocument, 'span', 'sl-bar-wide');
    wide.textContent = ' to keep your progress';
    button.append(wide);
    button.title = 'Sign in to keep your progress: your friends and chat come with you';
    button.addEventListener('click', () => {
      button.disabled = true;
      this.setStatus('Signing in in the popup…');
      session.linkAccount().catch((error: unknown) => {
        button.disabled = false;
        this.setStatus(`Not signed in: ${message(error)}`, true);
      });
    });
    return button;
  }

  #inviteButton(session: PlayerBarSession): HTMLButtonElement {
    const button = this.#button('sl-bar-invite sl-bar-secondary', 'Copy invite link');
    button.addEventListener('click', () => {
      const flash = (text: string) => {
        button.textContent = text;
        setTimeout(() => (button.textContent = 'Copy invite link'), 1500);
      };
      const clipboard = globalThis.navigator?.clipboard;
      if (!clipboard) return flash('Copy the address bar');
      clipboard.writeText(session.inviteUrl()).then(() => flash('Link copied!'), () => flash('Copy the address bar'));
    });
    return button;
  }

  #voiceControls(session: PlayerBarSession): HTMLElement[] {
    const doc = this.element.ownerDocument;
    const button = this.#button('sl-bar-voice', 'Join voice');
    const hint = el(doc, 'span', 'sl-bar-voice-hint');
    hint.setAttribute('aria-live', 'polite');
    const talk = this.#talkButton(session);
    const render = () => {
      const status = session.voice.status;
      const joined = session.voice.call !== undefined;
      button.textContent = joined ? 'Leave voice' : 'Join voice';
      button.setAttribute('aria-pressed', String(joined));
      button.classList.toggle('sl-bar-secondary', joined);
      hint.hidden = !joined;
      talk.hidden = !joined;
      talk.disabled = status !== CallStatus.Connected;
      hint.textContent =
        status === CallStatus.Connected ? `Hold ${this.#keyName} to talk` : status === CallStatus.Reconnecting ? 'Voice reconnecting…' : 'Voice connecting…';
    };
    // The click is also the user gesture browsers want before audio plays.
    button.addEventListener('click', () => void session.voice.toggle().catch((error: unknown) => this.setStatus(`Voice: ${message(error)}`, true)));
    this.#off.push(session.voice.onChange(render));
    render();
    return [button, talk, hint];
  }

  /**
   * Hold to talk with a finger or a mouse (the stylesheet shows it on touch and narrow screens):
   * pointer down opens the microphone, pointer up, cancel or leaving the button closes it. The
   * pointer is captured, so a finger sliding off still ends with pointerup on the button; a
   * touch held here must not scroll the page or open the long-press menu (`touch-action: none`,
   * contextmenu prevented).
   */
  #talkButton(session: PlayerBarSession): HTMLButtonElement {
    const talk = this.#button('sl-bar-talk', 'Hold to talk');
    talk.classList.remove('sl-bar-button');
    talk.setAttribute('aria-pressed', 'false');
    talk.hidden = true;
    const set = (active: boolean) => {
      if (talk.getAttribute('aria-pressed') === String(active)) return;
      talk.setAttribute('aria-pressed', String(active));
      talk.textContent = active ? 'Talking…' : 'Hold to talk';
      session.voice.setTalking(active);
    };
    talk.addEventListener('pointerdown', (event) => {
      if (event.button !== 0 || talk.disabled) return;
      event.preventDefault();
      talk.setPointerCapture?.(event.pointerId);
      set(true);
    });
    for (const type of ['pointerup', 'pointercancel', 'lostpointercapture'] as const) talk.addEventListener(type, () => set(false));
    // A mouse dragged out of the button stops too (a captured pointer does not leave).
    talk.addEventListener('pointerleave', () => set(false));
    talk.addEventListener('contextmenu', (event) => event.preventDefault());
    // Keyboard users hold Space or Enter on the focused button.
    talk.addEventListener('keydown', (event) => {
      if ((event.key === ' ' || event.key === 'Enter') && !event.repeat) {
        event.preventDefault();
        set(true);
      }
    });
    talk.addEventListener('keyup', (event) => {
      if (event.key === ' ' || event.key === 'Enter') set(false);
    });
    talk.addEventListener('blur', () => set(false));
    this.#off.push(() => set(false));
    return talk;
  }

  #button(className: string, text: string): HTMLButtonElement {
    const button = el(this.element.ownerDocument, 'button', `sl-bar-button ${className}`);
    button.type = 'button';
    button.textContent = text;
    return button;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
