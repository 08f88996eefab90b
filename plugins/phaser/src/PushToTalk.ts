import * as Phaser from 'phaser';
import { MODE_PTT, type PushToTalkCall } from '@social-layer/ui';

export type { PushToTalkCall };

/**
 * Binds a key to a call's push-to-talk: held = talking. The game owns the key, the call owns
 * the audio (DESIGN.md convention 6). Releases on window blur (a key held while the tab loses
 * focus never sends its keyup) and unbinds itself when the scene shuts down.
 */
export class PushToTalk {
  readonly #scene: Phaser.Scene;
  readonly #call: PushToTalkCall;
  readonly #key: Phaser.Input.Keyboard.Key | undefined;
  #active = false;
  #destroyed = false;

  constructor(scene: Phaser.Scene, call: PushToTalkCall, keyCode: number = Phaser.Input.Keyboard.KeyCodes.V) {
    this.#scene = scene;
    this.#call = call;
    call.setAudioMode(MODE_PTT);
    // Typing in a text field (chat) must not talk, so the key is not captured from the page.
    this.#key = scene.input.keyboard?.addKey(keyCode, false);
    this.#key?.on(Phaser.Input.Keyboard.Events.DOWN, this.#down);
    this.#key?.on(Phaser.Input.Keyboard.Events.UP, this.#up);
    window.addEventListener('blur', this.#up);
    scene.events.once(Phaser.Scenes.Events.SHUTDOWN, this.destroy, this);
  }

  /** Whether the key is held now. */
  get active(): boolean {
    return this.#active;
  }

  readonly #down = (): void => {
    if (this.#destroyed || this.#active) return;
    const target = document.activeElement;
    if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) return;
    this.#active = true;
    this.#call.setPTTActive(true);
  };

  readonly #up = (): void => {
    if (!this.#active) return;
    this.#active = false;
    this.#call.setPTTActive(false);
  };

  /** Stops listening to the key and releases push-to-talk; runs by itself when the scene shuts down. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#up();
    this.#destroyed = true;
    this.#key?.off(Phaser.Input.Keyboard.Events.DOWN, this.#down);
    this.#key?.off(Phaser.Input.Keyboard.Events.UP, this.#up);
    if (this.#key) this.#scene.input.keyboard?.removeKey(this.#key);
    window.removeEventListener('blur', this.#up);
    this.#scene.events.off(Phaser.Scenes.Events.SHUTDOWN, this.destroy, this);
  }
}
