import { Observable, type Observer } from '@babylonjs/core/Misc/observable.js';
import type { Scene } from '@babylonjs/core/scene.js';
import {
  LobbyOverlay,
  type FriendsClient,
  type FriendsPanel,
  type InviteToasts,
  type LobbyChatPanel,
  type LobbyMemberList,
  type ShowFriendsOptions,
  type ShowLobbyOptions,
} from '@social-layer/ui';
import type { PluginClient, SocialLayerComponentOptions } from './types.ts';

const components = new WeakMap<Scene, SocialLayerComponent>();

/**
 * Puts Social Layer panels (lobby chat, members, friends, invite toasts) over a Babylon.js
 * scene and ties them to the scene's life.
 *
 * Lifecycle: `scene.onBeforeRenderObservable` pumps the client's queued callbacks when asked to
 * (`pumpCallbacks`); `scene.onDisposeObservable` disposes the component, which removes the
 * panels, every client listener, the overlay and its stylesheet, and its own scene observers.
 * The social logic is the client's: this only shows it (DESIGN.md, convention 6).
 *
 * ```ts
 * const social = new SocialLayerComponent(scene, client, { pumpCallbacks: true });
 * social.showLobby(lobbyId).showFriends({ toasts: { onJoin: (secret) => join(secret) } });
 * ```
 */
export class SocialLayerComponent {
  /** The component's name, as Babylon names its scene components. */
  static readonly Name = 'SocialLayer';

  /** The component bound to `scene`, if one is. */
  static Get(scene: Scene): SocialLayerComponent | undefined {
    return components.get(scene);
  }

  /** The component's name among the scene's components. */
  readonly name = SocialLayerComponent.Name;
  /** The scene the panels belong to. */
  readonly scene: Scene;
  /** The Social Layer client the panels show. */
  readonly client: PluginClient;
  /** Fires once when the component is disposed (by `dispose()` or the scene's disposal). */
  readonly onDisposeObservable = new Observable<SocialLayerComponent>();
  readonly #parent: HTMLElement | undefined;
  #overlay: LobbyOverlay | undefined;
  readonly #overlayOptions: SocialLayerComponentOptions['overlay'];
  #beforeRender: Observer<Scene> | null = null;
  #sceneDispose: Observer<Scene> | null;
  #disposed = false;

  /** Binds `client` to `scene`. A component already bound to the scene is disposed first. */
  constructor(scene: Scene, client: PluginClient, options: SocialLayerComponentOptions = {}) {
    if (scene.isDisposed) throw new Error('SocialLayerComponent: the scene is disposed');
    components.get(scene)?.dispose();
    this.scene = scene;
    this.client = client;
    this.#parent = options.parent;
    this.#sceneDispose = scene.onDisposeObservable.addOnce(() => this.dispose());
    this.pumpCallbacks = options.pumpCallbacks ?? false;
    this.#overlayOptions = options.overlay;
    components.set(scene, this);
  }

  /** Whether `client.runCallbacks()` runs before every render of the scene. */
  get pumpCallbacks(): boolean {
    return this.#beforeRender !== null;
  }

  /** Turns the pumping of `client.runCallbacks()` before every render on or off. */
  set pumpCallbacks(pump: boolean) {
    if (pump === this.pumpCallbacks || (pump && this.#disposed)) return;
    if (pump) this.#beforeRender = this.scene.onBeforeRenderObservable.add(this.#pump);
    else {
      this.scene.onBeforeRenderObservable.remove(this.#beforeRender);
      this.#beforeRender = null;
    }
  }

  /** Whether the component was disposed (with its scene, or by `dispose()`). */
  get isDisposed(): boolean {
    return this.#disposed;
  }

  /** The DOM layer over the canvas, once a panel was shown. */
  get overlay(): LobbyOverlay | undefined {
    return this.#overlay;
  }

  /** The chat panel while a lobby is shown. */
  get chat(): LobbyChatPanel | undefined {
    return this.#overlay?.chat;
  }

  /** The member list while a lobby is shown. */
  get members(): LobbyMemberList | undefined {
    return this.#overlay?.members;
  }

  /** The friends panel while shown. */
  get friends(): FriendsPanel | undefined {
    return this.#overlay?.friends;
  }

  /** The invite toasts while shown. */
  get toasts(): InviteToasts | undefined {
    return this.#overlay?.toasts;
  }

  /** Shows the chat and member list of `lobbyId` (either may be `false`), replacing any shown. */
  showLobby(lobbyId: string, options: ShowLobbyOptions = {}): this {
    this.#ensureOverlay().showLobby(lobbyId, options);
    return this;
  }

  /** Removes the lobby panels and their client listeners. */
  hideLobby(): this {
    this.#overlay?.hideLobby();
    return this;
  }

  /**
   * Shows the friends panel (presence, Invite buttons, requests) and invite toasts. The client
   * must have the social calls (`FriendsClient`); a real Client does. `toasts.onJoin(secret)` is
   * where the game joins the party it was invited to.
   */
  showFriends(options: ShowFriendsOptions = {}): this {
    const client = this.client as PluginClient & Partial<FriendsClient>;
    if (typeof client.getRelationshipsByGroup !== 'function') throw new Error('SocialLayerComponent: the client has no social API');
    this.#ensureOverlay().showFriends(client as FriendsClient, options);
    return this;
  }

  /** Removes the friends panel and the invite toasts. */
  hideFriends(): this {
    this.#overlay?.hideFriends();
    return this;
  }

  /** Frees everything: panels, client listeners, DOM, scene observers. Safe to call twice. */
  dispose(): void {
    if (this.#disposed) return;
    this.pumpCallbacks = false;
    this.#disposed = true;
    this.scene.onDisposeObservable.remove(this.#sceneDispose);
    this.#sceneDispose = null;
    this.#overlay?.destroy();
    this.#overlay = undefined;
    if (components.get(this.scene) === this) components.delete(this.scene);
    this.onDisposeObservable.notifyObservers(this);
    this.onDisposeObservable.clear();
  }

  readonly #pump = (): void => {
    this.client.runCallbacks();
  };

  #ensureOverlay(): LobbyOverlay {
    if (this.#disposed) throw new Error('SocialLayerComponent: used after dispose');
    if (!this.#overlay) {
      const parent = this.#parent ?? canvasParent(this.scene);
      if (!parent) throw new Error('SocialLayerComponent: no canvas in the page to lay the panels over; pass options.parent');
      this.#overlay = new LobbyOverlay(this.client, parent, this.#overlayOptions);
      // The canvas's box changed size (the page header grew a row): the drawing buffer follows,
      // and one frame is drawn into it (resizing clears it; a game drawing on demand may not draw).
      this.#overlay.onResize(() => {
        if (this.#disposed) return;
        this.scene.getEngine().resize();
        if (this.scene.activeCamera && this.scene.isReady()) this.scene.render();
      });
    }
    return this.#overlay;
  }
}

function canvasParent(scene: Scene): HTMLElement | null | undefined {
  return scene.getEngine().getRenderingCanvas()?.parentElement;
}
