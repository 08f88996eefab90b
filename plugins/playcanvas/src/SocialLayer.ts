import type { AppBase } from 'playcanvas';
import {
  LobbyOverlay,
  PushToTalkKey,
  type FriendsClient,
  type FriendsPanel,
  type InviteToasts,
  type LobbyChatPanel,
  type LobbyMemberList,
  type PushToTalkCall,
  type ShowFriendsOptions,
  type ShowLobbyOptions,
} from '@social-layer/ui';
import type { AttachOptions, PluginClient, PushToTalkOptions } from './types.ts';

/**
 * The Social Layer panels (lobby chat, members, friends, invite toasts) and push-to-talk keys
 * over one PlayCanvas app, for one client. An app-level system: it hooks the app's `update`
 * event (to pump `client.runCallbacks()` when asked) and its `destroy` event, which takes down
 * everything this added. The social logic is the client's; this only shows it (DESIGN.md,
 * convention 6).
 *
 * ```ts
 * const social = new SocialLayer(app, client).showLobby(lobbyId).showFriends();
 * ```
 *
 * On an entity instead, with the entity's lifetime: `SocialLayerScript`.
 */
export class SocialLayer {
  readonly #app: AppBase;
  readonly #client: PluginClient;
  readonly #pumpCallbacks: boolean;
  readonly #parent: HTMLElement | undefined;
  readonly #keys = new Set<PushToTalkKey>();
  #overlay: LobbyOverlay | undefined;
  readonly #overlayOptions: AttachOptions['overlay'];
  #destroyed = false;

  constructor(app: AppBase, client: PluginClient, options: AttachOptions = {}) {
    this.#app = app;
    this.#client = client;
    this.#pumpCallbacks = options.pumpCallbacks ?? false;
    this.#overlayOptions = options.overlay;
    this.#parent = options.parent;
    app.on('update', this.#onUpdate, this);
    app.once('destroy', this.destroy, this);
  }

  /** The PlayCanvas app the panels belong to. */
  get app(): AppBase {
    return this.#app;
  }

  /** The Social Layer client the panels show. */
  get client(): PluginClient {
    return this.#client;
  }

  /** True once `destroy()` ran (directly, or through the app's or the script's destroy). */
  get destroyed(): boolean {
    return this.#destroyed;
  }

  /** The DOM layer over the canvas holding the panels, once a panel was shown. */
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

  /** The friends panel while shown (showFriends). */
  get friends(): FriendsPanel | undefined {
    return this.#overlay?.friends;
  }

  /** The invite toasts while shown (showFriends). */
  get toasts(): InviteToasts | undefined {
    return this.#overlay?.toasts;
  }

  /** Shows the chat and member panels for `lobbyId` over the canvas, replacing any shown before. */
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
   * must have the social calls (`FriendsClient`), which a real Client does;
   * `toasts.onJoin(secret)` is where the game joins the party it was invited to.
   */
  showFriends(options: ShowFriendsOptions = {}): this {
    const client = this.#client as PluginClient & Partial<FriendsClient>;
    if (typeof client.getRelationshipsByGroup !== 'function') throw new Error('SocialLayer: the client has no social API');
    this.#ensureOverlay().showFriends(client as FriendsClient, options);
    return this;
  }

  /** Removes the friends panel and the invite toasts. */
  hideFriends(): this {
    this.#overlay?.hideFriends();
    return this;
  }

  /**
   * Puts a call in push-to-talk, held key = talking (default key V, `KeyboardEvent.code`
   * 'KeyV'). DOM key events on the window, so talking does not need the canvas focused and
   * typing in the chat never talks. The key goes with this layer; `destroy()` it earlier when
   * the call ends.
   */
  bindPushToTalk(call: PushToTalkCall, options: PushToTalkOptions = {}): PushToTalkKey {
    this.#assertLive('bindPushToTalk');
    const key = new LayerPushToTalkKey(call, options, (self) => this.#keys.delete(self));
    this.#keys.add(key);
    return key;
  }

  /**
   * Removes the panels, the overlay, its stylesheet, every client listener and push-to-talk
   * key, and unhooks the app. The app's `destroy` calls this. Safe to call twice.
   */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#app.off('update', this.#onUpdate, this);
    this.#app.off('destroy', this.destroy, this);
    for (const key of [...this.#keys]) key.destroy();
    this.#overlay?.destroy();
    this.#overlay = undefined;
  }

  #ensureOverlay(): LobbyOverlay {
    this.#assertLive('show panels');
    if (!this.#overlay) {
      const parent = this.#parent ?? (this.#app.graphicsDevice.canvas as HTMLCanvasElement | undefined)?.parentElement;
      if (!parent) throw new Error('SocialLayer: the app canvas is not in the page yet (or pass options.parent)');
      this.#overlay = new LobbyOverlay(this.#client, parent, this.#overlayOptions);
      // The canvas's box changed size (the page header grew a row): the drawing buffer follows,
      // and a frame is asked for (an app with autoRender off draws only when told).
      this.#overlay.onResize(() => {
        if (this.#destroyed) return;
        this.#app.updateCanvasSize();
        this.#app.renderNextFrame = true;
      });
    }
    return this.#overlay;
  }

  #assertLive(what: string): void {
    if (this.#destroyed) throw new Error(`SocialLayer: cannot ${what} after destroy`);
  }

  #onUpdate(): void {
    if (this.#pumpCallbacks) this.#client.runCallbacks();
  }
}

/** A key that tells its layer when it is destroyed, so the layer holds only live ones. */
class LayerPushToTalkKey extends PushToTalkKey {
  readonly #onDestroy: (key: PushToTalkKey) => void;

  constructor(call: PushToTalkCall, options: PushToTalkOptions, onDestroy: (key: PushToTalkKey) => void) {
    super(call, options);
    this.#onDestroy = onDestroy;
  }

  override destroy(): void {
    super.destroy();
    this.#onDestroy(this);
  }
}
