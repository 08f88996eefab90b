/** The part of a client `Call` push-to-talk drives. */
export interface PushToTalkCall {
  /** Sets the call's audio mode (push-to-talk or voice activity). */
  setAudioMode(mode: number): void;
  /** Opens (true) or closes the microphone in push-to-talk mode. */
  setPTTActive(active: boolean): void;
}

/** Options of `PushToTalkKey`: the key and what it drives. */
export interface PushToTalkKeyOptions {
  /** The key, as `KeyboardEvent.code` (layout-independent). Default 'KeyV'. */
  code?: string;
  /** Where keys are listened for; its `blur` releases the key. Default: the page's window. */
  target?: EventTarget;
}

/** AudioModeType.MODE_PTT (the client's enum; the UI package imports client types only). */
export const MODE_PTT = 2;

/**
 * Binds a key to a call's push-to-talk with plain DOM key events, for engines whose own
 * keyboard input needs the canvas focused: held = talking. The game owns the key, the call owns
 * the audio (DESIGN.md convention 6). Keys typed into a text field (the chat) never talk, and a
 * blur releases the key, since a key held while the tab loses focus never sends its keyup.
 */
export class PushToTalkKey {
  /** The key's `KeyboardEvent.code`. */
  readonly code: string;
  readonly #call: PushToTalkCall;
  readonly #target: EventTarget;
  #active = false;
  #destroyed = false;

  constructor(call: PushToTalkCall, options: PushToTalkKeyOptions = {}) {
    const target = options.target ?? globalThis.window;
    if (!target) throw new Error('PushToTalkKey: no window to listen on; pass options.target');
    this.code = options.code ?? 'KeyV';
    this.#call = call;
    this.#target = target;
    call.setAudioMode(MODE_PTT);
    target.addEventListener('keydown', this.#down);
    target.addEventListener('keyup', this.#up);
    target.addEventListener('blur', this.#release);
  }

  /** Whether the key is held now. */
  get active(): boolean {
    return this.#active;
  }

  /** Releases the key if held and removes the listeners. Safe to call twice. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#release();
    this.#destroyed = true;
    this.#target.removeEventListener('keydown', this.#down);
    this.#target.removeEventListener('keyup', this.#up);
    this.#target.removeEventListener('blur', this.#release);
  }

  readonly #down = (event: Event): void => {
    if (this.#destroyed || this.#active || (event as KeyboardEvent).code !== this.code) return;
    if (isTextField(event.target) || isTextField(globalThis.document?.activeElement)) return;
    this.#active = true;
    this.#call.setPTTActive(true);
  };

  readonly #up = (event: Event): void => {
    if ((event as KeyboardEvent).code === this.code) this.#release();
  };

  readonly #release = (): void => {
    if (!this.#active) return;
    this.#active = false;
    this.#call.setPTTActive(false);
  };
}

function isTextField(node: unknown): boolean {
  const tag = (node as { tagName?: unknown } | null | undefined)?.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || (node as { isContentEditable?: boolean } | null)?.isContentEditable === true;
}
