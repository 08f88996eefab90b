import type { Observer } from '@babylonjs/core/Misc/observable.js';
import type { Scene } from '@babylonjs/core/scene.js';
import { PushToTalkKey, type PushToTalkCall, type PushToTalkKeyOptions } from '@social-layer/ui';

/**
 * Push-to-talk for a lobby call in a Babylon.js scene: puts the call in push-to-talk mode and
 * holds it active while the key (`KeyboardEvent.code`, default 'KeyV') is down. Keys come from
 * the window rather than `scene.onKeyboardObservable`, which only hears a focused canvas: the
 * player should be able to talk right after typing in the chat. Keys typed into text fields
 * never talk; a window blur releases. Disposed with the scene.
 */
export class PushToTalk {
  readonly #key: PushToTalkKey;
  readonly #scene: Scene;
  #sceneDispose: Observer<Scene> | null;

  constructor(scene: Scene, call: PushToTalkCall, options: PushToTalkKeyOptions = {}) {
    this.#scene = scene;
    this.#key = new PushToTalkKey(call, options);
    this.#sceneDispose = scene.onDisposeObservable.addOnce(() => this.dispose());
  }

  /** The key's `KeyboardEvent.code`. */
  get code(): string {
    return this.#key.code;
  }

  /** Whether the key is held now. */
  get active(): boolean {
    return this.#key.active;
  }

  /** Releases the key if held and removes every listener. Safe to call twice. */
  dispose(): void {
    this.#key.destroy();
    this.#scene.onDisposeObservable.remove(this.#sceneDispose);
    this.#sceneDispose = null;
  }
}
